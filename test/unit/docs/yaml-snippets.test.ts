// Every ```yaml block in README.md and docs/ loads with the gateway's own loader, as copied (issue 33
// item 8). The only thing filled in is what the snippet itself names: each `${VAR}` gets a value (a
// 64-hex digest for a `…_SHA256` variable, as `switchyard hash-key` prints). A block without `providers`
// is a fragment of a config (`state:`, `status:`): it is loaded on top of the smallest config that loads
// (open, the demo provider), as a reader adds it to theirs.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../../src/config/load-config.js';

const ROOT = join(import.meta.dirname, '../../..');

function markdownFiles(): string[] {
  const out = [join(ROOT, 'README.md')];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith('.md')) out.push(join(dir, e.name));
    }
  };
  walk(join(ROOT, 'docs'));
  return out;
}

interface Snippet {
  at: string;
  text: string;
}

function snippets(): Snippet[] {
  const found: Snippet[] = [];
  for (const file of markdownFiles()) {
    const lines = readFileSync(file, 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (lines[i]!.trim() !== '```yaml') continue;
      const end = lines.findIndex((l, j) => j > i && l.trim() === '```');
      found.push({ at: `${relative(ROOT, file)}:${i + 1}`, text: lines.slice(i + 1, end).join('\n') });
      i = end;
    }
  }
  return found;
}

/** A value for every variable the snippet names. */
function envFor(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [, name] of text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)) {
    env[name!] = name!.endsWith('_SHA256') ? createHash('sha256').update(name!).digest('hex') : `snippet-${name}-0123456789abcdef`;
  }
  return env;
}

const FRAGMENT_BASE = { auth: { open: true }, providers: { demo: { protocol: 'demo' } }, models: { demo: { provider: 'demo' } } };

const ALL = snippets();

describe('YAML snippets in README.md and docs/', () => {
  it('finds them (the extractor is not silently empty)', () => {
    expect(ALL.length).toBeGreaterThanOrEqual(9);
    expect(ALL.map((s) => s.at)).toContain(ALL.find((s) => s.at.startsWith('docs/platforms.md'))?.at);
  });

  it.each(ALL.map((s) => [s.at, s] as const))('%s loads with the real loader', (_at, snippet) => {
    const doc = parse(snippet.text) as Record<string, unknown>;
    const text = 'providers' in doc ? snippet.text : JSON.stringify({ ...FRAGMENT_BASE, ...doc });
    const file = join(mkdtempSync(join(tmpdir(), 'switchyard-snippet-')), 'switchyard.yaml');
    writeFileSync(file, text);
    const config = loadConfig({ file, env: envFor(snippet.text) });
    expect(config.models.length).toBeGreaterThan(0);
  });
});
