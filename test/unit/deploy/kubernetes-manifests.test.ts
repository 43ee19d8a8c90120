// deploy/kubernetes: each overlay renders with `kubectl kustomize` (Debian's kubectl), every object
// validates against the Kubernetes API schema (kubernetes-models), the ConfigMap's config loads with our
// own loader, and the numbers agree with each other: probe paths and ports, the drain timeline against
// the probe period and terminationGracePeriodSeconds, the checksum annotation, the security context.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigMap, PersistentVolumeClaim, Service } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import type { GatewayConfig } from '../../../src/config/types.js';
import { drainBoundMs } from '../../../src/http/drain.js';
import { requireTool, requireTools } from '../../support/required-tools.js';

const ROOT = join(import.meta.dirname, '../../../deploy/kubernetes');
requireTools('kubectl');
const KUBECTL = requireTool('kubectl');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = any;

const MODELS: Record<string, new (data: Obj) => { validate(): void }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
};

function render(overlay: string): Obj[] {
  const text = execFileSync(KUBECTL, ['kustomize', join(ROOT, 'overlays', overlay)], { encoding: 'utf8', timeout: 30_000 });
  return parseAllDocuments(text).map((d) => d.toJSON() as Obj);
}

function find(objs: Obj[], kind: string, name: string): Obj {
  const o = objs.find((x) => x.kind === kind && x.metadata?.name === name);
  if (!o) throw new Error(`no ${kind}/${name}`);
  return o;
}

