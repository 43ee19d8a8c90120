// The caller's body text, kept beside the object JSON.parse made of it, so the pass-through lane can
// forward the text with only the `model` value spliced in instead of re-serialising the whole object
// (the largest single cost of encoding a pass-through request). Recorded by the body parser
// (http/json-body.ts) when the text has exactly one top-level "model" key holding a string.

export interface CallerJson {
  text: string;
  /** The top-level "model" value, quotes included: text[modelStart, modelEnd). */
  modelStart: number;
  modelEnd: number;
  /** Top-level keys in the text: more than the object has means a key was repeated (JSON.parse keeps
   * the last), and splicing the first would be wrong. */
  keys: number;
}

const texts = new WeakMap<object, CallerJson>();

export function rememberCallerJson(body: object, json: CallerJson): void {
  texts.set(body, json);
}

/** The body's own text when it still matches the object (no key added, removed or repeated). */
export function callerJsonOf(body: Record<string, unknown>): CallerJson | undefined {
  const json = texts.get(body);
  if (json === undefined) return undefined;
  let keys = 0;
  for (const _ in body) keys++;
  return keys === json.keys ? json : undefined;
}
