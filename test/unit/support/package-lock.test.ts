// `npm ci` refuses a lock file that lacks any optional dependency a locked package names, even one
// for another platform that this machine would skip ("Missing: opencode-darwin-arm64@ from lock file").
// `npm install` on a machine whose registry lacks those packages writes exactly such a lock, so this
// checks the lock the way `npm ci` will before CI finds out.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface LockEntry { version?: string; optionalDependencies?: Record<string, string>; dependencies?: Record<string, string> }
const lock = JSON.parse(readFileSync(new URL('../../../package-lock.json', import.meta.url), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

/** Where Node's resolution would find `name` from the package at `path` (its own node_modules, then up). */
function resolve(path: string, name: string): string | undefined {
  let dir = path;
  for (;;) {
    const at = `${dir ? `${dir}/` : ''}node_modules/${name}`;
    if (lock.packages[at]) return at;
    if (!dir) return undefined;
    const cut = dir.lastIndexOf('/node_modules/');
    dir = cut < 0 ? '' : dir.slice(0, cut);
  }
}

describe('package-lock.json', () => {
  it('locks every optional dependency of every locked package, whatever its platform', () => {
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        if (!resolve(path, name)) missing.push(`${name} (optional dependency of ${path || 'the root'})`);
      }
    }
    expect(missing).toEqual([]);
  });
});
