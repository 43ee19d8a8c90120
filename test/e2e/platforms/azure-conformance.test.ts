// The conformance matrix through Azure OpenAI: both doors × the Responses upstream on the v1 API and the
// Chat upstream on a deployment URL × streamed and not × every scenario, asserted on what the client got
// and on what reached the model behind the Azure fake (which refuses anything Azure would).
import { expect, it } from 'vitest';
import { defineConformanceMatrix, matrixCells } from '../../support/conformance-matrix.js';
import { startAzureHarness, type AzureHarness } from '../../support/azure-harness.js';

let last: AzureHarness | undefined;
defineConformanceMatrix('conformance matrix through Azure OpenAI', async () => (last = await startAzureHarness()), matrixCells(['responses', 'chat']));

it('every generation went through Azure, none refused by it', () => {
  const seen = last!.azure.received;
  expect(seen.length).toBeGreaterThan(100);
  expect(seen.filter((r) => r.refused !== undefined)).toEqual([]);
  expect(new Set(seen.map((r) => r.api))).toEqual(new Set(['v1', 'deployment']));
  expect(new Set(seen.map((r) => r.auth))).toEqual(new Set(['api-key']));
});
