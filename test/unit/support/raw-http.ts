// Raw HTTP helpers for checking exact wire frames (what the SDKs would hide).

export interface SseEvent {
  event: string | null;
  data: string;
}

/** Parses an SSE body into events; `event` is null when the frame had no `event:` line. */
export function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      let event: string | null = null;
      const data: string[] = [];
      for (const line of frame.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
      }
      return { event, data: data.join('\n') };
    });
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** POSTs a streamed request and returns its parsed events. */
export async function postSse(url: string, body: unknown, headers: Record<string, string> = {}): Promise<SseEvent[]> {
  const res = await postJson(url, body, headers);
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) throw new Error(`not SSE: ${res.status} ${await res.text()}`);
  return parseSse(await res.text());
}
