// Anthropic's tool-name limit, and custom tools (sent upstream as tools taking `{"input": string}`,
// mapping.md §4) unwrapped to their raw input. Names go back through `ToolLookup` (ir/tool-names.ts).

/** Anthropic's tool-name limit (`^[a-zA-Z0-9_-]{1,128}$`). */
export const ANTHROPIC_TOOL_NAME_MAX = 128;

/** A custom tool's input object `{"input": "…"}` → the raw input text. Anything else (the model
 * ignored the schema) is returned as JSON text: what it said serves the caller better than nothing. */
export function customInputText(input: unknown): string {
  if (input && typeof input === 'object' && typeof (input as { input?: unknown }).input === 'string') {
    return (input as { input: string }).input;
  }
  return input === undefined ? '' : JSON.stringify(input);
}

/** Streamed custom-tool arguments (the JSON text of the input object) → the raw input text. */
export function customInputFromJson(json: string): string {
  if (json === '') return '';
  try {
    return customInputText(JSON.parse(json));
  } catch {
    // Truncated or invalid JSON: keep the raw text.
    return json;
  }
}
