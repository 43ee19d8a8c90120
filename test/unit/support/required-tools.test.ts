// The suite's outside programs: one list in test/support/required-tools.ts and the same one in
// scripts/install-test-deps.sh (which installs them), a missing program reported in one line naming its
// package, and every test file that starts one declaring it at its top (so a fresh machine gets a failure
// naming what to install, never a silent skip or a stack trace from deep inside a beforeAll).
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { locate, MissingToolError, TOOL_PACKAGES, type Tool } from '../../support/required-tools.js';

const REPO = join(import.meta.dirname, '../../..');

function scriptList(): Record<string, string> {
  const text = readFileSync(join(REPO, 'scripts/install-test-deps.sh'), 'utf8');
  const block = /^NEEDED=\(\n([\s\S]*?)^\)/m.exec(text)?.[1] ?? '';
  return Object.fromEntries([...block.matchAll(/^\s*([\w-]+):([\w-]+)/gm)].map((m) => [m[1]!, m[2]!]));
}

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

/** What a test file's imports say it starts, and the programs that needs. */
const STARTERS: { pattern: RegExp; tools: Tool[] }[] = [
  { pattern: /support\/redis-server\.js'/, tools: ['redis-server'] },
  { pattern: /support\/redis-cluster\.js'/, tools: ['redis-server', 'redis-cli'] },
  { pattern: /support\/haproxy\.js'/, tools: ['haproxy'] },
  { pattern: /prometheus\/prometheus-server\.js'/, tools: ['prometheus', 'promtool'] },
  { pattern: /from 'playwright-core'/, tools: ['chromium'] },
  { pattern: /execFileSync\(KUBECTL|'kubectl'/, tools: ['kubectl'] },
];

describe('the programs the tests need', () => {
  it('scripts/install-test-deps.sh installs exactly the programs required-tools.ts knows, from the same packages', () => {
    expect(scriptList()).toEqual(TOOL_PACKAGES);
  });

  it('.ci/run installs through that script, then runs the README test command', () => {
    const ci = readFileSync(join(REPO, '.ci/run'), 'utf8');
    expect(ci).toMatch(/^scripts\/install-test-deps\.sh$/m);
    expect(ci).toMatch(/^npm test$/m);
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['setup:test']).toBe('scripts/install-test-deps.sh');
    expect(statSync(join(REPO, 'scripts/install-test-deps.sh')).mode & 0o111).not.toBe(0);
  });

  it('a missing program is one line that names the script and the Debian package', () => {
    const err = new MissingToolError(['redis-cli', 'promtool']);
    expect(err.message).toBe('redis-cli, promtool not installed: run scripts/install-test-deps.sh (apt-get install redis-tools prometheus)');
    expect(err.stack).not.toContain('\n');
  });

  it('finds only an executable file, in the order of the directories given', () => {
    const a = mkdtempSync(join(tmpdir(), 'switchyard-tools-a-'));
    const b = mkdtempSync(join(tmpdir(), 'switchyard-tools-b-'));
    try {
      writeFileSync(join(a, 'haproxy'), '#!/bin/sh\n');
      chmodSync(join(a, 'haproxy'), 0o644); // present but not executable
      writeFileSync(join(b, 'haproxy'), '#!/bin/sh\n');
      chmodSync(join(b, 'haproxy'), 0o755);
      expect(locate('haproxy', [a])).toBeUndefined();
      expect(locate('haproxy', [a, b])).toBe(join(b, 'haproxy'));
      expect(locate('haproxy', [join(a, 'nowhere')])).toBeUndefined();
    } finally {
      rmSync(a, { recursive: true, force: true });
      rmSync(b, { recursive: true, force: true });
    }
  });

  it('every test file that starts one of them says so at its top with requireTools', () => {
    const missing: string[] = [];
    for (const file of testFiles(join(REPO, 'test'))) {
      if (file === import.meta.filename) continue; // names them all in its patterns
      const text = readFileSync(file, 'utf8');
      const needed = new Set(STARTERS.filter((s) => s.pattern.test(text)).flatMap((s) => s.tools));
      if (needed.size === 0) continue;
      const declared = /^requireTools\(([^)]*)\);$/m.exec(text)?.[1] ?? '';
      for (const tool of needed) if (!declared.includes(`'${tool}'`)) missing.push(`${relative(REPO, file)}: ${tool}`);
    }
    expect(missing).toEqual([]);
  });
});
