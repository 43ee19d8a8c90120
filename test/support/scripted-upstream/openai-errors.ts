// The OpenAI error envelope, shared by Responses and Chat Completions.
import type { ErrorSpec } from './protocol.js';

const DEFAULTS: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: 'invalid_request_error', code: null, message: 'Invalid request' },
  401: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory', message: 'Forbidden' },
  404: { type: 'invalid_request_error', code: 'model_not_found', message: 'The model does not exist or you do not have access to it.' },
  429: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached for requests' },
  500: { type: 'server_error', code: 'server_error', message: 'The server had an error while processing your request.' },
  503: { type: 'server_error', code: 'server_is_overloaded', message: 'The server is overloaded.' },
};

export function openaiError(spec: ErrorSpec): unknown {
  const fallback = DEFAULTS[spec.status] ?? (spec.status >= 500 ? DEFAULTS[500]! : DEFAULTS[400]!);
  return {
    error: {
      message: spec.message ?? fallback.message,
      type: spec.type ?? fallback.type,
      param: null,
      code: spec.code ?? (spec.type ? null : fallback.code),
    },
  };
}
