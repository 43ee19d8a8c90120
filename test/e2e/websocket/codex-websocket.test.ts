// Codex (the real binary) with `supports_websockets = true` and its default retries, offline with a throw-away
// CODEX_HOME, through the gateway to each scripted upstream protocol: with WebSocket mode off it falls back to
// HTTP at once on the 426; with it on, the whole run is one connection (the warm-up, then each turn sending only
// its new items with previous_response_id, store: false), and what the upstream receives is the whole
// conversation (Codex's developer messages included), rebuilt by the gateway from the connection.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS, startHarness, type Harness, type UpstreamProtocol } from '../../support/gateway-harness.js';
import { PROOF_FILE, PROOF_TEXT } from '../../support/clients/agent-loop-checks.js';
import { PROMPT } from '../../support/clients/agent-loop-scenario.js';
import { codexBinary, runCodex } from '../../support/clients/codex.js';
import { makeSandbox } from '../../support/clients/sandbox.js';
import { startSocketRecordingProxy, type SocketRecordingProxy } from '../../support/clients/socket-recording-proxy.js';
import { viewRequest } from '../../support/clients/wire.js';
import { agentLoopReply, type ReceivedRequest, type Reply } from '../../support/scripted-upstream/index.js';

const KEY = 'sk-switchyard-codex-ws-0001';
const binary = codexBinary();
const UPSTREAMS: UpstreamProtocol[] = ['messages', 'responses', 'chat', 'gemini'];

interface Gateway extends Harness {
  upgrades: string[];
  /** Tool calls the scripted upstream issued, by the request that got them (ids fixed so the round trip is checkable). */
  issued: Map<ReceivedRequest, { id: string; name: string }>;
}

async function gateway(websocket: boolean): Promise<Gateway> {
  const h = await startHarness({ apiKey: KEY, config: () => ({ auth: { keys: [{ name: 'codex', key: KEY }] }, metrics: { public: true }, websocket: { enabled: websocket } }) });
  const issued = new Map<ReceivedRequest, { id: string; name: string }>();
  h.upstream.setDefault((req): Reply => {
    const reply = agentLoopReply(req);
    if (reply.kind !== 'reply') return reply;
    const blocks = reply.blocks.map((b) => {
      if (b.type !== 'tool-call' || b.id) return b;
      const id = (req.protocol === 'messages' ? 'toolu_01' : 'call_') + randomBytes(12).toString('hex');
      issued.set(req, { id, name: b.name });
      return { ...b, id };
    });
    return { ...reply, blocks };
  });
  // Every upgrade that reaches the gateway (a second listener beside its own).
  const upgrades: string[] = [];
  h.gateway.app.server.on('upgrade', (req: { url?: string }) => upgrades.push(req.url ?? ''));
  return Object.assign(h, { upgrades, issued });
}

async function codexRun(baseUrl: string, model: string, label: string) {
  const sandbox = await makeSandbox(label);
  try {
    const t0 = performance.now();
    const result = await runCodex(binary.path!, { sandbox, baseUrl, apiKey: KEY, model, prompt: PROMPT, timeoutMs: 60_000, websockets: true });
    const ms = performance.now() - t0;
    let proof: string | undefined;
    try {
      proof = readFileSync(join(sandbox.work, PROOF_FILE), 'utf8');
    } catch {
      proof = undefined;
    }
    const output = result.run.stdout + '\n' + result.run.stderr;
    return { result, ms, proof, output };
  } finally {
    await sandbox.cleanup();
  }
}

/** switchyard_requests_total for the Responses door over `transport`, summed over its other labels. */
async function doorRequests(h: Harness, transport: string): Promise<number> {
  const text = await (await fetch(h.url + '/metrics')).text();
  let n = 0;
  for (const m of text.matchAll(/^switchyard_requests_total\{([^}]*)\} (\d+)$/gm)) {
    if (m[1]!.includes('front_door="responses"') && m[1]!.includes(`transport="${transport}"`)) n += Number(m[2]);
  }
  return n;
}

/** The text of a Responses input's developer/system messages. */
function developerTexts(input: unknown): string[] {
  if (!Array.isArray(input)) return [];
  const texts: string[] = [];
  for (const item of input as Array<Record<string, any>>) {
    if (item.type !== 'message' || (item.role !== 'developer' && item.role !== 'system')) continue;
    if (typeof item.content === 'string') texts.push(item.content);
    else for (const part of item.content ?? []) if (typeof part?.text === 'string') texts.push(part.text);
  }
  return texts;
}

