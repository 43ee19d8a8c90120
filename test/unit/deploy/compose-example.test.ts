// examples/multi-instance: the gateways run the image (built from the Dockerfile), never the source tree
// compiled inside a running container, read-only, with a stop grace that covers the drain.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import { drainBoundMs } from '../../../src/http/drain.js';

const DIR = join(import.meta.dirname, '../../../examples/multi-instance');

describe('the multi-instance compose example', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const compose = parse(readFileSync(join(DIR, 'compose.yaml'), 'utf8'), { merge: true }) as any;
  const config = loadConfig({ file: join(DIR, 'switchyard.yaml'), env: { ALICE_KEY: 'sk-alice-example', ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o' } });

  it('runs the image, not the source tree, read-only, and gives the drain its time', () => {
    const gateways = Object.entries(compose.services).filter(([name]) => name.startsWith('gateway'));
    expect(gateways).toHaveLength(2);
    for (const [name, s] of gateways as [string, Record<string, any>][]) { // eslint-disable-line @typescript-eslint/no-explicit-any
      expect(s.build.context, name).toBe('../..');
      expect(s.command, name).toEqual(['dist/main.js', '--config', '/etc/switchyard/switchyard.yaml']);
      expect(JSON.stringify(s.volumes), name).not.toMatch(/\.\.\/\.\.|node_modules|dist/);
      expect(s.read_only, name).toBe(true);
      expect(s.tmpfs, name).toEqual(['/tmp']);
      expect(Number(/^(\d+)s$/.exec(s.stop_grace_period)![1]) * 1000, name).toBeGreaterThan(drainBoundMs(config.server.drainDelayMs, config.server.shutdownGraceMs));
    }
    expect(Object.keys(compose.services)).not.toContain('build');
    expect(readFileSync(join(DIR, 'compose.yaml'), 'utf8')).not.toMatch(/npm (ci|install)|npm run build/);
  });

  it('passes every variable the config names; one unset (compose hands it over blank) stops the start-up naming it', () => {
    const environment = compose['x-gateway'].environment as Record<string, string>;
    const named = [...readFileSync(join(DIR, 'switchyard.yaml'), 'utf8').matchAll(/\$\{(\w+)\}/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(0);
    for (const name of named) expect(environment[name], name).toBe(`\${${name}}`);
    const blank = { ALICE_KEY: 'sk-alice-example', ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: '' };
    expect(() => loadConfig({ file: join(DIR, 'switchyard.yaml'), env: blank })).toThrow(/^providers\.openai\.api_key: \$\{OPENAI_API_KEY\} is not set/);
    expect(config.providers.get('openai')!.apiKeys).toEqual(['o']);
  });
});
