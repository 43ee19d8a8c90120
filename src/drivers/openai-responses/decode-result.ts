// Non-streamed Responses body → IR result. The response object is replayed through the stream decoder
// and folded, so a JSON answer and a streamed one map items, names, ids and finish identically.
import { GatewayError } from '../../errors.js';
import { EventFolder } from '../../ir/fold-events.js';
import type { IrRequest, IrResult } from '../../ir/types.js';
import type { ResponseWire } from '../../protocols/openai-responses/upstream-response.js';
import { ResponsesEventDecoder } from './decode-events.js';
import { errorFacts, kindForFacts } from './error-kind.js';

export function decodeResponsesResult(json: unknown, req: IrRequest): IrResult {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new GatewayError('api_error', 'upstream sent a response body that is not an object');
  }
  const response = json as ResponseWire;
  const status = response.status;
  if (status === 'failed' || (status === undefined && response.error)) {
    const facts = errorFacts(response.error, 'upstream response failed');
    throw new GatewayError(kindForFacts(facts) ?? 'api_error', facts.message, facts.code === undefined ? {} : { code: facts.code });
  }
  // A missing status is read as completed: lenient toward servers that omit it.
  if (status !== undefined && status !== 'completed' && status !== 'incomplete') {
    throw new GatewayError('api_error', `upstream response ended with status ${String(status)}`);
  }
  if (!Array.isArray(response.output)) {
    throw new GatewayError('api_error', 'upstream response has no output array');
  }
  const folder = new EventFolder();
  new ResponsesEventDecoder(req, (ev) => folder.push(ev)).replay(response, status !== 'incomplete');
  return folder.result();
}
