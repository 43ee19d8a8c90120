// The Dockerfile cannot be built on the project's machines (no engine, no base image), so what can be read
// is checked here and what can be run is checked by test/e2e/production-install.test.ts: build with dev
// dependencies, run with `npm ci --omit=dev` and dist/ only, non-root, SIGTERM, a HEALTHCHECK on /livez
// that needs only node, labels, and a .dockerignore that keeps node_modules and secrets out of the context.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
/** Instructions, continuation lines joined, comments dropped. */
const lines = dockerfile
  .replace(/\\\n\s*/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const stages = lines.join('\n').split(/^FROM /m).slice(1);

describe('Dockerfile', () => {
  it('builds in one stage with dev dependencies and runs from another with production ones and dist/ only', () => {
    expect(stages.length).toBeGreaterThanOrEqual(3);
    expect(lines).toContain('ARG NODE_IMAGE=node:20-bookworm-slim');
    expect(lines).toContain('ARG RUNTIME_IMAGE=gcr.io/distroless/nodejs20-debian12:nonroot');
    const build = stages.find((s) => / AS build\n/.test(s))!;
    expect(build).toMatch(/RUN npm ci --no-audit --no-fund\n/);
    // `npm run build` is package.json's build script as it is today: everything it runs is copied in first.
    expect(build).toMatch(/RUN npm run build/);
    const buildScript = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.build!;
    for (const file of buildScript.match(/[\w./-]+\.(?:mjs|json)\b/g) ?? []) {
      expect(build, `the build stage copies ${file} (npm run build reads it)`).toMatch(new RegExp(`^COPY .*\\b${file.replace(/^.*\//, '').replace(/\./g, '\\.')}\\b`, 'm'));
    }
    const deps = stages.find((s) => / AS prod-deps\n/.test(s))!;
    expect(deps).toMatch(/RUN npm ci --omit=dev/);
    const runtime = stages[stages.length - 1]!;
    const copies = runtime.split('\n').filter((l) => l.startsWith('COPY'));
    expect(copies).toEqual([
      'COPY --from=prod-deps /app/node_modules ./node_modules',
      'COPY --from=build /src/dist ./dist',
      'COPY package.json ./',
      'COPY examples/container/switchyard.yaml /etc/switchyard/switchyard.yaml',
    ]);
    // The config it starts from is the one it copies (a container cannot use the loopback-only embedded default).
    expect(runtime).toMatch(/SWITCHYARD_CONFIG=\/etc\/switchyard\/switchyard\.yaml/);
  });

  it('runs as a non-root user, stops on SIGTERM, checks /livez with node itself, and carries labels', () => {
    const runtime = stages[stages.length - 1]!;
    const user = /^USER (\d+):(\d+)$/m.exec(runtime);
    expect(user && Number(user[1])).toBeGreaterThan(0);
    expect(runtime).toMatch(/^STOPSIGNAL SIGTERM$/m);
    expect(runtime).toMatch(/^EXPOSE 8080$/m);
    expect(runtime).toMatch(/^HEALTHCHECK .*CMD \["\/nodejs\/bin\/node", "-e", ".*\/livez/m);
    expect(runtime).not.toMatch(/curl|wget/);
    expect(runtime).toMatch(/SWITCHYARD_HOST=0\.0\.0\.0/);
    expect(runtime).toMatch(/^CMD \["dist\/main\.js"\]$/m);
    for (const label of ['title', 'description', 'licenses', 'version', 'revision', 'source']) {
      expect(runtime).toContain(`org.opencontainers.image.${label}=`);
    }
  });

  it('.dockerignore lets in only what the build reads', () => {
    const ignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
    expect(ignore[0]).toBe('*');
    expect(ignore.slice(1).sort()).toEqual([
      '!examples/container/switchyard.yaml',
      '!package-lock.json',
      '!package.json',
      '!scripts/copy-status-page.mjs',
      '!src/',
      '!tsconfig.build.json',
      '!tsconfig.json',
    ]);
    // Everything the stages COPY from the context is let in.
    for (const m of dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)) {
      for (const f of m[1]!.split(' ')) expect(ignore, f).toContain(`!${f.replace(/\/?$/, f === 'src' ? '/' : '')}`);
    }
  });
});
