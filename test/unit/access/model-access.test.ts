import { describe, expect, it } from 'vitest';
import { ANONYMOUS_CALLER, adminCaller, type Caller } from '../../../src/access/caller.js';
import { compileAllowList, mayUse, visibleModels } from '../../../src/access/model-access.js';

function caller(keyModels?: string[], teamModels?: string[] | null): Caller {
  return {
    name: 'k',
    team: teamModels === null ? undefined : 't',
    admin: false,
    anonymous: false,
    key: { models: keyModels && compileAllowList(keyModels), limits: undefined, budget: undefined },
    teamPolicy: teamModels === null ? undefined : { models: teamModels && compileAllowList(teamModels), limits: undefined, budget: undefined },
  };
}

describe('model access', () => {
  it('admits exact aliases and glob patterns of the key', () => {
    const c = caller(['claude-*', 'gpt-5'], null);
    expect(mayUse(c, 'claude-opus-5')).toBe(true);
    expect(mayUse(c, 'gpt-5')).toBe(true);
    expect(mayUse(c, 'gpt-5-mini')).toBe(false);
    expect(mayUse(c, 'xclaude-opus')).toBe(false);
    expect(mayUse(c, 'o[3]')).toBe(false);
  });

  it('needs both the key and the team to admit a model; an absent list admits everything', () => {
    expect(mayUse(caller(['claude-*', 'gpt-5'], ['gpt-*']), 'gpt-5')).toBe(true);
    expect(mayUse(caller(['claude-*', 'gpt-5'], ['gpt-*']), 'claude-opus-5')).toBe(false);
    expect(mayUse(caller(undefined, ['gpt-*']), 'gpt-4o')).toBe(true);
    expect(mayUse(caller(undefined, ['gpt-*']), 'claude-x')).toBe(false);
    expect(mayUse(caller(undefined, undefined), 'anything')).toBe(true);
    expect(mayUse(caller([], null), 'anything')).toBe(false);
  });

  it('lets the anonymous caller use every model and admin keys none', () => {
    expect(mayUse(ANONYMOUS_CALLER, 'claude-x')).toBe(true);
    expect(mayUse(adminCaller('ops'), 'claude-x')).toBe(false);
  });
});

describe('model lists', () => {
  it('lists only what the caller may use, in order', () => {
    expect(visibleModels(caller(['claude-*', 'gpt-5'], ['claude-*']), ['gpt-5', 'claude-b', 'claude-a', 'o3'])).toEqual(['claude-b', 'claude-a']);
    expect(visibleModels(ANONYMOUS_CALLER, ['x', 'y'])).toEqual(['x', 'y']);
  });
});
