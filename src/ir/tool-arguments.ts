// Tool-call argument text → the JSON object Anthropic's `tool_use.input` must be (mapping.md §15.10–12):
// empty → {}, truncated JSON → repaired, a non-object → {value}. Both the Messages codec (answers to a
// caller) and the Anthropic driver (replayed calls toward the upstream) need it.

/** The input object, or `undefined` when the text is not JSON at all, not even cut-off JSON. */
export function parseToolArguments(args: string): Record<string, unknown> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    if (args.trim() === '') return {};
    parsed = repairTruncatedJson(args);
    if (parsed === undefined) return undefined;
  }
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  return { value: parsed };
}

/** The input object; anything unreadable → {}. */
export function toolInput(args: string): Record<string, unknown> {
  return parseToolArguments(args) ?? {};
}

const LITERALS = new Set(['true', 'false', 'null']);

/**
 * Completes JSON cut off mid-stream (max_tokens during a tool call): keeps every value that was
 * complete and closes the open brackets. A value the cut left unfinished (string, number, literal) is
 * dropped with its key, never passed on as if whole — which is also how the Anthropic SDK's own
 * partial-JSON reader treats the same stream, so streamed and non-streamed answers agree.
 * Returns undefined when the text is not truncated JSON at all.
 */
export function repairTruncatedJson(text: string): unknown {
  // Open containers ('{' / '['), and whether the next string is an object key.
  const stack: string[] = [];
  let expectKey = false;
  let safeEnd = -1;
  let safeClosers = '';
  const markSafe = (end: number) => {
    safeEnd = end;
    safeClosers = '';
    for (let k = stack.length - 1; k >= 0; k--) safeClosers += stack[k] === '{' ? '}' : ']';
  };
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
    } else if (c === '{' || c === '[') {
      stack.push(c);
      expectKey = c === '{';
      markSafe(++i);
    } else if (c === '}' || c === ']') {
      if (stack.pop() !== (c === '}' ? '{' : '[')) return undefined;
      expectKey = false;
      markSafe(++i);
    } else if (c === ':') {
      expectKey = false;
      i++;
    } else if (c === ',') {
      expectKey = stack[stack.length - 1] === '{';
      i++;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < n; j++) {
        const d = text[j];
        if (d === '\\') j++;
        else if (d === '"') break;
      }
      if (j >= n) break; // cut inside the string
      i = j + 1;
      if (expectKey) expectKey = false; // a key: its value is still to come
      else markSafe(i);
    } else if (/[-0-9a-z.+]/i.test(c)) {
      let j = i + 1;
      while (j < n && /[-0-9a-z.+]/i.test(text[j]!)) j++;
      // A number running to the cut may be missing digits; a literal is whole once fully spelled.
      if (j >= n && !LITERALS.has(text.slice(i, j))) break;
      i = j;
      markSafe(i);
    } else {
      return undefined;
    }
  }
  if (safeEnd < 0) return undefined;
  try {
    return JSON.parse(text.slice(0, safeEnd) + safeClosers);
  } catch {
    return undefined;
  }
}
