// Reading a request body (possibly compressed) and recording it.
import type { IncomingMessage } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  switch (req.headers['content-encoding']) {
    case 'gzip':
      return gunzipSync(raw);
    case 'deflate':
      return inflateSync(raw);
    case 'br':
      return brotliDecompressSync(raw);
    default:
      return raw;
  }
}

/** Parsed JSON, the raw text if it is not JSON, undefined when empty. */
export function parseBody(raw: Buffer): { body: unknown; valid: boolean } {
  const text = raw.toString('utf8');
  if (text === '') return { body: undefined, valid: false };
  try {
    return { body: JSON.parse(text), valid: true };
  } catch {
    return { body: text, valid: false };
  }
}
