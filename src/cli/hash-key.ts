// `switchyard hash-key`: the key_sha256 the config accepts for a key, so the secret itself need not be
// in the file. The key comes from stdin (kept out of the shell history and the process list) or, for
// convenience, an argument. One trailing newline is dropped: `echo key | switchyard hash-key` and
// `printf %s key | …` give the same digest, the digest of the key a caller sends.
import { createHash } from 'node:crypto';

export function keySha256(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The key as typed or piped: without the line ending a shell or an editor adds. */
export function keyFromInput(text: string): string {
  return text.replace(/\r?\n$/, '');
}

/** Exit code: 0 with the digest on stdout; 2 for an empty key or one with spaces around it. */
export async function hashKeyCommand(argument: string | undefined, io: { stdin: NodeJS.ReadableStream & { isTTY?: boolean }; out(s: string): void; err(s: string): void }): Promise<number> {
  let key = argument;
  if (key === undefined) {
    if (io.stdin.isTTY) io.err('switchyard hash-key: type the key, then Enter and Ctrl-D\n');
    const chunks: Buffer[] = [];
    for await (const chunk of io.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
    key = keyFromInput(Buffer.concat(chunks).toString('utf8'));
  }
  if (key === '') {
    io.err('switchyard hash-key: the key is empty (give it on stdin, e.g. printf %s "$KEY" | switchyard hash-key)\n');
    return 2;
  }
  if (key.trim() !== key || /[\r\n]/.test(key)) {
    // A caller's header cannot carry it either: almost always a copy-paste slip.
    io.err('switchyard hash-key: the key has spaces or line breaks around or inside it; a caller could not send it as a header\n');
    return 2;
  }
  io.out(`${keySha256(key)}\n`);
  return 0;
}
