// The caller's model name put back into what a pass-through upstream sent: spliced into the
// upstream's own text (no re-serialising of the whole answer or frame), unless the text leaves any
// doubt about which "model" the caller's JSON parser would keep — then the caller re-serialises.
import { keyValueStart, topLevelString } from '../../drivers/top-level-string.js';

/** `text` with the `model` of the object opening at `from` replaced, or undefined when another
 * "model" (or a \u escape that could spell one) follows it: a repeated key, and JSON.parse keeps the
 * last one. */
export function spliceModel(text: string, model: string, from = 0): string | undefined {
  const at = topLevelString(text, 'model', from);
  if (at === undefined || text.indexOf('"model"', at[1]) !== -1 || text.indexOf('\\u', at[1]) !== -1) return undefined;
  return text.slice(0, at[0]) + JSON.stringify(model) + text.slice(at[1]);
}

/** The same inside the object under the top-level `key` (a stream event's `message` / `response`). */
export function spliceNestedModel(text: string, key: string, model: string): string | undefined {
  const start = keyValueStart(text, key);
  return start >= 0 && text.charCodeAt(start) === 0x7b ? spliceModel(text, model, start) : undefined;
}

/** A non-streamed answer; `obj` is `text` parsed, and its model is set too (the store keeps it). */
export function answerWithModel(text: string, obj: Record<string, unknown>, model: string): string {
  obj.model = model;
  return spliceModel(text, model) ?? JSON.stringify(obj);
}
