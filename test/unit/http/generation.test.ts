import { ANONYMOUS_CALLER } from '../../../src/access/caller.js';
// Generation.commit(): the one-way switch that ends retries, and the moment the attempt's deployment
// is known healthy (once, however many lanes call it).
import { describe, expect, it } from 'vitest';
import { messagesCodec } from '../../../src/codecs/anthropic-messages/index.js';
import type { AppContext } from '../../../src/http/context.js';
import { Generation, type GenerationInit } from '../../../src/http/generation.js';
import type { IrRequest } from '../../../src/ir/types.js';
import { RequestRecord } from '../../../src/observability/request-record.js';
import { DeploymentHealth } from '../../../src/router/deployment-health.js';
import type { RoutePlan, RouteTarget } from '../../../src/router/model-table.js';

class CountingHealth extends DeploymentHealth {
  successes: string[] = [];
  override success(deployment: string): void {
    this.successes.push(deployment);
    super.success(deployment);
  }
}

function generation(health: DeploymentHealth): Generation {
  const init = {
    ctx: { health } as unknown as AppContext,
    codec: messagesCodec,
    ir: { model: 'alias' } as IrRequest,
    body: {},
    caller: ANONYMOUS_CALLER,
    rec: new RequestRecord('req_1', 'messages', 0),
    request: {} as GenerationInit['request'],
    reply: {} as GenerationInit['reply'],
    warnings: [{ field: 'top_k', message: 'dropped' }],
    requestId: 'req_1',
    plan: { label: 'alias', targets: [] } as unknown as RoutePlan,
    clientGone: new AbortController(),
  } satisfies GenerationInit;
  return new Generation(init, 'msg_1');
}

const target = { provider: { name: 'up' }, model: 'claude-up', deployment: 'up/claude-up' } as RouteTarget;

describe('Generation', () => {
  it('commit() flips once and reports the attempt’s deployment healthy once', () => {
    const health = new CountingHealth();
    const gen = generation(health);
    gen.attemptTarget = target;
    expect(gen.committed).toBe(false);
    gen.commit();
    gen.commit();
    expect(gen.committed).toBe(true);
    expect(health.successes).toEqual(['up/claude-up']);
  });

  it('commit() outside an attempt only flips the switch', () => {
    const health = new CountingHealth();
    const gen = generation(health);
    gen.commit();
    expect(gen.committed).toBe(true);
    expect(health.successes).toEqual([]);
  });

  it('carries the caller identity and the door’s headers', () => {
    const gen = generation(new CountingHealth());
    expect(gen.caller).toBe(ANONYMOUS_CALLER);
    expect(gen.baseWarningCount).toBe(1);
    expect(gen.baseHeaders(target)).toEqual({
      'request-id': 'req_1',
      'x-switchyard-provider': 'up',
      'x-switchyard-model': 'claude-up',
      'x-switchyard-attempts': '0',
      'x-switchyard-warnings': '1; top_k',
    });
  });
});
