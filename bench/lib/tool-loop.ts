// An agent's tool loop on the Responses door, as Codex runs it: the first turn sends the task, every
// later turn only the previous call's output with `previous_response_id`; the model (the fake upstream's
// `…-tool-loop` model) answers every turn with the next tool call. Driven over one WebSocket
// (`response.create` client events, one text frame per event back) or over HTTP (`POST /v1/responses`
// with `stream: true` on one keep-alive connection), with the same bodies, so the two cost the same
// upstream work and differ only by the transport. Also: idle sockets held open, for memory per socket.
import net from 'node:net';
import { Pool } from 'undici';
import WebSocket from 'ws';
import { SYSTEM_PROMPT, USER_TURN_2 } from '../corpus.js';
import { TOOL_NAME } from '../upstream-replies.js';

export type Transport = 'websocket' | 'http';

/** The tool a coding agent declares (Codex's shell tool, in the Responses function shape). */
const TOOLS = [
  {
    type: 'function',
    name: TOOL_NAME,
    description: 'Runs a shell command and returns its output.',
    strict: false,
    parameters: {
      type: 'object',
      properties: { command: { type: 'array', items: { type: 'string' } }, workdir: { type: 'string' }, timeout_ms: { type: 'number' } },
      required: ['command'],
      additionalProperties: false,
    },
  },
];

/** What one shell call returns: ≈1.5 KB of a search and a file, as an agent's tool outputs are. */
export const TOOL_OUTPUT = JSON.stringify({
  output: Array.from({ length: 24 }, (_, i) => `src/router/retry.ts:${i + 10}:  const retry_budget_${i} = attempts.remaining(budget, ${i * 25}); // line ${i}`).join('\n'),
  metadata: { exit_code: 0, duration_seconds: 0.1 },
});

/** The previous turn's answer: what the next turn continues from. */
export interface TurnResult {
  responseId: string;
  callId: string;
}

/** The create body of turn `i` (no `stream`: the HTTP driver adds it, a socket's create is always streamed). */
export function turnBody(model: string, previous: TurnResult | undefined): Record<string, unknown> {
  const common = { model, instructions: SYSTEM_PROMPT, tools: TOOLS, tool_choice: 'auto', parallel_tool_calls: false, max_output_tokens: 1024 };
  if (!previous) return { ...common, input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: USER_TURN_2 }] }] };
  return { ...common, previous_response_id: previous.responseId, input: [{ type: 'function_call_output', call_id: previous.callId, output: TOOL_OUTPUT }] };
}

/** The terminal event's response: its id and the tool call it asks for; anything else is an error. */
export function readCompleted(eventJson: string): TurnResult {
  const event = JSON.parse(eventJson) as { type?: string; response?: { id?: string; output?: { type?: string; call_id?: string }[] }; error?: unknown };
  if (event.type !== 'response.completed') throw new Error(`turn ended with ${event.type}: ${eventJson.slice(0, 300)}`);
  const call = event.response?.output?.find((o) => o.type === 'function_call');
  if (!event.response?.id || !call?.call_id) throw new Error(`turn completed without a function call: ${eventJson.slice(0, 300)}`);
  return { responseId: event.response.id, callId: call.call_id };
}

export interface LoopResult {
  turns: number;
  /** Wall time of the whole loop (the socket's upgrade included), ms. */
  ms: number;
  /** Events the client received over all turns. */
  events: number;
  last: TurnResult;
}

const TERMINAL = ['"response.completed"', '"response.failed"', '"response.incomplete"', '"error"'];

function isTerminal(text: string): boolean {
  // Only the event's own type field decides; a cheap check first (deltas carry none of these words).
  const head = text.slice(0, 48);
  return TERMINAL.some((t) => head.includes(t));
}

