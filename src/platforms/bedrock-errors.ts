// Amazon Bedrock's error shapes → gateway errors. Over HTTP an error names its type in the
// `x-amzn-errortype` header (`ThrottlingException:http://internal.amazon.com/coral/…`) with a
// `{"message": …}` body; inside a stream it is an exception frame whose `:exception-type` is the same
// name in lower camel case (`throttlingException`). One table serves both, and gives the Anthropic error
// type that an in-stream exception becomes, so the Messages driver and relay read it as Anthropic's own.
import { GatewayError, kindForUpstreamStatus, type GatewayErrorKind } from '../errors.js';

interface BedrockError {
  kind: GatewayErrorKind;
  /** The Anthropic `error.type` of the equivalent in-stream `error` event. */
  anthropicType: string;
  /** Our deployment's AWS identity was refused: not the caller's fault, and AWS's words are not passed on. */
  credentials?: boolean;
}

const CREDENTIALS: BedrockError = { kind: 'bad_gateway', anthropicType: 'authentication_error', credentials: true };

/** By type name with its first letter lower-cased (the in-stream spelling). */
const ERRORS: Record<string, BedrockError> = {
  throttlingException: { kind: 'rate_limit', anthropicType: 'rate_limit_error' },
  serviceQuotaExceededException: { kind: 'rate_limit', anthropicType: 'rate_limit_error' },
  // "The model is not ready to serve inference requests; retry": busy, not the caller's rate.
  modelNotReadyException: { kind: 'overloaded', anthropicType: 'overloaded_error' },
  serviceUnavailableException: { kind: 'overloaded', anthropicType: 'overloaded_error' },
  validationException: { kind: 'invalid_request', anthropicType: 'invalid_request_error' },
  modelStreamErrorException: { kind: 'api_error', anthropicType: 'api_error' },
  modelErrorException: { kind: 'api_error', anthropicType: 'api_error' },
  internalServerException: { kind: 'api_error', anthropicType: 'api_error' },
  modelTimeoutException: { kind: 'timeout', anthropicType: 'timeout_error' },
  resourceNotFoundException: { kind: 'not_found', anthropicType: 'not_found_error' },
  // No access to the model, or the signature / token was refused: the deployment's IAM setup.
  accessDeniedException: { kind: 'bad_gateway', anthropicType: 'permission_error', credentials: true },
  unrecognizedClientException: CREDENTIALS,
  invalidSignatureException: CREDENTIALS,
  signatureDoesNotMatch: CREDENTIALS,
  expiredTokenException: CREDENTIALS,
  incompleteSignature: CREDENTIALS,
  incompleteSignatureException: CREDENTIALS,
  missingAuthenticationTokenException: CREDENTIALS,
  missingAuthenticationToken: CREDENTIALS,
  invalidClientTokenId: CREDENTIALS,
};

/** Bedrock's wording for an input past the model's context (plus Anthropic's, which it also relays). */
const CONTEXT_OVERFLOW = /input is too long|prompt is too long|exceed(?:s|ed)? (?:the )?context (?:limit|window)|too many input tokens/i;

/** `ThrottlingException:http://…` or `com.amazon…#ThrottlingException` → `throttlingException`. */
export function errorKey(type: string): string {
  let name = type;
  const colon = name.indexOf(':');
  if (colon >= 0) name = name.slice(0, colon);
  const hash = name.lastIndexOf('#');
  if (hash >= 0) name = name.slice(hash + 1);
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/** An exception frame's `:exception-type` → the Anthropic error type of the `error` event it becomes. */
export function anthropicTypeOfException(exceptionType: string): string {
  return ERRORS[errorKey(exceptionType)]?.anthropicType ?? 'api_error';
}

export function isCredentialError(type: string | undefined): boolean {
  return type !== undefined && ERRORS[errorKey(type)]?.credentials === true;
}

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** A Bedrock HTTP error → GatewayError; undefined for a body in Anthropic's own error envelope (the
 * Messages driver reads those) or one that is not Bedrock's. */
export function decodeBedrockError(provider: string, status: number, headers: Headers, body: string): GatewayError | undefined {
  let obj: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) obj = parsed as Record<string, unknown>;
  } catch {
    // not JSON: only the header can say what it is
  }
  if (obj?.type === 'error' && typeof obj.error === 'object') return undefined;
  const type = header(headers, 'x-amzn-errortype') ?? (typeof obj?.__type === 'string' ? obj.__type : undefined);
  if (type === undefined && (obj === undefined || typeof (obj.message ?? obj.Message) !== 'string')) return undefined;
  const key = type === undefined ? '' : errorKey(type);
  const known = ERRORS[key];
  const name = key === '' ? `HTTP ${status}` : key.charAt(0).toUpperCase() + key.slice(1);
  const said = typeof obj?.message === 'string' ? obj.message : typeof obj?.Message === 'string' ? obj.Message : '';
  const options = {
    upstreamStatus: status,
    retryAfter: header(headers, 'retry-after'),
    upstreamRequestId: header(headers, 'x-amzn-requestid'),
  };
  if (known?.credentials) {
    return new GatewayError('bad_gateway', `upstream ${provider}: Amazon Bedrock refused the gateway's AWS credentials (${name})`, options);
  }
  let kind = known?.kind ?? kindForUpstreamStatus(status);
  if ((kind === 'invalid_request' || kind === 'request_too_large') && CONTEXT_OVERFLOW.test(said)) kind = 'context_overflow';
  return new GatewayError(kind, said !== '' ? said : `${name} from Amazon Bedrock`, options);
}
