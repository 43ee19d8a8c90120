// The gateway harness as the agent frameworks see it: the four upstream aliases, plus one alias per
// upstream under a reasoning model's name (frameworks decide from the model id whether to send
// reasoning options), and helpers to read back the generation requests the upstream received.
import { expect } from 'vitest';
import { MODELS, startHarness, type Harness, type UpstreamProtocol } from '../../support/gateway-harness.js';
import type { ReceivedRequest } from '../../support/scripted-upstream/index.js';
import { viewOf, type UpstreamView } from '../../support/upstream-view.js';

export const UPSTREAMS: readonly UpstreamProtocol[] = ['messages', 'responses', 'chat', 'gemini'];

/** An alias the frameworks recognise as an OpenAI reasoning model, routed to `upstream`. */
export const reasoningAlias = (upstream: UpstreamProtocol) => `gpt-5-via-${upstream}`;

/** `extraModels`: more aliases (name → {provider, model}) beside the standard ones. */
export async function startFrameworkHarness(extraModels: Record<string, unknown> = {}): Promise<Harness> {
  return startHarness({
    config: () => {
      const models: Record<string, unknown> = { ...extraModels };
      for (const p of UPSTREAMS) {
        const provider = 'up-' + p;
        models[MODELS[p].alias] = { provider, model: MODELS[p].upstream };
        models[reasoningAlias(p)] = { provider, model: MODELS[p].upstream };
      }
      return { models };
    },
  });
}

/** A mark in the upstream's log; `since(mark)` returns the generation requests received after it. */
export function mark(h: Harness): number {
  return h.upstream.received.length;
}

export function generationsSince(h: Harness, from: number, upstream: UpstreamProtocol): ReceivedRequest[] {
  const out = h.upstream.received.slice(from).filter((r) => !/count_tokens|input_tokens|countTokens|^\/(v1\/)?models/.test(r.path));
  for (const r of out) {
    expect(r.protocol).toBe(upstream);
    // Gemini names the model in the path.
    if (upstream === 'gemini') expect(r.path).toContain(`/models/${MODELS[upstream].upstream}:`);
    else expect(r.body.model).toBe(MODELS[upstream].upstream);
  }
  return out;
}

export function viewsSince(h: Harness, from: number, upstream: UpstreamProtocol): UpstreamView[] {
  return generationsSince(h, from, upstream).map((r) => viewOf(upstream, r.body, r.path));
}

/** Did the upstream get asked to reason, in its own protocol's terms? */
export function reasoningRequested(upstream: UpstreamProtocol, body: Record<string, any>): boolean { // eslint-disable-line @typescript-eslint/no-explicit-any
  if (upstream === 'messages') return body.thinking?.type === 'enabled' || body.thinking?.type === 'adaptive';
  if (upstream === 'responses') return typeof body.reasoning?.effort === 'string';
  if (upstream === 'gemini') return body.generationConfig?.thinkingConfig !== undefined;
  return typeof body.reasoning_effort === 'string';
}

/** The scripted model's answers (test/support/scripted-upstream/agent-loop.ts). */
export const TOOL_ANSWER = 'Tool said: switchyard-ok';
export const REASONING_TEXT = 'The user wants proof that tools work; run a harmless shell command.';
