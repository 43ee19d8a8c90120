// The status page in a real browser (Debian's chromium, driven by playwright-core): a gateway process
// (src/main.ts, as npm start runs it) in front of the scripted upstream, traffic through both doors
// including a failing deployment, a limited key and long streams, and what a person sees on /status:
// the login with admin keys, the route table, the failing deployment's circuit opening and its error
// rate, the in-flight count moving, the limited key's bar at its limit, the request list growing with
// no prompt, answer or key anywhere in the DOM, and no console errors. A screenshot under load is saved
// to .tmp/artifacts/status-page.png (UPDATE_STATUS_SCREENSHOT=1 also refreshes docs/status-page.png).
import Anthropic from '@anthropic-ai/sdk';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.js';
import { requireTool, requireTools } from '../../support/required-tools.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../../support/scripted-upstream/index.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
requireTools('chromium');
const CHROMIUM = requireTool('chromium');
const PROMPT = 'PROMPT-MARKER-9731 please summarise the quarterly numbers';
const ANSWER = 'ANSWER-MARKER-4411 here is the summary';
const KEYS = { ops: 'k-ops-5cb1e7d2', limited: 'k-limited-93af01', admin: 'k-admin-77d0c4e9' };

let upstream: ScriptedUpstream;
let gateway: GatewayProcess;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];

beforeAll(async () => {
  upstream = await startScriptedUpstream({
    defaultReply: (req) => {
      const model = (req.body as { model?: string } | undefined)?.model;
      if (model === 'broken-upstream') return { kind: 'http-error', status: 500, message: 'scripted failure' };
      const reply = { kind: 'reply' as const, blocks: [{ type: 'text' as const, text: ANSWER }], usage: { input: 40, output: 12 } };
      if (model === 'slow-upstream') return { kind: 'stall', afterBlocks: reply.blocks, ms: 6000 };
      return reply;
    },
  });
  const base = upstream.url;
  gateway = await startGatewayProcess({
    log: { level: 'warn' },
    status: { enabled: true },
    auth: {
      keys: [
        { name: 'ops-key', key: KEYS.ops },
        { name: 'limited-key', key: KEYS.limited, limits: { rpm: 3 } },
      ],
      admin_keys: [{ name: 'admin', key: KEYS.admin }],
    },
    providers: {
      'up-messages': { protocol: 'messages', base_url: base, api_key: 'upstream-key-m', retry: { attempts: 1 }, prices: { 'claude-upstream-1': { input: 3, output: 15 } } },
      'up-responses': { protocol: 'responses', base_url: base + '/v1', api_key: 'upstream-key-r', retry: { attempts: 1 } },
      'up-broken': {
        protocol: 'chat',
        base_url: base + '/v1',
        api_key: 'upstream-key-c',
        retry: { attempts: 1 },
        cooldown: { failures: 2, window_ms: 60_000, cooldown_ms: 120_000 },
      },
    },
    models: {
      'chat-a': { provider: 'up-messages', model: 'claude-upstream-1' },
      'resp-b': { provider: 'up-responses', model: 'gpt-upstream-1' },
      flaky: { targets: [{ provider: 'up-broken', model: 'broken-upstream' }, { provider: 'up-messages', model: 'claude-upstream-1' }] },
      slow: { provider: 'up-messages', model: 'slow-upstream' },
    },
  }, { configFile: '.tmp/status-demo/switchyard.yaml' });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text() + ' (' + m.location().url + ')');
  });
  page.on('pageerror', (e) => consoleErrors.push('pageerror: ' + e.message));
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.stop();
  await upstream?.close();
});

const anthropic = (key: string) => new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0 });
const openai = (key: string) => new OpenAI({ baseURL: gateway.url + '/v1', apiKey: key, maxRetries: 0 });
const ask = (key: string, model: string) => anthropic(key).messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: PROMPT }] });
const text = (selector: string) => page.locator(selector).first().textContent({ timeout: 5000 });

