// The conformance matrix through Claude on Amazon Bedrock: both doors × streamed and not × every scenario,
// asserted on what the client got and on what reached the scripted Bedrock (which verifies every SigV4
// signature): the model in the path, the mode in the operation, the version in the body.
import { expect } from 'vitest';
import { startBedrockMatrix } from '../../support/bedrock/matrix.js';
import type { BedrockReceived } from '../../support/bedrock/server.js';
import { defineConformanceMatrix, matrixCells } from '../../support/conformance-matrix.js';
import { viewOf } from '../../support/upstream-view.js';

function bedrockSeen(received: unknown) {
  const r = received as BedrockReceived;
  expect(r.auth).toBe('sigv4');
  expect(r.body.model).toBeUndefined();
  expect(r.body.stream).toBeUndefined();
  expect(r.body.anthropic_version).toBe('bedrock-2023-05-31');
  return viewOf('messages', { ...r.body, model: r.modelId, ...(r.stream ? { stream: true } : {}) });
}

defineConformanceMatrix(
  'conformance matrix through Amazon Bedrock',
  async () => {
    const started = await startBedrockMatrix();
    return { ...started.harness, close: started.close };
  },
  matrixCells(['messages'], bedrockSeen),
);
