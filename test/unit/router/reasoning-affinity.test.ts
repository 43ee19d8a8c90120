import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/load-config.js';
import type { IrRequest, ReasoningCarry, Turn } from '../../../src/ir/types.js';
import { DeploymentHealth } from '../../../src/router/deployment-health.js';
import { ModelTable } from '../../../src/router/model-table.js';
import { preferReasoningFamily, reasoningCarryFamily } from '../../../src/router/reasoning-affinity.js';

const config = resolveConfig(
  {
    auth: { open: true },
    providers: {
      ant: { protocol: 'messages', base_url: 'http://127.0.0.1:1' },
      oai: { protocol: 'responses', base_url: 'http://127.0.0.1:2/v1' },
      oai2: { protocol: 'responses', base_url: 'http://127.0.0.1:4/v1' },
      cc: { protocol: 'chat', base_url: 'http://127.0.0.1:3/v1' },
    },
    models: {
      mixed: { targets: [{ provider: 'cc', model: 'c' }, { provider: 'oai', model: 'o' }, { provider: 'ant', model: 'a' }, { provider: 'oai2', model: 'o2' }] },
    },
  },
  'test',
);

const anthropicCarry: ReasoningCarry = { family: 'anthropic', block: { type: 'thinking', thinking: 'hmm', signature: 'sig' } };
const openaiCarry: ReasoningCarry = { family: 'openai', id: 'rs_1', encryptedContent: 'enc', summary: [] };

function request(turns: Turn[]): IrRequest {
  return { model: 'mixed', system: [], turns, tools: [], stopSequences: [], stream: false, sourceProtocol: 'messages', extras: {} };
}

const user: Turn = { role: 'user', parts: [{ type: 'text', text: 'hi' }] };
const assistant = (carry?: ReasoningCarry): Turn => ({
  role: 'assistant',
  parts: [{ type: 'reasoning', text: 'thinking', carry }, { type: 'text', text: 'answer' }],
});

describe('reasoning affinity', () => {
  const plan = () => new ModelTable(config, new DeploymentHealth()).resolve('mixed')!.targets;
  const names = (ts: { provider: { name: string } }[]) => ts.map((t) => t.provider.name);

  it('finds the family of the latest opaque carry', () => {
    expect(reasoningCarryFamily(request([user]))).toBeUndefined();
    expect(reasoningCarryFamily(request([user, assistant(), user]))).toBeUndefined();
    expect(reasoningCarryFamily(request([user, assistant(anthropicCarry), user]))).toBe('anthropic');
    expect(reasoningCarryFamily(request([user, assistant(anthropicCarry), user, assistant(openaiCarry), user]))).toBe('openai');
  });

  it('moves the targets of the carry family first, keeping the order inside each group', () => {
    expect(names(preferReasoningFamily(plan(), request([user, assistant(anthropicCarry), user])))).toEqual(['ant', 'cc', 'oai', 'oai2']);
    expect(names(preferReasoningFamily(plan(), request([user, assistant(openaiCarry), user])))).toEqual(['oai', 'oai2', 'cc', 'ant']);
    expect(names(preferReasoningFamily(plan(), request([user, assistant({ family: 'chat', text: 'r' }), user])))).toEqual(['cc', 'oai', 'ant', 'oai2']);
  });

  it('leaves the plan alone without a carry or without a matching target', () => {
    const targets = plan();
    expect(preferReasoningFamily(targets, request([user]))).toBe(targets);
    const onlyOpenai = targets.filter((t) => t.provider.protocol === 'responses');
    expect(preferReasoningFamily(onlyOpenai, request([user, assistant(anthropicCarry), user]))).toBe(onlyOpenai);
  });
});

describe('reasoning affinity with a Gemini deployment', () => {
  it('a conversation carrying a Gemini thought signature tries the Gemini target first', () => {
    const cfg = resolveConfig(
      {
        auth: { open: true },
        providers: { ant: { protocol: 'messages', base_url: 'http://127.0.0.1:1' }, gem: { protocol: 'gemini', api_key: 'k' } },
        models: { mixed: { targets: [{ provider: 'ant', model: 'a' }, { provider: 'gem', model: 'gemini-2.5-pro' }] } },
      },
      'test',
    );
    const targets = new ModelTable(cfg, new DeploymentHealth()).resolve('mixed')!.targets;
    const google = request([user, assistant({ family: 'google', signature: 'sig', on: 'next' }), user]);
    expect(reasoningCarryFamily(google)).toBe('google');
    expect(preferReasoningFamily(targets, google).map((t) => t.provider.name)).toEqual(['gem', 'ant']);
  });
});
