// The schema's complaints in the operator's words: every problem, one a line, naming the key, saying what
// is allowed (the values of a choice, the nearest known key for a typo) and what kind of value was found.
// Never the value itself: a secret under a misspelt field (`kee:` for `key:`) would otherwise be
// printed, logged on reload and kept for /status.json (review R6).
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import type { TSchema } from '@sinclair/typebox';

/** One line per problem; a key with several complaints (missing and not an object) gets the first. */
export function describeSchemaErrors(errors: Iterable<ValueError>, document: unknown): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const e of errors) {
    const key = pointerToKey(e.path) || '(root)';
    if (seen.has(key)) continue;
    seen.add(key);
    lines.push(`${key}: ${explain(e, key, document)}`);
  }
  return lines;
}

export function pointerToKey(pointer: string): string {
  return pointer.replace(/^\//, '').split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')).join('.');
}

function explain(e: ValueError, key: string, document: unknown): string {
  const s = e.schema as TSchema & Record<string, unknown>;
  const got = ` (got ${kindOf(e.value)})`;
  switch (e.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return `missing (required)${misplaced(key, document)}`;
    case ValueErrorType.ObjectAdditionalProperties: {
      const name = key.slice(key.lastIndexOf('.') + 1);
      const known = Object.keys((s.properties as Record<string, unknown> | undefined) ?? {});
      const near = nearest(name, known);
      if (near) return `unknown key; did you mean ${near}?`;
      return `unknown key (known here: ${known.join(', ')})`;
    }
    case ValueErrorType.Union: {
      const choices = (s.anyOf as Record<string, unknown>[] | undefined) ?? [];
      if (choices.every((c) => 'const' in c || c.type === 'boolean')) {
        const values = choices.flatMap((c) => ('const' in c ? [String(c.const)] : ['true', 'false']));
        const near = typeof e.value === 'string' ? nearest(e.value, values) : undefined;
        return `must be one of ${values.join(', ')}${got}${near ? `; did you mean ${near}?` : ''}`;
      }
      return `${e.message}${got}`;
    }
    case ValueErrorType.Object:
      return e.value === null || e.value === undefined
        ? 'must be a mapping of keys, but is empty (are the lines under it indented?)'
        : `must be a mapping of keys${got}`;
    case ValueErrorType.Array:
      return `must be a list${got}`;
    case ValueErrorType.String:
      return `must be text${got}`;
    case ValueErrorType.Integer:
      return `must be a whole number${got}`;
    case ValueErrorType.Number:
      return `must be a number${got}`;
    case ValueErrorType.Boolean:
      return `must be true or false${got}`;
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return `must be at least ${String(s.minimum)}`;
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return `must be at most ${String(s.maximum)}`;
    case ValueErrorType.IntegerExclusiveMinimum:
    case ValueErrorType.NumberExclusiveMinimum:
      return `must be more than ${String(s.exclusiveMinimum)}`;
    case ValueErrorType.StringMinLength:
      return s.minLength === 1 ? 'must not be empty' : `must be at least ${String(s.minLength)} characters`;
    case ValueErrorType.StringMaxLength:
      return `must be at most ${String(s.maxLength)} characters`;
    case ValueErrorType.StringPattern:
      return PATTERNS[String(s.pattern)] ?? `must match the pattern ${String(s.pattern)}`;
    case ValueErrorType.ArrayMinItems:
      return `needs at least ${String(s.minItems)} ${s.minItems === 1 ? 'entry' : 'entries'}`;
    case ValueErrorType.ArrayMaxItems:
      return `takes at most ${String(s.maxItems)} entries`;
    default:
      // TypeBox's own messages describe the rule, never the value.
      return e.message;
  }
}

/** The schema's patterns, said in words. */
const PATTERNS: Record<string, string> = {
  '^https?://': 'must be a URL starting with http:// or https://',
  '^(/[A-Za-z0-9._~-]+)*$': 'must be a path such as /gateway (no trailing slash), or empty',
  '^[A-Za-z][A-Za-z0-9+.-]*://[^\\s\\\\]*/$': 'must be a URL prefix: a scheme, ://, and a path ending in / (e.g. gs://bucket/)',
};

/** What kind of value this is, never what it says. */
function kindOf(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return value === '' ? 'empty text' : 'text';
  if (typeof value === 'number') return Number.isInteger(value) ? 'a whole number' : 'a number';
  if (typeof value === 'boolean') return 'true/false';
  return typeof value;
}

/** A top-level section that is missing but sits deeper in the file: almost always an indentation slip. */
function misplaced(key: string, document: unknown): string {
  if (key.includes('.')) return '';
  const found = findKey(document, key, [], 3);
  return found ? `; there is a ${found} in the file: is it indented too far?` : '';
}

function findKey(node: unknown, name: string, path: string[], depth: number): string | undefined {
  if (depth === 0 || node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
  for (const [k, v] of Object.entries(node)) {
    if (k === name && path.length > 0) return [...path, k].join('.');
    const deeper = findKey(v, name, [...path, k], depth - 1);
    if (deeper) return deeper;
  }
  return undefined;
}

/** The known name closest to `given` (case, `-` and `_` ignored first), if it is close enough to be a typo. */
export function nearest(given: string, known: readonly string[]): string | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');
  const exact = known.find((k) => norm(k) === norm(given));
  if (exact) return exact;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of known) {
    const d = distance(norm(given), norm(k));
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(Math.min(given.length, best.length) / 3)) ? best : undefined;
}

/** Levenshtein distance, with a transposition counted as one edit (`kye` → `key`). */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}
