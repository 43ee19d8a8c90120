// The status page's keys console in a real browser (Debian's chromium, driven by playwright-core)
// against a gateway process (src/main.ts) with the demo provider: a caller key sees neither the page
// nor the console and the admin API refuses it; an admin creates a team and a key in the console and
// sees the secret once (never stored, gone from the DOM once dismissed); that secret is served by
// /v1/responses through the official SDK and its limits used and spend show up in the console;
// disable, enable, rotate and revoke take effect on the very next request; caller-chosen text (a
// hostile name, hostile metadata) renders as text; the page's Content-Security-Policy is intact.
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_HEADERS } from '../../../src/status/page-files.js';
import { startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.js';
import { requireTool, requireTools } from '../../support/required-tools.js';

const ARTIFACTS = join(resolve(dirname(fileURLToPath(import.meta.url)), '../../..'), '.tmp', 'artifacts');
requireTools('chromium');
const CHROMIUM = requireTool('chromium');
const KEYS = { admin: 'k-admin-console-6d1f0a', caller: 'k-caller-console-2b9e44' };
const HOSTILE = '<img src=x onerror=window.__pwned=1>';
const SECRET_FORMAT = /^sk-sy-rt-[A-Za-z0-9_-]{43}$/;

let gateway: GatewayProcess;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];
/** Every secret the console showed, to search the DOM and storage for afterwards. */
const shown: string[] = [];

