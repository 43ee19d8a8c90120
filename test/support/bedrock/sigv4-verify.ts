// AWS Signature Version 4, checked the way AWS checks it: the canonical request is rebuilt from what
// arrived on the wire (method, raw path, query, the signed headers' values, the body's SHA-256), and the
// signature recomputed with the secret this fake issued for the access key. Written from AWS's public
// description of SigV4 with node:crypto only, so it does not share code (or bugs) with the signer under
// test (@smithy/signature-v4).
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export interface IssuedCredential {
  secretAccessKey: string;
  sessionToken?: string;
  /** ms since the epoch; requests signed with it after this are refused (ExpiredTokenException). */
  expiresAt?: number;
}

export interface SigV4Refusal {
  status: number;
  type: string;
  message: string;
}

export interface WireRequest {
  method: string;
  /** The request target as received (path and query, percent-encoding untouched). */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const MAX_SKEW_MS = 5 * 60_000;

const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** RFC 3986 encoding as SigV4 wants it: everything but A-Z a-z 0-9 - _ . ~ is %XX (upper-case hex). */
export function awsUriEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

/** Services other than S3 encode each path segment once more (the path on the wire is already encoded). */
function canonicalPath(rawPath: string): string {
  return rawPath
    .split('/')
    .map((segment) => awsUriEncode(segment))
    .join('/');
}

function canonicalQuery(query: string): string {
  if (query === '') return '';
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const k = decodeURIComponent(eq < 0 ? pair : pair.slice(0, eq));
      const v = eq < 0 ? '' : decodeURIComponent(pair.slice(eq + 1));
      return [awsUriEncode(k), awsUriEncode(v)] as const;
    })
    .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  if (v === undefined) return undefined;
  return (Array.isArray(v) ? v.join(',') : v).trim().replace(/\s+/g, ' ');
}

/** `20261126T065121Z` → ms. */
function amzDateMs(value: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : NaN;
}

const refuse = (status: number, type: string, message: string): SigV4Refusal => ({ status, type, message });

/** Undefined when the request is signed correctly with a live credential; else Bedrock's refusal. */
export function verifySigV4(
  req: WireRequest,
  lookup: (accessKeyId: string) => IssuedCredential | undefined,
  expect: { region: string; service: string; now?: number },
): SigV4Refusal | { accessKeyId: string } {
  const auth = headerValue(req.headers, 'authorization');
  if (!auth) return refuse(403, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
  const m = /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m) return refuse(400, 'IncompleteSignatureException', 'Authorization header requires Credential, SignedHeaders and Signature parameters.');
  const [, accessKeyId, scopeDate, region, service, signedList, signature] = m as unknown as [string, string, string, string, string, string, string];
  if (region !== expect.region || service !== expect.service) {
    return refuse(403, 'InvalidSignatureException', `Credential should be scoped to a valid region and service ('${expect.region}', '${expect.service}').`);
  }
  const credential = lookup(accessKeyId);
  if (!credential) return refuse(403, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
  const signed = signedList.split(';');
  if (!signed.includes('host') || !signed.includes('x-amz-date')) {
    return refuse(403, 'InvalidSignatureException', "'Host' and 'X-Amz-Date' must be signed headers.");
  }
  const amzDate = headerValue(req.headers, 'x-amz-date') ?? '';
  const when = amzDateMs(amzDate);
  const now = expect.now ?? Date.now();
  if (!Number.isFinite(when) || amzDate.slice(0, 8) !== scopeDate) return refuse(403, 'InvalidSignatureException', 'Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP.');
  if (Math.abs(now - when) > MAX_SKEW_MS) return refuse(403, 'InvalidSignatureException', `Signature expired: ${amzDate} is now earlier than the allowed window.`);
  const token = headerValue(req.headers, 'x-amz-security-token');
  if (credential.sessionToken !== undefined) {
    if (token !== credential.sessionToken || !signed.includes('x-amz-security-token')) {
      return refuse(403, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
    }
  } else if (token !== undefined) {
    return refuse(403, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
  }
  if (credential.expiresAt !== undefined && now >= credential.expiresAt) {
    return refuse(403, 'ExpiredTokenException', 'The security token included in the request is expired');
  }
  const payloadHash = sha256Hex(req.body);
  const claimed = headerValue(req.headers, 'x-amz-content-sha256');
  if (claimed !== undefined && claimed !== payloadHash) {
    return refuse(400, 'XAmzContentSHA256Mismatch', 'The provided x-amz-content-sha256 header does not match what was computed.');
  }
  const q = req.url.indexOf('?');
  const rawPath = q < 0 ? req.url : req.url.slice(0, q);
  const query = q < 0 ? '' : req.url.slice(q + 1);
  const canonicalHeaders = signed.map((name) => `${name}:${headerValue(req.headers, name) ?? ''}\n`).join('');
  const canonicalRequest = [req.method, canonicalPath(rawPath), canonicalQuery(query), canonicalHeaders, signedList, payloadHash].join('\n');
  const scope = `${scopeDate}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac('AWS4' + credential.secretAccessKey, scopeDate), region), service), 'aws4_request');
  const expected = createHmac('sha256', key).update(stringToSign, 'utf8').digest();
  const given = Buffer.from(signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return refuse(
      403,
      'InvalidSignatureException',
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
    );
  }
  return { accessKeyId };
}
