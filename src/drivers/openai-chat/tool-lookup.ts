// Chat's tool-name limit, custom tools (sent upstream as functions taking `{"input": string}`, mapping.md
// §4) unwrapped to their raw input, and arguments as text. Names go back through `ToolLookup` (ir/tool-names.ts).

/** OpenAI's tool-name limit, which every compatible server inherits. */
export const CHAT_TOOL_NAME_MAX = 64;

/** `{"input":"…"}` → the raw input text; anything else is returned unchanged (the model misbehaved,
 * and the caller is better served by what it said than by nothing). */
export function unwrapCustomInput(args: string): string {
  try {
    const parsed: unknown = JSON.parse(args);
    if (parsed && typeof parsed === 'object' && typeof (parsed as { input?: unknown }).input === 'string') {
      return (parsed as { input: string }).input;
    }
  } catch {
    // not JSON: keep the raw text
  }
  return args;
}

/** Tool arguments as text: servers occasionally send the parsed object instead of the JSON string. */
export function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  return JSON.stringify(value);
}
