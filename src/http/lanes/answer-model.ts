// A non-streamed pass-through answer with the caller's model name put back: spliced into the
// upstream's own text (no re-serialising of the whole answer), unless the text leaves any doubt about
// which "model" the caller's JSON parser would keep — then the parsed object is re-serialised.
import { topLevelString } from '../../drivers/top-level-string.js';

/** `obj` is `text` parsed; its model is set too (the store keeps the object). */
export function answerWithModel(text: string, obj: Record<string, unknown>, model: string): string {
  obj.model = model;
  const at = topLevelString(text, 'model');
  // Another "model" after the first (or a \u escape that could spell one) may be a repeated key,
  // and JSON.parse keeps the last one.
  if (at === undefined || text.indexOf('"model"', at[1]) !== -1 || text.indexOf('\\u', at[1]) !== -1) return JSON.stringify(obj);
  return text.slice(0, at[0]) + JSON.stringify(model) + text.slice(at[1]);
}
