// The conformance matrix: 2 front doors × 4 upstream protocols × streamed and not × every scenario,
// with the official SDKs as clients against a scripted upstream that speaks each protocol completely.
// Each cell asserts what the client got AND what the upstream received. Cells a protocol cannot
// express are declared with their reason (and listed in the README), never silently skipped.
import { startHarness } from '../support/gateway-harness.js';
import { defineConformanceMatrix, matrixCells } from '../support/conformance-matrix.js';

defineConformanceMatrix('conformance matrix', () => startHarness(), matrixCells(['messages', 'responses', 'chat', 'gemini']));
