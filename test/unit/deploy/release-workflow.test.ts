// .github/workflows/release.yml builds and pushes the image the manifests pull: the same name, the tag
// from package.json's version (the manifests' tag too), the repository's Dockerfile, and before the push
// the image run exactly as README.md and docs/deploy.md document it. No workflow runner here: what it
// says is checked, what it runs is the Dockerfile (test/unit/deploy/dockerfile.test.ts,
// test/e2e/production-install.test.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const workflow = parse(read('.github/workflows/release.yml')) as any;
const job = workflow.jobs.image;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const steps: any[] = job.steps;
const version = (JSON.parse(read('package.json')) as { version: string }).version;
const kustomization = parse(read('deploy/kubernetes/base/kustomization.yaml')) as { images: { name: string; newName: string; newTag: string }[] };

/** A shell command with its continuation lines joined and runs of blanks squeezed. */
const oneLine = (cmd: string) => cmd.replace(/\\\n\s*/g, ' ').replace(/[ \t]+/g, ' ').trim();

describe('release workflow', () => {
  it('runs on version tags and pushes the image the manifests name, tagged with package.json\'s version', () => {
    expect(workflow.on.push.tags).toEqual(['v*.*.*']);
    expect(workflow.permissions).toEqual({ contents: 'read', packages: 'write' });
    const image = kustomization.images.find((i) => i.name === 'switchyard')!;
    expect(job.env.IMAGE).toBe(image.newName);
    expect(image.newTag).toBe(version);
    const check = steps.find((s) => s.name === "The tag is package.json's version");
    expect(check.run).toContain(`require('./package.json').version`);
    expect(check.run).toContain('"$GITHUB_REF_NAME" != "v$version"');
    const push = steps.find((s) => s.name === 'Push');
    expect(push.with).toMatchObject({ context: '.', file: 'Dockerfile', push: true, tags: '${{ env.IMAGE }}:${{ env.VERSION }}' });
    expect(push.with['build-args']).toContain('VERSION=${{ env.VERSION }}');
    expect(push.with['build-args']).toContain('REVISION=${{ github.sha }}');
    // The image is run before it is pushed.
    expect(steps.indexOf(push)).toBeGreaterThan(steps.findIndex((s) => /^Run it as documented/.test(s.name ?? '')));
  });

  it('runs the image exactly as README.md and docs/deploy.md tell a team to', () => {
    const smoke = steps.find((s) => /^Run it as documented/.test(s.name ?? ''));
    const documented = (text: string) => {
      const m = /^ *(docker run --rm -p 8080:8080 --read-only --tmpfs \/tmp \\\n\s*-e SWITCHYARD_API_KEY -e SWITCHYARD_ADMIN_KEY -e ANTHROPIC_API_KEY switchyard:0\.1\.0)$/m.exec(text);
      expect(m, 'the documented docker run').not.toBeNull();
      return oneLine(m![1]!);
    };
    const readme = documented(read('README.md'));
    expect(documented(read('docs/deploy.md'))).toBe(readme);
    // The workflow's run: detached and named, the image by its variable; otherwise the same flags and variables.
    const ran = oneLine(smoke.run.split('\n').filter((l: string) => /docker run|^\s+-e /.test(l)).join('\n'));
    expect(ran.replace(' -d --name switchyard', '').replace('"$IMAGE:$VERSION"', `switchyard:${version}`)).toBe(readme);
    for (const v of ['SWITCHYARD_API_KEY', 'SWITCHYARD_ADMIN_KEY', 'ANTHROPIC_API_KEY']) expect(Object.keys(smoke.env)).toContain(v);
    for (const path of ['/readyz', '/livez', '/status', '/status.json']) expect(smoke.run).toContain(`http://127.0.0.1:8080${path}`);
    // The documented build matches the workflow's arguments.
    expect(read('README.md')).toContain(`docker build -t switchyard:${version} --build-arg VERSION=${version} --build-arg REVISION=$(git rev-parse HEAD) .`);
    expect(read('docs/deploy.md')).toContain(`docker build -t switchyard:${version} --build-arg VERSION=${version} --build-arg REVISION=$(git rev-parse HEAD) .`);
  });

  it('the docs say plainly that no image is published yet', () => {
    expect(read('README.md')).toContain('no image is published yet');
    expect(read('docs/deploy.md')).toContain('No image is published yet.');
  });
});
