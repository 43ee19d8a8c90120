// Gemini function names (gemini.md §4): letters, digits, `_ . : -`, starting with a letter or `_`, at
// most 64 characters here (the shortest limit Google documents). ir/tool-names.ts shortens and maps back.

export const GEMINI_TOOL_NAME_MAX = 64;

/** `{"input":"…"}` → the raw input of a custom tool (they travel as functions taking one string). */
export function unwrapCustomInput(args: Record<string, unknown>): string {
  const input = args.input;
  return typeof input === 'string' ? input : JSON.stringify(args);
}