/** What the documented `kubectl create secret generic switchyard-secrets` puts in the pods' environment. */
const SECRET = { SWITCHYARD_API_KEY: 'sk-test-key', ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o', REDIS_PASSWORD: 'redis-pass' };

/** The ConfigMap's switchyard.yaml through our own loader (secrets as the Secret would give them). */
function loadMounted(text: string, env: Record<string, string> = SECRET): GatewayConfig {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-k8s-'));
  try {
    const file = join(dir, 'switchyard.yaml');
    writeFileSync(file, text);
    return loadConfig({ file, env });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function matches(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

describe('Kubernetes manifests (deploy/kubernetes)', () => {
  for (const overlay of ['single', 'redis']) {
    describe(`overlay ${overlay}`, () => {
      const objs = render(overlay);
      const deployment = find(objs, 'Deployment', 'switchyard');
      const pod = deployment.spec.template;
      const container = pod.spec.containers.find((c: Obj) => c.name === 'switchyard');
      const configMap = find(objs, 'ConfigMap', 'switchyard-config');
      const configText: string = configMap.data['switchyard.yaml'];
      const config = loadMounted(configText);

      it('every object validates against the Kubernetes API schema', () => {
        expect(objs.length).toBeGreaterThan(2);
        for (const o of objs) {
          const Model = MODELS[`${o.apiVersion}/${o.kind}`];
          expect(Model, `${o.apiVersion} ${o.kind} has a schema here`).toBeDefined();
          expect(() => new Model!(o).validate(), `${o.kind}/${o.metadata.name}`).not.toThrow();
        }
      });

      it('the ConfigMap holds a config our loader accepts, mounted where the container reads it', () => {
        expect(config.server.host).toBe('0.0.0.0');
        const mount = container.volumeMounts.find((m: Obj) => m.name === 'config');
        const volume = pod.spec.volumes.find((v: Obj) => v.name === 'config');
        expect(volume.configMap.name).toBe('switchyard-config');
        expect(container.args).toEqual(['--config', `${mount.mountPath}/switchyard.yaml`]);
        // A whole-directory mount (no subPath): the kubelet's atomic ..data swap reaches the pod, and the
        // gateway reloads it (test/unit/config/reload-configmap.test.ts).
        expect(mount.subPath).toBeUndefined();
        // Provider and gateway keys come from a Secret, never from the ConfigMap.
        expect(container.envFrom).toContainEqual({ secretRef: { name: 'switchyard-secrets' } });
        expect(configText).not.toMatch(/sk-[a-z0-9]{8,}/i);
      });

      it('every provider key is required: one missing from the Secret stops the start-up naming it; a vendor not used is deleted, not left keyless', () => {
        expect(config.providers.get('anthropic')!.apiKeys).toEqual(['a']);
        expect(config.providers.get('openai')!.apiKeys).toEqual(['o']);
        // A Secret made with the Anthropic key only: the pod exits with the variable's name (kubectl logs),
        // never a gateway that sends OpenAI requests without a credential.
        const { OPENAI_API_KEY: _omitted, ...anthropicOnly } = SECRET;
        expect(() => loadMounted(configText, anthropicOnly)).toThrow(
          /^providers\.openai\.api_key: \$\{OPENAI_API_KEY\} is not set, so provider openai would send no credential/,
        );
        expect(() => loadMounted(configText, { ...SECRET, ANTHROPIC_API_KEY: '' })).toThrow(/providers\.anthropic\.api_key: \$\{ANTHROPIC_API_KEY\} is not set/);
        // The edit the file's comment names: the openai provider line and its models line deleted.
        const edited = configText.split('\n').filter((l) => !/^\s+(openai:|"gpt-\*":)/.test(l)).join('\n');
        expect(edited).not.toBe(configText);
        const one = loadMounted(edited, anthropicOnly);
        expect([...one.providers.keys()]).toEqual(['anthropic']);
        // No key is optional in the shipped file ("${VAR:-}" would mean "needs no key").
        expect(configText).not.toContain(':-}');
      });

      it('the checksum annotation is the config file\'s sha256 (a config change rolls the pods)', () => {
        expect(pod.metadata.annotations['checksum/config']).toBe(createHash('sha256').update(configText).digest('hex'));
      });

      it('probes: /livez and /readyz on the port the gateway listens on; /metrics scraped on metrics.port', () => {
        const port = container.ports.find((p: Obj) => p.name === 'http');
        expect(port.containerPort).toBe(config.server.port);
        expect(container.livenessProbe.httpGet).toEqual({ path: '/livez', port: 'http' });
        expect(container.startupProbe.httpGet).toEqual({ path: '/livez', port: 'http' });
        expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
        expect(pod.metadata.annotations['prometheus.io/scrape']).toBe('true');
        // The API port refuses /metrics without an admin key (docs/security.md): its own listener instead.
        expect(config.metrics.port).toBeGreaterThan(0);
        expect(config.metrics.host).toBe('0.0.0.0');
        expect(Number(pod.metadata.annotations['prometheus.io/port'])).toBe(config.metrics.port);
        expect(container.ports.find((p: Obj) => p.name === 'metrics').containerPort).toBe(config.metrics.port);
        expect(pod.metadata.annotations['prometheus.io/path']).toBe('/metrics');
        const service = find(objs, 'Service', 'switchyard');
        expect(service.spec.ports[0].targetPort).toBe('http');
        expect(matches(service.spec.selector, pod.metadata.labels)).toBe(true);
      });

      it('the drain timeline fits: the probe notices within drain_delay_ms, the grace period covers the whole drain', () => {
        const probe = container.readinessProbe;
        // Not-ready is seen after at most periodSeconds × failureThreshold; new traffic must stop before
        // the gateway stops accepting.
        expect(probe.periodSeconds * probe.failureThreshold * 1000).toBeLessThan(config.server.drainDelayMs);
        // A preStop sleep would run before SIGTERM and add to the timeline; the gateway waits by itself.
        const preStopMs = 1000 * (container.lifecycle?.preStop?.sleep?.seconds ?? 0);
        expect(container.lifecycle?.preStop?.exec).toBeUndefined();
        expect(pod.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(preStopMs + drainBoundMs(config.server.drainDelayMs, config.server.shutdownGraceMs));
        expect(config.server.shutdownGraceMs).toBeGreaterThanOrEqual(30_000);
      });

      it('runs as non-root on a read-only root filesystem with no privilege and no capabilities; /tmp is a volume', () => {
        expect(pod.spec.securityContext.runAsNonRoot).toBe(true);
        expect(pod.spec.securityContext.runAsUser).toBeGreaterThan(0);
        expect(pod.spec.securityContext.seccompProfile).toEqual({ type: 'RuntimeDefault' });
        expect(pod.spec.automountServiceAccountToken).toBe(false);
        const sc = container.securityContext;
        expect(sc.readOnlyRootFilesystem).toBe(true);
        expect(sc.allowPrivilegeEscalation).toBe(false);
        expect(sc.privileged ?? false).toBe(false);
        expect(sc.capabilities.drop).toEqual(['ALL']);
        expect(sc.capabilities.add).toBeUndefined();
        const tmp = container.volumeMounts.find((m: Obj) => m.mountPath === '/tmp');
        expect(pod.spec.volumes.find((v: Obj) => v.name === tmp.name).emptyDir).toBeDefined();
        expect(container.resources.requests.cpu).toBeDefined();
        expect(container.resources.requests.memory).toBeDefined();
        expect(container.resources.limits.memory).toBeDefined();
      });

      it('/metrics is in no Service, and only the monitoring namespace may reach its port (docs/security.md)', () => {
        for (const svc of objs.filter((o) => o.kind === 'Service')) {
          for (const p of svc.spec.ports) {
            expect([p.port, p.targetPort], `${svc.metadata.name}`).not.toContain(config.metrics.port);
            expect(p.targetPort, `${svc.metadata.name}`).not.toBe('metrics');
          }
        }
        const policy = find(objs, 'NetworkPolicy', 'switchyard');
        expect(matches(policy.spec.podSelector.matchLabels, pod.metadata.labels)).toBe(true);
        expect(policy.spec.policyTypes).toEqual(['Ingress']);
        const rules = policy.spec.ingress as Obj[];
        const onMetrics = rules.filter((r) => r.ports.some((p: Obj) => p.port === 'metrics' || p.port === config.metrics.port));
        expect(onMetrics).toHaveLength(1);
        expect(onMetrics[0].from).toEqual([{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }]);
        // The API port stays open to callers; no rule opens every port.
        expect(rules.some((r) => r.from === undefined && r.ports.every((p: Obj) => p.port === 'http'))).toBe(true);
        expect(rules.every((r) => Array.isArray(r.ports) && r.ports.length > 0)).toBe(true);
      });

      if (overlay === 'single') {
        it('single: one replica, state in memory, no autoscaler', () => {
          expect(deployment.spec.replicas).toBe(1);
          expect(config.state.backend).toBe('memory');
          expect(objs.some((o) => o.kind === 'HorizontalPodAutoscaler')).toBe(false);
        });
      } else {
        it('redis: N replicas on Redis, an autoscaler that scales down slowly, a disruption budget, a Redis with a volume', () => {
          expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
          expect(deployment.spec.strategy.rollingUpdate.maxUnavailable).toBe(0);
          expect(config.state.backend).toBe('redis');
          // The example Redis by its own name, with the password from the Secret; readiness depends on it.
          expect(config.state.url).toBe('redis://:redis-pass@switchyard-redis:6379');
          expect(config.state.required).toBe(true);
          const hpa = find(objs, 'HorizontalPodAutoscaler', 'switchyard');
          expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'switchyard' });
          expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
          expect(hpa.spec.behavior.scaleDown.stabilizationWindowSeconds).toBeGreaterThanOrEqual(300);
          for (const p of hpa.spec.behavior.scaleDown.policies) expect(p).toMatchObject({ type: 'Pods', value: 1 });
          const pdb = find(objs, 'PodDisruptionBudget', 'switchyard');
          expect(matches(pdb.spec.selector.matchLabels, pod.metadata.labels)).toBe(true);
          expect(pdb.spec.maxUnavailable).toBe(1);
          // The example Redis: a Service named as in the config's URL, append-only on a claimed volume.
          const redisService = find(objs, 'Service', 'switchyard-redis');
          const redis = find(objs, 'Deployment', 'switchyard-redis');
          expect(matches(redisService.spec.selector, redis.spec.template.metadata.labels)).toBe(true);
          expect(matches(redisService.spec.selector, pod.metadata.labels)).toBe(false);
          expect(redis.spec.template.spec.containers[0].args).toEqual(expect.arrayContaining(['--appendonly', 'yes', '--maxmemory-policy', 'noeviction']));
          const claim = redis.spec.template.spec.volumes.find((v: Obj) => v.persistentVolumeClaim).persistentVolumeClaim.claimName;
          find(objs, 'PersistentVolumeClaim', claim);
        });

        it('redis: a password from the Secret (never in a manifest), reachable from the gateway pods only, labelled as the gateway\'s', () => {
          const redis = find(objs, 'Deployment', 'switchyard-redis');
          const c = redis.spec.template.spec.containers[0];
          const args: string[] = c.args;
          expect(args[args.indexOf('--requirepass') + 1]).toBe('$(REDIS_PASSWORD)');
          for (const name of ['REDIS_PASSWORD', 'REDISCLI_AUTH']) {
            expect(c.env.find((e: Obj) => e.name === name).valueFrom.secretKeyRef).toEqual({ name: 'switchyard-secrets', key: 'REDIS_PASSWORD' });
          }
          expect(c.readinessProbe.exec.command).toEqual(['redis-cli', 'ping']);
          const policy = find(objs, 'NetworkPolicy', 'switchyard-redis');
          expect(matches(policy.spec.podSelector.matchLabels, redis.spec.template.metadata.labels)).toBe(true);
          expect(matches(policy.spec.podSelector.matchLabels, pod.metadata.labels)).toBe(false);
          expect(policy.spec.ingress).toHaveLength(1);
          const [from] = policy.spec.ingress[0].from;
          expect(matches(from.podSelector.matchLabels, pod.metadata.labels)).toBe(true);
          expect(policy.spec.ingress[0].ports).toEqual([{ port: 'redis', protocol: 'TCP' }]);
          for (const o of objs.filter((x) => /redis/.test(x.metadata.name))) expect(o.metadata.labels?.['app.kubernetes.io/name'], o.metadata.name).toBe('switchyard');
        });
      }
    });
  }
});
