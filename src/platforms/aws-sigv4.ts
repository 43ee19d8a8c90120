// SigV4 request signing with AWS's own signer (@smithy/signature-v4, sha256 from @smithy/hash-node) and
// credentials from the standard Node chain (@aws-sdk/credential-providers: environment, shared
// profile, SSO, credential_process, web identity on Kubernetes, container and instance metadata).
// All three are imported on first use, so a gateway that signs nothing never loads them. One signer
// per platform, reused for every request; credentials come from AwsCredentialCache without a wait.
import { createHash } from 'node:crypto';
import { AwsCredentialCache, type IdentityProvider } from './aws-credentials.js';
import { installCredentialProcessRunner } from './credential-process.js';

export interface SignInput {
  method: string;
  /** host[:port] as sent in the Host header. */
  host: string;
  /** The path as sent, already percent-encoded. */
  path: string;
  /** Headers to sign (lower-case names); the signed set is returned with authorization and x-amz-*. */
  headers: Record<string, string>;
  body: string;
}

export interface SigV4 {
  sign(input: SignInput): Promise<Record<string, string>>;
  credentials: AwsCredentialCache;
}

export interface SigV4Options {
  region: string;
  service: string;
  /** Tests and embedders: a provider in place of the default chain. */
  provider?: IdentityProvider;
  /** The bound on one credential refresh (credentialFetchBoundMs). */
  fetchTimeoutMs?: number;
}

interface Signer {
  sign(request: unknown, options: { signingDate: Date }): Promise<{ headers: Record<string, string> }>;
}

export async function createSigV4(options: SigV4Options): Promise<SigV4> {
  const [{ SignatureV4 }, { Hash }] = await Promise.all([import('@smithy/signature-v4'), import('@smithy/hash-node')]);
  const provider = options.provider ?? (await defaultChain());
  const credentials = new AwsCredentialCache(provider, Date.now, options.fetchTimeoutMs);
  class Sha256 extends Hash {
    constructor(secret?: Parameters<typeof Hash.prototype.update>[0]) {
      super('sha256', secret as ConstructorParameters<typeof Hash>[1]);
    }
  }
  const signer = new SignatureV4({
    service: options.service,
    region: options.region,
    credentials: () => Promise.resolve(credentials.get()),
    sha256: Sha256,
  }) as unknown as Signer;
  return {
    credentials,
    async sign(input) {
      input.headers.host = input.host;
      // The payload hash straight from node:crypto (the signer then takes it from this header, which it
      // signs and Bedrock checks): one pass over the body without the signer's copy of it into bytes.
      input.headers['x-amz-content-sha256'] = createHash('sha256').update(input.body, 'utf8').digest('hex');
      const signed = await signer.sign(
        { method: input.method, protocol: 'https:', hostname: input.host, path: input.path, query: {}, headers: input.headers, body: input.body },
        { signingDate: new Date() },
      );
      return signed.headers;
    },
  };
}

async function defaultChain(): Promise<IdentityProvider> {
  const { fromNodeProviderChain } = await import('@aws-sdk/credential-providers');
  // A credential_process in its own process group, killed at the fetch's deadline and at exit.
  installCredentialProcessRunner();
  return fromNodeProviderChain() as IdentityProvider;
}
