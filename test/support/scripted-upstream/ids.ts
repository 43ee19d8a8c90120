// Vendor-shaped identifiers. Random so that a gateway cannot rely on them being predictable or unique-by-accident.
import { randomBytes } from 'node:crypto';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function base62(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const byte of bytes) out += BASE62[byte % 62];
  return out;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

export const ids = {
  anthropicMessage: () => `msg_01${base62(22)}`,
  anthropicToolUse: () => `toolu_01${base62(22)}`,
  anthropicRequest: () => `req_011C${base62(20)}`,
  /** Stand-in for a thinking signature / redacted_thinking payload when the script gives none. */
  anthropicSignature: () => `Eq${randomBytes(48).toString('base64')}`,
  response: () => `resp_${hex(24)}`,
  responseMessage: () => `msg_${hex(24)}`,
  reasoning: () => `rs_${hex(24)}`,
  functionCall: () => `fc_${hex(24)}`,
  customToolCall: () => `ctc_${hex(24)}`,
  callId: () => `call_${base62(24)}`,
  /** Stand-in for OpenAI encrypted reasoning content when the script gives none. */
  encryptedContent: () => `gAAAAAB${randomBytes(48).toString('base64')}`,
  chatCompletion: () => `chatcmpl-${base62(29)}`,
  openaiRequest: () => `req_${hex(16)}`,
  fingerprint: () => `fp_${hex(5)}`,
};
