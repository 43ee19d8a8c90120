// GatewayError → the OpenAI error envelope `{"error":{"message","type","param","code"}}` (responses.md
// §10, mapping.md §14), shared by the Responses and Chat doors: status per kind, the type/code pairs
// the OpenAI API and SDK use, retry headers.
import { KIND_INFO, type GatewayError, type GatewayErrorKind } from '../errors.js';
import type { EncodedError } from './types.js';

interface Envelope {
  type: string;
  /** Default `code` when the error carries none. */
  code: string | null;
  /** The code is part of the contract clients key on; the error's own code does not replace it. */
  fixed?: boolean;
}

const ENVELOPES: Record<GatewayErrorKind, Envelope> = {
  invalid_request: { type: 'invalid_request_error', code: null },
  // Codex and the SDKs recognise an overflow by this code, never by the message.
  context_overflow: { type: 'invalid_request_error', code: 'context_length_exceeded', fixed: true },
  authentication: { type: 'invalid_request_error', code: 'invalid_api_key' },
  billing: { type: 'insufficient_quota', code: 'insufficient_quota', fixed: true },
  permission: { type: 'invalid_request_error', code: 'permission_denied' },
  not_found: { type: 'invalid_request_error', code: 'not_found' },
  conflict: { type: 'invalid_request_error', code: 'conflict' },
  request_too_large: { type: 'invalid_request_error', code: 'request_too_large' },
  upgrade_required: { type: 'invalid_request_error', code: 'upgrade_required' },
  rate_limit: { type: 'requests', code: 'rate_limit_exceeded' },
  api_error: { type: 'server_error', code: 'server_error' },
  bad_gateway: { type: 'server_error', code: 'server_error' },
  overloaded: { type: 'server_error', code: 'server_is_overloaded' },
  unavailable: { type: 'server_error', code: 'service_unavailable' },
  timeout: { type: 'server_error', code: 'timeout' },
};

function codeFor(err: GatewayError, envelope: Envelope): string | null {
  if (envelope.fixed) return envelope.code;
  if (err.code !== undefined) return err.code;
  // A 404 about a model is the one clients special-case (Codex: "model not found").
  if (err.kind === 'not_found' && (err.param === 'model' || /\bmodel\b/i.test(err.message))) return 'model_not_found';
  return envelope.code;
}

/** The error object of the envelope (`{"message","type","param","code"}`), its status and its code. */
export function errorObject(err: GatewayError): { status: number; json: string; code: string | null } {
  const envelope = ENVELOPES[err.kind];
  const code = codeFor(err, envelope);
  const json =
    '{"message":' + JSON.stringify(err.message) +
    ',"type":"' + envelope.type +
    '","param":' + JSON.stringify(err.param ?? null) +
    ',"code":' + JSON.stringify(code) + '}';
  return { status: KIND_INFO[err.kind].responsesStatus, json, code };
}

export function encodeError(err: GatewayError, _requestId: string): EncodedError {
  const info = KIND_INFO[err.kind];
  const body = '{"error":' + errorObject(err).json + '}';
  const headers: Record<string, string> = {};
  if (err.retryAfter !== undefined) headers['retry-after'] = err.retryAfter;
  if (err.retryAfterMs !== undefined) headers['retry-after-ms'] = err.retryAfterMs;
  if (!info.retryable) headers['x-should-retry'] = 'false';
  return { status: info.responsesStatus, body, headers };
}

/** The `{"error":{…}}` body of a failure inside a stream (a stream error carries a kind, not a
 * GatewayError): the Chat door's mid-stream error frame, which the OpenAI SDK throws on. */
export function streamErrorBodyJson(kind: string, message: string): string {
  const envelope = ENVELOPES[kind as GatewayErrorKind] ?? ENVELOPES.api_error;
  return '{"error":{"message":' + JSON.stringify(message) + ',"type":"' + envelope.type + '","param":null,"code":' + JSON.stringify(envelope.code) + '}}';
}
