// JSON Schema → the subset Gemini's `parametersJsonSchema` / `responseJsonSchema` accept (gemini.md §4):
// `$id $defs $ref $anchor type format title description enum items prefixItems minItems maxItems minimum
// maximum anyOf oneOf properties additionalProperties required propertyOrdering`. `const` becomes a
// one-value `enum`, `definitions` becomes `$defs` (with its `$ref`s); every other keyword is dropped and
// named in one warning per schema. The input is never modified.

const KEPT = new Set([
  '$id', '$defs', '$ref', '$anchor', 'type', 'format', 'title', 'description', 'enum', 'items', 'prefixItems',
  'minItems', 'maxItems', 'minimum', 'maximum', 'anyOf', 'oneOf', 'properties', 'additionalProperties', 'required',
  'propertyOrdering',
]);

/** Keywords whose value is a map of sub-schemas. */
const SCHEMA_MAPS = new Set(['$defs', 'properties']);
/** Keywords whose value is a list of sub-schemas. */
const SCHEMA_LISTS = new Set(['anyOf', 'oneOf', 'prefixItems']);

export interface SubsetResult {
  schema: Record<string, unknown>;
  /** Keywords dropped anywhere in the schema, sorted, once each. */
  dropped: string[];
}

export function geminiSchema(schema: Record<string, unknown>): SubsetResult {
  const dropped = new Set<string>();
  const out = convert(schema, dropped) as Record<string, unknown>;
  return { schema: out, dropped: [...dropped].sort() };
}

function convert(node: unknown, dropped: Set<string>): unknown {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return node; // `true`/`false` schemas, or bad input: as is
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (key === 'const') {
      if (typeof value === 'string' || typeof value === 'number') out.enum = [value];
      else dropped.add(key);
      continue;
    }
    if (key === 'definitions') {
      out.$defs = convertMap(value, dropped);
      continue;
    }
    if (!KEPT.has(key)) {
      dropped.add(key);
      continue;
    }
    if (key === '$ref' && typeof value === 'string') out.$ref = value.replace('#/definitions/', '#/$defs/');
    else if (SCHEMA_MAPS.has(key)) out[key] = convertMap(value, dropped);
    else if (SCHEMA_LISTS.has(key)) out[key] = Array.isArray(value) ? value.map((v) => convert(v, dropped)) : value;
    else if (key === 'items' || key === 'additionalProperties') out[key] = convert(value, dropped);
    else if (key === 'enum' && Array.isArray(value)) {
      // Gemini takes enums of strings and numbers only.
      const kept = value.filter((v) => typeof v === 'string' || typeof v === 'number');
      if (kept.length !== value.length) dropped.add('enum (non-string values)');
      if (kept.length > 0) out.enum = kept;
    } else out[key] = value;
  }
  return out;
}

function convertMap(value: unknown, dropped: Set<string>): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [name, sub] of Object.entries(value as Record<string, unknown>)) out[name] = convert(sub, dropped);
  return out;
}
