// The compiled create-body check (compiled once, at module load); a failed check becomes a 400 worded
// the way the OpenAI API words it (codecs/openai-check-errors.ts). A body that passes the shape then
// meets the rules that need the whole request (vendor-rules.ts).
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ResponsesRequest, type ResponsesRequestBody } from '../../protocols/openai-responses/request.js';
import { throwCheckFailure } from '../openai-check-errors.js';
import { checkVendorRules } from './vendor-rules.js';

const check = TypeCompiler.Compile(ResponsesRequest);

export function validateRequest(body: unknown): ResponsesRequestBody {
  if (check.Check(body)) {
    checkVendorRules(body);
    return body;
  }
  return throwCheckFailure(check, body);
}
