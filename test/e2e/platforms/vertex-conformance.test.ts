// The conformance matrix through Claude on Vertex AI: both doors × streamed and not × every scenario,
// asserted on what the client got and on what reached the model behind the Vertex fake (which refuses
// anything Vertex would: a bad token or URL, a body with `model` or without `anthropic_version`).
import { expect, it } from 'vitest';
import { defineConformanceMatrix, matrixCells } from '../../support/conformance-matrix.js';
import { startVertexHarness, type VertexHarness } from '../../support/vertex-harness.js';

let last: VertexHarness | undefined;
defineConformanceMatrix(
  'conformance matrix through Vertex AI',
  async () => (last = await startVertexHarness()),
  matrixCells(['messages']),
);

it('every generation went through Vertex, none refused by it', () => {
  const seen = last!.vertex.received;
  expect(seen.length).toBeGreaterThan(50);
  expect(seen.filter((r) => r.refused !== undefined)).toEqual([]);
  expect(new Set(seen.map((r) => r.method))).toEqual(new Set(['rawPredict', 'streamRawPredict']));
});
