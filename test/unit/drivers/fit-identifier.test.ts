// Identifiers toward upstreams with tighter limits (mapping.md §15.52), through each driver's
// encodeRequest: Claude Code's ~190-character JSON user id must reach OpenAI as something of at most
// 64 characters that is the same on every turn and differs between users, and never as the raw text.
import { describe, expect, it } from 'vitest';
import { anthropicDriver } from '../../../src/drivers/anthropic-messages/index.js';
import { fitIdentifier } from '../../../src/drivers/fit-identifier.js';
import { chatDriver } from '../../../src/drivers/openai-chat/index.js';
import { responsesDriver } from '../../../src/drivers/openai-responses/index.js';
import type { Driver } from '../../../src/drivers/types.js';
import type { IrRequest, Warning } from '../../../src/ir/types.js';
import { request as chatRequest, target as chatTarget } from './openai-chat/support.js';
import { request as messagesRequest, target as messagesTarget } from './anthropic-messages/support.js';
import { request as responsesRequest, target as responsesTarget } from './openai-responses/support.js';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const claudeCodeUserId = (session: string) =>
  JSON.stringify({
    device_id: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    account_uuid: '7f1d2c3b-4a5e-4f60-8a9b-0c1d2e3f4a5b',
    session_id: session,
  });
const ALICE = claudeCodeUserId('5b2f7c1e-9d8a-4b3c-a1e2-f3d4c5b6a7e8');
const BOB = claudeCodeUserId('0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d');

function encode(driver: Driver, req: IrRequest, target: Parameters<Driver['encodeRequest']>[1]): Body {
  const warnings: Warning[] = [];
  return JSON.parse(driver.encodeRequest(req, target, false, warnings).body) as Body;
}

const responses = (over: Partial<IrRequest>) => encode(responsesDriver, responsesRequest(over), responsesTarget);
const chat = (over: Partial<IrRequest>) => encode(chatDriver, chatRequest(over), chatTarget());
const messages = (over: Partial<IrRequest>) => encode(anthropicDriver, messagesRequest(over), messagesTarget());

describe('identifiers that do not fit the upstream', () => {
  it('Claude Code’s user id is long enough to matter', () => {
    expect(ALICE.length).toBeGreaterThan(150);
  });

  it('toward Responses: safety_identifier of at most 64 characters, stable and distinct, not the raw id', () => {
    const a1 = responses({ user: ALICE }).safety_identifier as string;
    const a2 = responses({ user: ALICE }).safety_identifier as string;
    const b = responses({ user: BOB }).safety_identifier as string;
    expect(a1.length).toBeLessThanOrEqual(64);
    expect(a1).toMatch(/^sha256-[0-9a-f]{48}$/);
    expect(a2).toBe(a1);
    expect(b).not.toBe(a1);
    expect(JSON.stringify(responses({ user: ALICE }))).not.toContain('account_uuid');
  });

  it('toward Chat: `user` of at most 64 characters, the same form', () => {
    const u = chat({ user: ALICE }).user as string;
    expect(u).toBe(responses({ user: ALICE }).safety_identifier);
    expect(chat({ user: BOB }).user).not.toBe(u);
  });

  it('a Responses caller’s own prompt_cache_key and user, forwarded from extras, get the same treatment', () => {
    const key = 'repo:' + 'x'.repeat(100);
    const body = responses({ sourceProtocol: 'responses', extras: { responses: { prompt_cache_key: key, user: BOB, service_tier: 'auto' } } });
    expect(body.prompt_cache_key).toBe(fitIdentifier(key, 64));
    expect((body.prompt_cache_key as string).length).toBeLessThanOrEqual(64);
    expect(body.user).toBe(fitIdentifier(BOB, 64));
    expect(body.service_tier).toBe('auto');
  });

  it('identifiers that fit are sent exactly as they are', () => {
    expect(responses({ user: 'user-42' }).safety_identifier).toBe('user-42');
    expect(chat({ user: 'u'.repeat(64) }).user).toBe('u'.repeat(64));
    expect(responses({ sourceProtocol: 'responses', extras: { responses: { prompt_cache_key: 'codex-session-1' } } }).prompt_cache_key).toBe('codex-session-1');
    // Anthropic takes 256: Claude Code's id goes to an Anthropic upstream unchanged.
    expect(messages({ user: ALICE }).metadata).toEqual({ user_id: ALICE });
  });

  it('toward Anthropic, only an id over its 256 characters is digested', () => {
    const long = 'u'.repeat(300);
    expect(messages({ user: long }).metadata.user_id).toBe(fitIdentifier(long, 256));
    expect((messages({ user: long }).metadata.user_id as string).length).toBeLessThanOrEqual(256);
  });

  it('the digest does not depend on what was digested just before (the one-entry memo)', () => {
    const a = fitIdentifier(ALICE, 64);
    fitIdentifier(BOB, 64);
    expect(fitIdentifier(ALICE, 64)).toBe(a);
    expect(fitIdentifier(ALICE, 20)).toHaveLength(20);
  });
});