/** One loop of `turns` turns over one new WebSocket. */
export async function loopOverSocket(origin: string, model: string, turns: number, timeoutMs = 30_000): Promise<LoopResult> {
  const t0 = performance.now();
  const ws = new WebSocket(origin.replace(/^http/, 'ws') + '/v1/responses', {
    headers: { authorization: 'Bearer sk-bench', 'openai-beta': 'responses_websockets=2026-02-06' },
    perMessageDeflate: false,
  });
  const timer = setTimeout(() => ws.terminate(), timeoutMs);
  try {
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade answered ${res.statusCode}`)));
    });
    let events = 0;
    let waiter: { resolve: (r: TurnResult) => void; reject: (e: Error) => void } | undefined;
    ws.on('message', (data: Buffer) => {
      events++;
      const text = data.toString('utf8');
      if (!isTerminal(text) || !waiter) return;
      const w = waiter;
      waiter = undefined;
      try {
        w.resolve(readCompleted(text));
      } catch (err) {
        w.reject(err as Error);
      }
    });
    ws.on('close', (code) => waiter?.reject(new Error(`socket closed (${code}) mid-turn`)));
    let last: TurnResult | undefined;
    for (let i = 0; i < turns; i++) {
      const answer = new Promise<TurnResult>((resolve, reject) => (waiter = { resolve, reject }));
      ws.send(JSON.stringify({ type: 'response.create', ...turnBody(model, last) }));
      last = await answer;
    }
    return { turns, ms: performance.now() - t0, events, last: last! };
  } finally {
    clearTimeout(timer);
    ws.close(1000);
  }
}

/** One loop of `turns` turns over HTTP, each a streamed POST on `pool` (one keep-alive connection). */
export async function loopOverHttp(pool: Pool, model: string, turns: number, timeoutMs = 30_000): Promise<LoopResult> {
  const t0 = performance.now();
  let events = 0;
  let last: TurnResult | undefined;
  for (let i = 0; i < turns; i++) {
    const res = await pool.request({
      method: 'POST',
      path: '/v1/responses',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: 'Bearer sk-bench' },
      body: JSON.stringify({ ...turnBody(model, last), stream: true }),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`turn ${i + 1} answered ${res.statusCode}: ${text.slice(0, 300)}`);
    let at = text.indexOf('data: ');
    let lastData = '';
    while (at !== -1) {
      events++;
      const end = text.indexOf('\n', at);
      lastData = text.slice(at + 6, end === -1 ? undefined : end);
      at = text.indexOf('\ndata: ', at + 1);
      if (at !== -1) at++;
    }
    last = readCompleted(lastData);
  }
  return { turns, ms: performance.now() - t0, events, last: last! };
}

/** The loop over either transport (HTTP on `pool`). */
export function runLoop(transport: Transport, origin: string, pool: Pool, model: string, turns: number): Promise<LoopResult> {
  return transport === 'websocket' ? loopOverSocket(origin, model, turns) : loopOverHttp(pool, model, turns);
}

/** `n` WebSockets opened (upgrade done), then left idle; `closeAll` closes them and waits (bounded). */
export async function openIdleSockets(origin: string, n: number, batch = 50): Promise<{ sockets: WebSocket[]; closeAll: () => Promise<void> }> {
  const sockets: WebSocket[] = [];
  const closeAll = async () => {
    await Promise.all(
      sockets.map(
        (ws) =>
          new Promise<void>((resolve) => {
            if (ws.readyState === WebSocket.CLOSED) return resolve();
            const timer = setTimeout(() => {
              ws.terminate();
              resolve();
            }, 5_000);
            ws.once('close', () => {
              clearTimeout(timer);
              resolve();
            });
            ws.close(1000);
          }),
      ),
    );
  };
  try {
    for (let i = 0; i < n; i += batch) {
      const opened = Array.from({ length: Math.min(batch, n - i) }, () => {
        const ws = new WebSocket(origin.replace(/^http/, 'ws') + '/v1/responses', { headers: { authorization: 'Bearer sk-bench' }, perMessageDeflate: false, handshakeTimeout: 30_000 });
        sockets.push(ws);
        return new Promise<void>((resolve, reject) => {
          ws.once('open', () => resolve());
          ws.once('error', reject);
        });
      });
      await Promise.all(opened);
    }
  } catch (err) {
    await closeAll();
    throw err;
  }
  return { sockets, closeAll };
}

/** The HTTP baseline of the same: `n` keep-alive connections, each after one `GET /healthz`, left idle. */
export async function openIdleHttpConnections(origin: string, n: number, batch = 50): Promise<{ closeAll: () => Promise<void> }> {
  const { port } = new URL(origin);
  const sockets: net.Socket[] = [];
  const closeAll = async () => {
    await Promise.all(sockets.map((s) => new Promise<void>((resolve) => (s.destroyed ? resolve() : (s.once('close', () => resolve()), s.destroy())))));
  };
  const request = `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n\r\n`;
  try {
    for (let i = 0; i < n; i += batch) {
      await Promise.all(
        Array.from({ length: Math.min(batch, n - i) }, () => {
          const s = net.connect(Number(port), '127.0.0.1');
          sockets.push(s);
          return new Promise<void>((resolve, reject) => {
            let seen = '';
            s.setEncoding('latin1');
            s.once('connect', () => s.write(request));
            s.on('data', (d: string) => {
              seen += d;
              // The health answer is small and has a length: its end is the end of the body.
              if (/\r\n\r\n\{[^]*\}$/.test(seen)) resolve();
            });
            s.once('error', reject);
            s.once('close', () => reject(new Error('connection closed before the health answer')));
          });
        }),
      );
    }
  } catch (err) {
    await closeAll();
    throw err;
  }
  return { closeAll };
}
