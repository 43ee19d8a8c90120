// The Messages body as Bedrock takes it: no `model` (it is in the URL), no `stream` (the path decides),
// `anthropic_version` as AWS documents it, and the `anthropic-beta` header's values as `anthropic_beta`.
// Done by splicing the JSON text, so the pass-through body keeps every other byte the caller sent.
import { findMembers, removeMembers, type MemberRange } from './json-members.js';

export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

const NAMES = ['model', 'stream', 'anthropic_version', 'anthropic_beta', 'max_tokens'] as const;

/** `anthropic-beta: a, b` → `["a","b"]`. */
function betaList(header: string): string {
  const list: string[] = [];
  for (const part of header.split(',')) {
    const beta = part.trim();
    if (beta !== '') list.push(beta);
  }
  return JSON.stringify(list);
}

/** The InvokeModel body. `counting`: for CountTokens, whose body must still be a valid invoke body
 * (max_tokens is required there, and the counting request carries none). */
export function invokeBody(body: string, betaHeader: string | undefined, counting = false): string {
  const found = findMembers(body, NAMES);
  if (found === undefined) return fallback(body, betaHeader, counting);
  const [model, stream, version, beta, maxTokens] = found.members;
  const drop: MemberRange[] = [];
  if (model) drop.push(model);
  if (stream) drop.push(stream);
  if (version) drop.push(version);
  let head = `{"anthropic_version":"${BEDROCK_ANTHROPIC_VERSION}"`;
  // A caller's own anthropic_beta in the body wins over the header (as in Anthropic's Bedrock SDK).
  if (!beta && betaHeader !== undefined) {
    const list = betaList(betaHeader);
    if (list !== '[]') head += `,"anthropic_beta":${list}`;
  }
  if (counting && !maxTokens) head += ',"max_tokens":1';
  const rest = removeMembers(body, drop);
  const open = rest.indexOf('{') + 1;
  let i = open;
  while (rest.charCodeAt(i) === 0x20 || rest.charCodeAt(i) === 0x0a || rest.charCodeAt(i) === 0x0d || rest.charCodeAt(i) === 0x09) i++;
  return head + (rest.charCodeAt(i) === 125 ? '' : ',') + rest.slice(open);
}

/** Not an object the scanner could walk (never expected: the driver encoded it): parse and rebuild. */
function fallback(body: string, betaHeader: string | undefined, counting: boolean): string {
  const obj = JSON.parse(body) as Record<string, unknown>;
  const out: Record<string, unknown> = { anthropic_version: BEDROCK_ANTHROPIC_VERSION };
  if (obj.anthropic_beta === undefined && betaHeader !== undefined) out.anthropic_beta = JSON.parse(betaList(betaHeader));
  if (counting && obj.max_tokens === undefined) out.max_tokens = 1;
  for (const k in obj) if (k !== 'model' && k !== 'stream' && k !== 'anthropic_version') out[k] = obj[k];
  return JSON.stringify(out);
}

/** CountTokens' request: the invoke body, base64, in its envelope. */
export function countTokensBody(invoke: string): string {
  return `{"input":{"invokeModel":{"body":"${Buffer.from(invoke, 'utf8').toString('base64')}"}}}`;
}
