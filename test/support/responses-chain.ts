// Conversations through the Responses door with plain fetch (many at once, streamed or not): each turn
// continues the previous answer with `previous_response_id`. The scripted upstream echoes the newest
// user marker it received, so a test can read from the upstream's log what history each turn carried.
import type { ReceivedRequest, Reply } from './scripted-upstream/index.js';

export interface TurnResult {
  status: number;
  /** The answer's id (the terminal event's response id when streamed). */
  id?: string;
  /** The answer's text, or the error body. */
  text: string;
}

/** `[c3t2]`: chain 3, turn 2. */
export const marker = (chain: string | number, turn: number) => `[c${chain}t${turn}]`;

/** The upstream's default for these tests: echo the newest user marker of the request. */
export function echoMarkers(req: ReceivedRequest): Reply {
  const found = JSON.stringify(req.body).match(/\[c[\w-]+t\d+\]/g) ?? [];
  return { kind: 'reply', blocks: [{ type: 'text', text: `(ok ${found[found.length - 1] ?? 'none'})` }], usage: { input: 10, output: 3 } };
}

export async function responsesTurn(
  url: string,
  body: Record<string, unknown>,
  options: { stream?: boolean; apiKey?: string; signal?: AbortSignal } = {},
): Promise<TurnResult> {
  const res = await fetch(url + '/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${options.apiKey ?? 'caller-key'}` },
    body: JSON.stringify({ ...body, stream: options.stream === true }),
    signal: options.signal ?? AbortSignal.timeout(15_000),
  });
  const raw = await res.text();
  if (res.status !== 200) return { status: res.status, text: raw };
  if (!options.stream) {
    const json = JSON.parse(raw) as { id: string; output: { type: string; content?: { text?: string }[] }[] };
    return { status: 200, id: json.id, text: outputText(json.output) };
  }
  let terminal: { id: string; status: string; output: { type: string; content?: { text?: string }[] }[] } | undefined;
  for (const block of raw.split('\n\n')) {
    const data = block.split('\n').find((l) => l.startsWith('data: '));
    if (!data) continue;
    const ev = JSON.parse(data.slice(6)) as { type: string; response?: typeof terminal };
    if (ev.type === 'response.completed' || ev.type === 'response.failed' || ev.type === 'response.incomplete') terminal = ev.response;
  }
  if (!terminal || terminal.status !== 'completed') return { status: 599, text: raw.slice(-500) };
  return { status: 200, id: terminal.id, text: outputText(terminal.output) };
}

function outputText(output: { type: string; content?: { text?: string }[] }[]): string {
  return output
    .filter((o) => o.type === 'message')
    .flatMap((o) => o.content ?? [])
    .map((c) => c.text ?? '')
    .join('');
}

/** Runs `n` tasks with at most `width` in flight; resolves with every result in order. */
export async function pool<T>(n: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      out[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, n) }, worker));
  return out;
}