beforeAll(async () => {
  gateway = await startGatewayProcess({
    status: { enabled: true },
    auth: {
      keys: [{ name: 'caller', key: KEYS.caller }],
      admin_keys: [{ name: 'ops', key: KEYS.admin }],
    },
    providers: { demo: { protocol: 'demo' } },
    // A price, so the spend the console shows is not zero.
    models: { demo: { provider: 'demo', price: { input: 3000, output: 15000 } } },
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push('pageerror: ' + e.message));
  // Rotate, revoke and delete ask first.
  page.on('dialog', (d) => void d.accept());
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.stop();
});

const ask = (key: string) => new OpenAI({ baseURL: gateway.url + '/v1', apiKey: key, maxRetries: 0, timeout: 10_000 }).responses.create({ model: 'demo', input: 'hello', store: false });
const refusal = (key: string) => ask(key).then(() => 'served', (e: { status?: number; message?: string }) => `${e.status} ${e.message}`);
const keyRow = (name: string) => page.locator(`#rt-keys tr[data-name="${name}"]`);
const teamRow = (name: string) => page.locator(`#rt-teams tr[data-name="${name}"]`);

/** The secret box's value after a create or rotate; then dismissed, as a person would. */
async function takeSecret(): Promise<string> {
  await page.locator('#secret-box').waitFor({ state: 'visible', timeout: 10_000 });
  const secret = await page.locator('#secret-value').inputValue();
  expect(secret).toMatch(SECRET_FORMAT);
  shown.push(secret);
  // Never kept: not in this tab's storage (only the admin key is), not after the box is dismissed.
  const stored = String(await page.evaluate('JSON.stringify([Object.entries(sessionStorage), Object.entries(localStorage)])'));
  expect(stored).not.toContain(secret);
  await page.click('#secret-done');
  expect(await page.locator('#secret-box').isHidden()).toBe(true);
  expect(await page.locator('#secret-value').inputValue()).toBe('');
  return secret;
}

/** Elements carrying the `hidden` attribute that some style rule still displays. */
const hiddenButShown = (p: Page) =>
  p.evaluate(`[...document.querySelectorAll('[hidden]')].filter((e) => getComputedStyle(e).display !== 'none').map((e) => e.id || e.tagName)`);

async function signIn(key: string): Promise<void> {
  await page.goto(gateway.url + '/status');
  await page.locator('#login-form').waitFor({ state: 'visible' });
  await page.fill('#login-key', key);
  await page.click('#login-form button[type=submit]');
}

describe('the keys console in chromium', () => {
  it('keeps the page\'s Content-Security-Policy on the page and on the console\'s script', async () => {
    for (const path of ['/status', '/status/status.js', '/status/keys-console.js', '/status/status.css']) {
      const res = await fetch(gateway.url + path);
      expect(res.status, path).toBe(200);
      for (const [name, value] of Object.entries(PAGE_HEADERS)) expect(res.headers.get(name), `${path} ${name}`).toBe(value);
    }
    expect(PAGE_HEADERS['content-security-policy']).toContain("script-src 'self'");
    expect(PAGE_HEADERS['content-security-policy']).toContain("connect-src 'self'");
    const html = await (await fetch(gateway.url + '/status')).text();
    expect(html).toContain('<meta name="switchyard-admin" content="admin/">');
    expect(html).toContain('src="status/keys-console.js"');
  });

  it('shows a caller key neither the page nor the console, and the admin API refuses it', async () => {
    const adminCalls: string[] = [];
    const onRequest = (r: { url(): string }) => {
      if (r.url().includes('/admin/')) adminCalls.push(r.url());
    };
    page.on('request', onRequest);
    try {
      await signIn(KEYS.caller);
      await page.locator('#login-error').waitFor({ state: 'visible' });
      expect(await page.locator('#login-error').innerText()).toMatch(/admin/i);
      expect(await page.locator('#dashboard').isHidden()).toBe(true);
      expect(await page.locator('#console').isHidden()).toBe(true);
      expect(await page.locator('#rt-keys tr').count()).toBe(0);
      expect(adminCalls).toEqual([]);
      // Asked directly from the page with that key, the admin API answers 403.
      const status = await page.evaluate(`fetch('admin/keys', { headers: { 'x-api-key': ${JSON.stringify(KEYS.caller)} } }).then((r) => r.status)`);
      expect(status).toBe(403);
    } finally {
      page.off('request', onRequest);
    }
    // The browser logs each refused fetch; nothing else may appear.
    expect(consoleErrors.every((e) => /40[13]/.test(e))).toBe(true);
    consoleErrors.length = 0;
  });

  it('creates a team and a key; the secret is shown once and is served by a generation route', async () => {
    await signIn(KEYS.admin);
    await page.locator('#console-body').waitFor({ state: 'visible', timeout: 10_000 });
    expect(await page.locator('#rt-keys').innerText()).toContain('No runtime keys yet.');

    await page.click('#team-create summary');
    await page.fill('#team-form input[name=name]', 'platform-rt');
    await page.fill('#team-form input[name=budget_usd]', '20');
    await page.click('#team-form button[type=submit]');
    await teamRow('platform-rt').waitFor({ timeout: 10_000 });

    await page.click('#key-create summary');
    await page.fill('#key-form input[name=name]', 'ci-console');
    await page.fill('#key-form input[name=team]', 'platform-rt');
    await page.fill('#key-form input[name=rpm]', '5');
    await page.fill('#key-form input[name=budget_usd]', '5');
    await page.fill('#key-form input[name=metadata]', JSON.stringify({ owner: HOSTILE }));
    await page.click('#key-form button[type=submit]');
    const secret = await takeSecret();
    await keyRow('ci-console').waitFor({ timeout: 10_000 });
    const row = await keyRow('ci-console').innerText();
    expect(row).toContain('platform-rt');
    expect(row).toContain(secret.slice(0, 16) + '…'); // the public prefix, never the rest
    expect(row).not.toContain(secret);
    // The form was cleared for the next key.
    expect(await page.locator('#key-form input[name=name]').inputValue()).toBe('');

    // The secret works against the demo provider, through the official SDK.
    const answer = await ask(secret);
    expect(answer.status).toBe('completed');
    expect(answer.output_text.length).toBeGreaterThan(0);
    // Its limits used and its spend, from the status snapshot the page polls.
    const rpm = keyRow('ci-console').locator('[data-limit="rpm"] .value');
    await expect.poll(async () => ((await rpm.count()) > 0 ? rpm.innerText() : ''), { timeout: 10_000 }).toBe('1 / 5');
    const budget = keyRow('ci-console').locator('[data-limit="budget m' + new Date().toISOString().slice(0, 7) + '"] .value');
    await expect.poll(async () => ((await budget.count()) > 0 ? budget.innerText() : ''), { timeout: 10_000 }).toMatch(/^\$\d+\.\d+ \/ \$5\.00$/);
    expect(await budget.innerText()).not.toMatch(/^\$0\.00 /);
    // The team's row: its one key and its spend against its budget.
    const team = teamRow('platform-rt');
    await expect.poll(async () => team.locator('td.num').innerText(), { timeout: 10_000 }).toBe('1');
    await expect.poll(async () => team.locator('[data-limit^="budget"] .value').innerText(), { timeout: 10_000 }).toMatch(/ \/ \$20\.00$/);
  }, 60_000);

  it('hides what is hidden: once signed in, the console asks for no key (no rule overrides `hidden`)', async () => {
    await page.locator('#console-body').waitFor({ state: 'visible' });
    expect(await page.locator('#console-login').isHidden()).toBe(true);
    expect(await page.locator('#console-login-key').isHidden()).toBe(true);
    expect(await hiddenButShown(page)).toEqual([]);
  });

  it('renders caller-chosen text as text: hostile metadata, a hostile name refused with the API\'s message', async () => {
    const metadata = keyRow('ci-console').locator('td.metadata');
    expect(await metadata.innerText()).toBe('owner: ' + HOSTILE);
    await page.fill('#key-form input[name=name]', HOSTILE);
    await page.click('#key-form button[type=submit]');
    await page.locator('#console-error').waitFor({ state: 'visible', timeout: 10_000 });
    expect(await page.locator('#console-error').innerText()).toMatch(/^name: /);
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.evaluate('window.__pwned === undefined')).toBe(true);
    expect(await page.locator('#rt-keys tr').count()).toBe(1);
    await page.fill('#key-form input[name=name]', '');
  });

  it('disables and enables, rotates and revokes; each takes effect on the next request', async () => {
    let secret = shown.at(-1)!;
    await keyRow('ci-console').locator('button[data-action=disable]').click();
    await expect.poll(async () => keyRow('ci-console').locator('.badge').innerText(), { timeout: 10_000 }).toBe('disabled');
    expect(await refusal(secret)).toMatch(/^401 .*API key disabled/);
    await keyRow('ci-console').locator('button[data-action=enable]').click();
    await expect.poll(async () => keyRow('ci-console').locator('.badge').innerText(), { timeout: 10_000 }).toBe('active');
    expect(await refusal(secret)).toBe('served');

    // Rotate without grace: a new secret, shown once; the old one refused at once.
    const old = secret;
    await keyRow('ci-console').locator('button[data-action=rotate]').click();
    secret = await takeSecret();
    expect(secret).not.toBe(old);
    expect(await refusal(old)).toMatch(/^401 /);
    expect(await refusal(secret)).toBe('served');
    await expect.poll(async () => keyRow('ci-console').innerText(), { timeout: 10_000 }).toContain(secret.slice(0, 16) + '…');

    // Rotate with a grace period: both secrets served meanwhile, the row says until when.
    await page.fill('#rotate-grace', '600');
    await keyRow('ci-console').locator('button[data-action=rotate]').click();
    const graced = secret;
    secret = await takeSecret();
    expect(await refusal(graced)).toBe('served');
    expect(await refusal(secret)).toBe('served');
    await expect.poll(async () => keyRow('ci-console').innerText(), { timeout: 10_000 }).toContain('old secret ' + graced.slice(0, 16) + '… valid until');
    await page.fill('#rotate-grace', '0');

    // Revoke: the row goes and both secrets are refused.
    await keyRow('ci-console').locator('button[data-action=revoke]').click();
    await expect.poll(async () => keyRow('ci-console').count(), { timeout: 10_000 }).toBe(0);
    expect(await refusal(secret)).toMatch(/^401 /);
    expect(await refusal(graced)).toMatch(/^401 /);

    // The team, now without keys, can be disabled and deleted.
    await teamRow('platform-rt').locator('button[data-action=disable]').click();
    await expect.poll(async () => teamRow('platform-rt').locator('.badge').innerText(), { timeout: 10_000 }).toBe('disabled');
    await teamRow('platform-rt').locator('button[data-action=delete]').click();
    await expect.poll(async () => teamRow('platform-rt').count(), { timeout: 10_000 }).toBe(0);

    // The admin API agrees with what the console showed.
    const keys = await (await fetch(gateway.url + '/admin/keys', { headers: { 'x-api-key': KEYS.admin } })).json();
    expect(keys).toEqual({ data: [] });
    const audit = (await (await fetch(gateway.url + '/admin/audit', { headers: { 'x-api-key': KEYS.admin } })).json()) as { data: { action: string; admin: string }[] };
    expect(audit.data.map((e) => e.action).reverse()).toEqual(['team.create', 'key.create', 'key.update', 'key.update', 'key.rotate', 'key.rotate', 'key.revoke', 'team.update', 'team.delete']);
    expect(audit.data.every((e) => e.admin === 'ops')).toBe(true);
  }, 60_000);

  it('signing out clears the console; no secret is anywhere in the DOM or the tab\'s storage', async () => {
    const dom = String(await page.evaluate('document.documentElement.outerHTML + document.body.innerText'));
    expect(shown.length).toBe(3);
    for (const secret of shown) expect(dom).not.toContain(secret);
    expect(dom).not.toContain(KEYS.admin);
    await page.click('#logout');
    expect(await page.locator('#console').isHidden()).toBe(true);
    expect(await page.locator('#rt-keys tr').count()).toBe(0);
    expect(await page.evaluate('sessionStorage.length + localStorage.length')).toBe(0);
    // The one refused create (400) is the only console error the browser logged.
    expect(consoleErrors.every((e) => /400/.test(e)), consoleErrors.join('\n')).toBe(true);
  });
});

