// CPU per request of what the doors do before routing: parsing the body (fastify's default parser vs
// ours, which adds the nesting-depth scan), the compiled shape check, the vendor rules, and the whole
// decode. A micro-benchmark, not a test: it prints µs per request and asserts nothing.
//
//   node --import tsx bench/micro/request-validation.ts
import { readFileSync } from 'node:fs';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import Fastify from 'fastify';
import { messagesCodec } from '../../src/codecs/anthropic-messages/index.js';
import { checkVendorRules as messagesRules } from '../../src/codecs/anthropic-messages/vendor-rules.js';
import { responsesCodec } from '../../src/codecs/openai-responses/index.js';
import { checkVendorRules as responsesRules } from '../../src/codecs/openai-responses/vendor-rules.js';
import { MAX_JSON_DEPTH, parseJsonBody, scanJson } from '../../src/http/json-body.js';
import { MessagesRequest } from '../../src/protocols/anthropic-messages/request.js';
import { ResponsesRequest } from '../../src/protocols/openai-responses/request.js';
import { requestBody } from '../request-bodies.js';

const fixture = (path: string): string => readFileSync(new URL(`../../test/fixtures/${path}`, import.meta.url), 'utf8');

const BODIES: { name: string; door: 'messages' | 'responses'; text: string }[] = [
  { name: 'bench messages body', door: 'messages', text: requestBody('messages', 'm', false) },
  { name: 'Claude Code request', door: 'messages', text: JSON.stringify(JSON.parse(fixture('messages/claude-code-request.json'))) },
  { name: 'bench responses body', door: 'responses', text: requestBody('responses', 'm', false) },
  { name: 'Codex request', door: 'responses', text: JSON.stringify(JSON.parse(fixture('responses/codex-request.json'))) },
];

const messagesShape = TypeCompiler.Compile(MessagesRequest);
const responsesShape = TypeCompiler.Compile(ResponsesRequest);
// fastify's own parser (secure-json-parse), the one the gateway used before.
const fastifyParse = Fastify().getDefaultJsonParser('error', 'ignore') as unknown as (
  req: unknown,
  body: string,
  done: (err: Error | null, value?: unknown) => void,
) => void;

function usPerCall(fn: () => void): number {
  const warm = 5_000;
  const n = 20_000;
  for (let i = 0; i < warm; i++) fn();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  return Number(process.hrtime.bigint() - t0) / n / 1000;
}

// The machine is shared: the best of several rounds is the figure least disturbed by other work.
const ROUNDS = 7;
let sink: unknown;
const best = new Map<string, Record<string, number>>();
for (let round = 1; round <= ROUNDS; round++) {
  for (const b of BODIES) {
    const parsed = JSON.parse(b.text) as Record<string, unknown>;
    const shape = b.door === 'messages' ? messagesShape : responsesShape;
    const codec = b.door === 'messages' ? messagesCodec : responsesCodec;
    const rules = b.door === 'messages' ? () => messagesRules(parsed as never) : () => responsesRules(parsed as never);
    const row: Record<string, number> = {
      'parse (fastify)': usPerCall(() => fastifyParse(null, b.text, (_e, v) => (sink = v))),
      'parse (ours)': usPerCall(() => (sink = parseJsonBody(b.text))),
      'depth scan': usPerCall(() => (sink = scanJson(b.text, MAX_JSON_DEPTH))),
      'shape check': usPerCall(() => (sink = shape.Check(parsed))),
      'vendor rules': usPerCall(rules),
      'whole decode': usPerCall(() => (sink = codec.decodeRequest(parsed, []))),
    };
    const kept = best.get(b.name);
    if (kept === undefined) best.set(b.name, row);
    else for (const k in row) kept[k] = Math.min(kept[k]!, row[k]!);
  }
}
for (const b of BODIES) {
  const row = best.get(b.name)!;
  console.log(`${b.name.padEnd(22)} ${String(b.text.length).padStart(6)} B  ` + Object.entries(row).map(([k, v]) => `${k} ${v.toFixed(2)} µs`).join(', '));
}
void sink;
