// Coding CLIs shipped on npm as Node scripts: the script named in the package's `bin`, found through its
// package.json, run directly (its `#!/usr/bin/env node` line finds this Node on PATH).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ClientBinary } from './claude-code.js';

const require = createRequire(import.meta.url);

export function nodeCliBinary(pkg: string, bin: string): ClientBinary {
  let manifest: { version: string; bin?: Record<string, string> | string };
  let dir: string;
  try {
    const path = require.resolve(`${pkg}/package.json`);
    dir = dirname(path);
    manifest = JSON.parse(readFileSync(path, 'utf8')) as typeof manifest;
  } catch (err) {
    return { problem: `${pkg} is not installed (npm ci?): ${(err as Error).message}` };
  }
  const rel = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.[bin];
  if (!rel) return { version: manifest.version, problem: `${pkg} has no bin "${bin}"` };
  const path = join(dir, rel);
  if (!existsSync(path)) return { version: manifest.version, problem: `${path} does not exist` };
  return { path, version: manifest.version };
}