// A second gateway whose status data is public: the page shows it to anyone and the console asks for
// an admin key itself. Also where the console is watched across polls and its usage cell measured.
describe('the keys console on a public status page (status.public: true)', () => {
  const ADMIN = 'k-admin-public-3c7a91';
  let pub: GatewayProcess;
  let tab: Page;
  const errors: string[] = [];
  const statusPolls: number[] = [];
  const admin = (method: string, path: string, body?: unknown) =>
    fetch(pub.url + '/admin/' + path, {
      method,
      headers: { 'x-api-key': ADMIN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const row = (name: string) => tab.locator(`#rt-keys tr[data-name="${name}"]`);
  /** Resolves once the page has fetched status.json `n` more times (and rendered what came back). */
  async function polls(n: number): Promise<void> {
    const target = statusPolls.length + n;
    await expect.poll(() => statusPolls.length, { timeout: 3_000 * n + 2_000, interval: 100 }).toBeGreaterThanOrEqual(target);
    await tab.waitForTimeout(300);
  }

  beforeAll(async () => {
    pub = await startGatewayProcess({
      status: { enabled: true, public: true },
      auth: { keys: [{ name: 'caller', key: KEYS.caller }], admin_keys: [{ name: 'ops', key: ADMIN }] },
      providers: { demo: { protocol: 'demo' } },
      models: { demo: { provider: 'demo', price: { input: 3000, output: 15000 } } },
    });
    tab = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
    tab.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    tab.on('pageerror', (e) => errors.push('pageerror: ' + e.message));
    tab.on('request', (r) => {
      if (r.url().endsWith('/status.json')) statusPolls.push(Date.now());
    });
    tab.on('dialog', (d) => void d.accept());
  }, 90_000);

  afterAll(async () => {
    await tab?.close();
    await pub?.stop();
  });

  it('signing in for the console keeps the public data in view and adds the console', async () => {
    await tab.goto(pub.url + '/status');
    await tab.locator('#dashboard').waitFor({ state: 'visible', timeout: 10_000 });
    await tab.locator('#console-login').waitFor({ state: 'visible', timeout: 10_000 });
    expect(await tab.locator('#login').isHidden()).toBe(true);
    expect(await tab.locator('#console-body').isHidden()).toBe(true);

    // A caller key is refused by the console; the public data stays.
    await tab.fill('#console-login-key', KEYS.caller);
    await tab.click('#console-login button[type=submit]');
    await tab.locator('#console-error').waitFor({ state: 'visible', timeout: 10_000 });
    expect(await tab.locator('#console-error').innerText()).toMatch(/cannot manage keys/);
    await polls(2);
    expect(await tab.locator('#dashboard').isVisible()).toBe(true);
    expect(await tab.locator('#login').isHidden()).toBe(true);
    expect(await tab.locator('#console-login').isVisible()).toBe(true);

    await tab.fill('#console-login-key', ADMIN);
    await tab.click('#console-login button[type=submit]');
    await tab.locator('#console-body').waitFor({ state: 'visible', timeout: 10_000 });
    // Several polls later: still the dashboard and the console, no login view, no key field.
    await polls(2);
    expect(await tab.locator('#dashboard').isVisible()).toBe(true);
    expect(await tab.locator('#login').isHidden()).toBe(true);
    expect(await tab.locator('#console-body').isVisible()).toBe(true);
    expect(await tab.locator('#console-login').isHidden()).toBe(true);
    expect(await tab.locator('#routes tr[data-alias="demo"]').count()).toBe(1);
    expect(await hiddenButShown(tab)).toEqual([]);
    // A reload keeps the key for this tab: the same view again, never the login.
    await tab.reload();
    await tab.locator('#console-body').waitFor({ state: 'visible', timeout: 10_000 });
    expect(await tab.locator('#dashboard').isVisible()).toBe(true);
    expect(await tab.locator('#login').isHidden()).toBe(true);
    // Creating a key from here works with the key the console signed in with.
    expect((await admin('POST', 'teams', { name: 'pub-team', budget: { usd: 40, period: 'month' } })).status).toBe(201);
    await tab.locator('#rt-teams tr[data-name="pub-team"]').waitFor({ timeout: 15_000 });
  }, 60_000);

  it('keeps each row and its buttons across polls, so a click that spans a poll still lands', async () => {
    const created = await admin('POST', 'keys', { name: 'poll-key', team: 'pub-team', limits: { rpm: 100 } });
    expect(created.status).toBe(201);
    const secret = ((await created.json()) as { key: string }).key;
    await row('poll-key').waitFor({ timeout: 15_000 });
    await tab.evaluate(`window.__rowButton = document.querySelector('#rt-keys tr[data-name="poll-key"] button[data-action="disable"]')`);
    // Its usage changes (one request), so the poll that shows it has something to redraw.
    const ask = new OpenAI({ baseURL: pub.url + '/v1', apiKey: secret, maxRetries: 0, timeout: 10_000 });
    await ask.responses.create({ model: 'demo', input: 'hello', store: false });
    const rpm = row('poll-key').locator('[data-limit="rpm"] .value');
    await expect.poll(async () => ((await rpm.count()) > 0 ? rpm.innerText() : ''), { timeout: 10_000 }).toBe('1 / 100');
    await polls(2);
    expect(await tab.evaluate(`window.__rowButton.isConnected && window.__rowButton === document.querySelector('#rt-keys tr[data-name="poll-key"] button[data-action="disable"]')`)).toBe(true);

    // A press held across at least one poll (2 s): the button under the pointer must be the one released.
    await row('poll-key').locator('button[data-action=disable]').click({ delay: 2_600 });
    await expect.poll(async () => row('poll-key').locator('.badge').innerText(), { timeout: 10_000 }).toBe('disabled');
    const listed = (await (await admin('GET', 'keys')).json()) as { data: { name: string; disabled: boolean }[] };
    expect(listed.data.find((k) => k.name === 'poll-key')?.disabled).toBe(true);
    await row('poll-key').locator('button[data-action=enable]').click({ delay: 2_600 });
    await expect.poll(async () => row('poll-key').locator('.badge').innerText(), { timeout: 10_000 }).toBe('active');
  }, 60_000);

  it('lays out the usage cell readably: each meter\'s label and value inside it, the table inside its card', async () => {
    const created = await admin('POST', 'keys', {
      name: 'busy-key-with-a-long-name',
      team: 'pub-team',
      limits: { rpm: 1000, tpm: 2000000, concurrency: 50 },
      budget: { usd: 1250, period: 'month' },
    });
    expect(created.status).toBe(201);
    const secret = ((await created.json()) as { key: string }).key;
    await new OpenAI({ baseURL: pub.url + '/v1', apiKey: secret, maxRetries: 0, timeout: 10_000 }).responses.create({ model: 'demo', input: 'hello', store: false });
    const cell = tab.locator('#rt-keys tr[data-name="busy-key-with-a-long-name"] td.meters');
    await expect.poll(async () => cell.locator('[data-limit]').count(), { timeout: 15_000 }).toBe(4);
    await expect.poll(async () => cell.locator('[data-limit^="budget"] .value').innerText(), { timeout: 10_000 }).not.toMatch(/^\$0\.00 /);
    for (const width of [1440, 1024]) {
      await tab.setViewportSize({ width, height: 1000 });
      await polls(1);
      const problems = await tab.evaluate(`(() => {
        const out = [];
        const box = (e) => e.getBoundingClientRect();
        const inside = (a, b) => a.left >= b.left - 0.5 && a.right <= b.right + 0.5 && a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5;
        for (const td of document.querySelectorAll('#rt-keys td.meters, #rt-teams td.meters')) {
          for (const m of td.querySelectorAll('[data-limit]')) {
            const name = m.dataset.limit;
            const [label, value] = m.querySelectorAll('.cap span');
            if (!inside(box(m), box(td))) out.push(name + ': meter outside its cell');
            if (!inside(box(label), box(m))) out.push(name + ': label outside its meter');
            if (!inside(box(value), box(m))) out.push(name + ': value outside its meter');
            const l = box(label), v = box(value);
            if (l.right > v.left + 0.5 && l.bottom > v.top + 0.5 && v.bottom > l.top + 0.5) out.push(name + ': label and value overlap');
            if (box(m.querySelector('.track')).width < 60) out.push(name + ': bar too narrow');
          }
        }
        for (const id of ['rt-keys-table', 'rt-teams-table']) {
          const t = document.getElementById(id);
          const card = document.getElementById('console');
          if (box(t).right > box(card).right + 0.5) out.push(id + ': wider than the card');
        }
        return out;
      })()`);
      // For a person to look at: the console as laid out (not compared).
      mkdirSync(ARTIFACTS, { recursive: true });
      await tab.locator('#console').screenshot({ path: join(ARTIFACTS, `keys-console-${width}.png`) });
      expect(problems, `at ${width} px: ${JSON.stringify(problems)}`).toEqual([]);
    }
    await tab.setViewportSize({ width: 1440, height: 1000 });
    expect(errors.every((e) => /40[13]/.test(e)), errors.join('\n')).toBe(true);
  }, 60_000);
});