describe('status page in chromium', () => {
  it('answers 401 JSON without an admin key, 403 for a caller key', async () => {
    const none = await fetch(gateway.url + '/status.json');
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: { type: string } }).error.type).toBe('authentication_error');
    const caller = await fetch(gateway.url + '/status.json', { headers: { 'x-api-key': KEYS.ops } });
    expect(caller.status).toBe(403);
    const admin = await fetch(gateway.url + '/status.json', { headers: { 'x-api-key': KEYS.admin } });
    expect(admin.status).toBe(200);
    // The page's own files load without a key; they carry no data.
    const html = await fetch(gateway.url + '/status');
    expect(html.status).toBe(200);
    expect(html.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it('shows the login form, refuses a wrong key, then shows the dashboard for an admin key', async () => {
    await page.goto(gateway.url + '/status');
    await page.locator('#login-form').waitFor({ state: 'visible' });
    expect(await page.locator('#dashboard').isHidden()).toBe(true);

    const before = consoleErrors.length;
    await page.fill('#login-key', 'not-a-key');
    await page.click('#login-form button[type=submit]');
    await page.locator('#login-error').waitFor({ state: 'visible' });
    expect(await text('#login-error')).toContain('invalid API key');
    // The browser itself logs the refused fetch (its console event may trail the DOM); nothing else may appear.
    await expect.poll(() => consoleErrors.length, { timeout: 3_000 }).toBeGreaterThan(before);
    expect(consoleErrors.slice(before).every((e) => /401/.test(e))).toBe(true);
    consoleErrors.length = before;

    await page.fill('#login-key', KEYS.admin);
    await page.click('#login-form button[type=submit]');
    await page.locator('#dashboard').waitFor({ state: 'visible' });
    expect(page.url()).not.toContain(KEYS.admin);
    expect(await page.evaluate("sessionStorage.getItem('switchyard-status-key')")).toBe(KEYS.admin);
  });

  it('shows the route table with each target and the lane per door', async () => {
    const flaky = page.locator('#routes tr[data-alias="flaky"]');
    await flaky.waitFor();
    const row = await flaky.innerText();
    expect(row).toContain('up-broken · chat · broken-upstream');
    expect(row).toContain('up-messages · messages · claude-upstream-1');
    const chatA = await page.locator('#routes tr[data-alias="chat-a"] td').allInnerTexts();
    expect(chatA[3]).toBe('passthrough'); // from /v1/messages to a Messages upstream
    expect(chatA[4]).toBe('translation'); // from /v1/responses
  });

  it('shows traffic as it happens: a failing deployment, a limited key, long streams, the request list', async () => {
    // Both doors, both lanes.
    for (let i = 0; i < 3; i++) await ask(KEYS.ops, 'chat-a');
    for (const model of ['chat-a', 'resp-b']) await openai(KEYS.ops).responses.create({ model, input: PROMPT, max_output_tokens: 64 });
    // Streams through both doors (time to first token).
    await anthropic(KEYS.ops).messages.stream({ model: 'chat-a', max_tokens: 64, messages: [{ role: 'user', content: PROMPT }] }).finalMessage();
    for await (const _ of await openai(KEYS.ops).responses.create({ model: 'resp-b', input: PROMPT, stream: true })) void _;

    // The failing deployment: each call fails there and falls back; after two failures its circuit opens.
    for (let i = 0; i < 3; i++) expect((await ask(KEYS.ops, 'flaky')).content[0]).toMatchObject({ type: 'text', text: ANSWER });
    const broken = page.locator('#deployments tr[data-deployment="up-broken/broken-upstream"]');
    await expect.poll(async () => broken.locator('td.circuit').innerText(), { timeout: 10_000 }).toBe('open');
    expect(await broken.locator('td.error-rate').innerText()).toBe('100 %');
    const healthy = page.locator('#deployments tr[data-deployment="up-messages/claude-upstream-1"]');
    expect(await healthy.locator('td.circuit').innerText()).toBe('closed');
    expect(await healthy.locator('td.error-rate').innerText()).toBe('0 %');

    // The limited key: three calls a minute, the fourth refused; its bar reaches the limit.
    for (let i = 0; i < 3; i++) await ask(KEYS.limited, 'chat-a');
    await expect(ask(KEYS.limited, 'chat-a')).rejects.toMatchObject({ status: 429 });
    const rpm = page.locator('[data-key-usage="limited-key"] [data-limit="rpm"]');
    await expect.poll(async () => (await rpm.count()) > 0 && rpm.locator('.value').innerText(), { timeout: 10_000 }).toBe('3 / 3');
    expect(await rpm.getAttribute('class')).toContain('full');
    expect(await rpm.getAttribute('aria-valuenow')).toBe('3');

    // Long streams: the in-flight count and open streams rise while they last, then fall back.
    await expect.poll(async () => text('#in-flight'), { timeout: 6_000 }).toBe('0');
    const streams = [1, 2, 3].map(async () => {
      const s = anthropic(KEYS.ops).messages.stream({ model: 'slow', max_tokens: 64, messages: [{ role: 'user', content: PROMPT }] });
      return s.finalMessage();
    });
    await expect.poll(async () => Number(await text('#in-flight')), { timeout: 6_000, interval: 200 }).toBe(3);
    expect(Number(await text('#open-streams'))).toBe(3);
    expect(await page.locator('#doors tr[data-door="messages"] td.in-flight').innerText()).toBe('3');
    // Under load: the screenshot for the README.
    const artifacts = join(ROOT, '.tmp', 'artifacts');
    mkdirSync(artifacts, { recursive: true });
    const shot = join(artifacts, 'status-page.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(existsSync(shot)).toBe(true);
    if (process.env.UPDATE_STATUS_SCREENSHOT === '1') copyFileSync(shot, join(ROOT, 'docs', 'status-page.png'));
    for (const m of await Promise.all(streams)) expect(m.content[0]).toMatchObject({ type: 'text', text: ANSWER });
    await expect.poll(async () => Number(await text('#in-flight')), { timeout: 8_000, interval: 200 }).toBe(0);

    // The request list: every request above (7 + 3 + 4 + 3), newest first, with its metadata.
    await expect.poll(async () => page.locator('#recent tr').count(), { timeout: 6_000 }).toBe(17);
    const rows = await page.locator('#recent tr').allInnerTexts();
    expect(rows.filter((r) => r.includes('429 rate_limit') && r.includes('limited-key'))).toHaveLength(1);
    expect(rows.filter((r) => r.includes('slow-upstream') && r.includes('200 stream'))).toHaveLength(3);
    expect(rows.filter((r) => r.includes('flaky') && r.includes('2 attempts'))).toHaveLength(2); // failed there, then fell back
    expect(rows.some((r) => r.includes('responses') && r.includes('translation'))).toBe(true);
    expect(rows.some((r) => r.includes('$'))).toBe(true); // priced answers show their cost

    // Metadata only: no prompt, no answer, no key anywhere in the DOM (text or attributes).
    // (Expressions as strings: the tests compile without the DOM library.)
    const dom = String(await page.evaluate('document.documentElement.outerHTML + document.body.innerText'));
    for (const secret of ['PROMPT-MARKER', 'ANSWER-MARKER', KEYS.ops, KEYS.limited, KEYS.admin]) expect(dom).not.toContain(secret);
    expect(await page.locator('#login-key').inputValue()).toBe('');
    expect(consoleErrors).toEqual([]);
  }, 60_000);

  it('polls every 2 s while visible, not at all while the tab is hidden, and at once when it shows again', async () => {
    const polls: number[] = [];
    const onRequest = (r: { url(): string }) => {
      if (r.url().endsWith('/status.json')) polls.push(Date.now());
    };
    page.on('request', onRequest);
    try {
      await page.waitForTimeout(4_500);
      expect(polls.length).toBeGreaterThanOrEqual(1);
      expect(polls.length).toBeLessThanOrEqual(3);
      const setHidden = (hidden: boolean) =>
        page.evaluate(`Object.defineProperty(document, 'hidden', { configurable: true, get: () => ${hidden} }); document.dispatchEvent(new Event('visibilitychange'))`);
      await setHidden(true);
      const whileHidden = polls.length;
      await page.waitForTimeout(4_500);
      expect(polls.length).toBe(whileHidden);
      const shownAt = Date.now();
      await setHidden(false);
      await expect.poll(() => polls.length, { timeout: 1_500, interval: 50 }).toBe(whileHidden + 1);
      expect(polls.at(-1)! - shownAt).toBeLessThan(1_000);
    } finally {
      page.off('request', onRequest);
    }
    expect(consoleErrors).toEqual([]);
  }, 30_000);
});