describe.skipIf(!binary.path)('Codex with supports_websockets = true', () => {
  describe('WebSocket mode off', () => {
    let h: Gateway;
    beforeAll(async () => {
      h = await gateway(false);
    });
    afterAll(() => h.close());

    it('falls back to HTTP at once on the 426: no "Reconnecting", the task done over POST', async () => {
      const { result, ms, proof, output } = await codexRun(h.url, MODELS.messages.alias, 'codex-ws-off');
      expect(output).not.toMatch(/Reconnecting/i);
      expect(result.run.exitCode).toBe(0);
      // It did ask for the socket, once: the 426 ended that at once.
      expect(h.upgrades).toEqual(['/v1/responses']);
      expect(proof?.trim()).toBe(PROOF_TEXT);
      // The agent loop went over HTTP to the Messages upstream (two turns: the command, the answer).
      expect(h.upstream.received.filter((r) => r.protocol === 'messages').length).toBeGreaterThanOrEqual(2);
      expect(await doorRequests(h, 'http')).toBeGreaterThanOrEqual(2);
      // Five retries against a 404 took ~7 s; the fallback on 426 is immediate.
      expect(ms).toBeLessThan(6000);
    }, 90_000);
  });

  describe('WebSocket mode on (the default): one connection per run, through each upstream protocol', () => {
    let h: Gateway;
    let proxy: SocketRecordingProxy;
    beforeAll(async () => {
      h = await gateway(true);
      proxy = await startSocketRecordingProxy(h.url);
    });
    afterAll(async () => {
      await proxy.close();
      await h.close();
    });

    for (const upstream of UPSTREAMS) {
      it(`through a ${upstream} upstream: no "Reconnecting", no fall-back, the turns chained on one socket with store: false`, async () => {
        const socketsBefore = proxy.sockets.length;
        const receivedBefore = h.upstream.received.length;
        const wsBefore = await doorRequests(h, 'websocket');
        const { result, proof, output } = await codexRun(proxy.url, MODELS[upstream].alias, `codex-ws-${upstream}`);

        // What the user sees: the task done, nothing about reconnecting or falling back.
        expect(output).not.toMatch(/Reconnecting/i);
        // ("fallback model metadata" is about the unknown model name, not the transport.)
        expect(output).not.toMatch(/fall(?:ing)?[ -]?back (?:to )?(?:HTTP|SSE)|HTTP fallback/i);
        expect(result.run.exitCode, output.slice(-2000)).toBe(0);
        expect(proof?.trim()).toBe(PROOF_TEXT);
        expect(result.events.filter((e) => e.type === 'turn.failed' || e.type === 'error')).toEqual([]);
        expect(result.lastMessage).toContain(PROOF_TEXT);

        // Over the socket only: one connection for the run, no HTTP request for a response.
        expect(proxy.http.filter((r) => r.startsWith('POST /v1/responses'))).toEqual([]);
        const sockets = proxy.sockets.slice(socketsBefore);
        expect(sockets.map((s) => [s.url, s.status])).toEqual([['/v1/responses', 101]]);
        const frames = sockets[0]!.frames;

        // The client side: the warm-up, then each turn naming the response before it, all with store: false.
        const creates = frames.filter((f) => f.from === 'client').map((f) => f.event);
        expect(creates.every((e) => e.type === 'response.create' && e.store === false)).toBe(true);
        expect(creates[0].generate).toBe(false);
        expect(creates.length).toBeGreaterThanOrEqual(3);
        const completed = frames.filter((f) => f.from === 'gateway' && f.event.type === 'response.completed').map((f) => f.event.response.id as string);
        expect(frames.filter((f) => f.from === 'gateway' && (f.event.type === 'error' || f.event.type === 'response.failed'))).toEqual([]);
        expect(completed).toHaveLength(creates.length);
        for (let i = 1; i < creates.length; i++) expect(creates[i].previous_response_id).toBe(completed[i - 1]);
        // The last turn sent only what was new: the tool's output.
        expect(creates.at(-1).input.map((item: { type: string }) => item.type)).toEqual(['function_call_output']);
        // Each answer's events are numbered in order, from 0.
        let seq = -1;
        for (const f of frames.filter((x) => x.from === 'gateway')) {
          if (f.event.type === 'response.created') seq = -1;
          expect(f.event.sequence_number).toBe(seq + 1);
          seq = f.event.sequence_number;
        }

        // The upstream side: two generations in its own protocol, each with the whole conversation.
        const received = h.upstream.received.slice(receivedBefore).filter((r) => !/count_tokens|input_tokens|countTokens/.test(r.path));
        expect(received.map((r) => r.protocol)).toEqual([upstream, upstream]);
        const [first, second] = received as [ReceivedRequest, ReceivedRequest];
        const v1 = viewRequest(upstream, first.body, first.path);
        const v2 = viewRequest(upstream, second.body, second.path);
        expect([v1.model, v2.model]).toEqual([MODELS[upstream].upstream, MODELS[upstream].upstream]);
        // Codex's developer messages, from the warm-up and from turn 1, reach both requests (they are
        // part of the conversation, which only `instructions` are not).
        const developer = [...developerTexts(creates[0].input), ...developerTexts(creates[1].input)].map((t) => t.slice(0, 80));
        expect(developer.length).toBeGreaterThanOrEqual(2);
        for (const r of [first, second]) for (const t of developer) expect(JSON.stringify(r.body)).toContain(JSON.stringify(t).slice(1, -1));
        // Turn 2 carries the user's prompt, the call under the upstream's own id, and its output.
        const call = h.issued.get(first)!;
        expect(call).toBeDefined();
        expect(JSON.stringify(second.body)).toContain('Use your shell tool to write ' + PROOF_TEXT);
        expect(v2.historyCalls).toEqual([{ id: call.id, name: call.name }]);
        expect(v2.toolResults.map((r) => r.id)).toEqual([call.id]);
        expect(v2.toolResults[0]!.text).toContain(PROOF_TEXT);
        expect(JSON.stringify(second.body)).not.toContain('Tool call was not completed');
        if (upstream === 'responses') {
          // Nothing was stored upstream either: the history goes inline, not as an id.
          expect(second.body.previous_response_id).toBeUndefined();
          expect(second.body.store).toBe(false);
        }

        // Counted as WebSocket traffic on the door.
        expect((await doorRequests(h, 'websocket')) - wsBefore).toBe(2);
        expect(await doorRequests(h, 'http')).toBe(0);
      }, 90_000);
    }
  });
});
