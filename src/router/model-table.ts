// Model name → an ordered list of deployments to try. Exact aliases win over wildcard routes; the
// order of targets follows the model's strategy, with deployments that are cooling down moved last.
import type { GatewayConfig, ModelConfig, ProviderConfig, TargetConfig } from '../config/types.js';
import type { DeploymentHealth } from './deployment-health.js';

export interface RouteTarget {
  provider: ProviderConfig;
  /** The model name sent upstream. */
  model: string;
  target: TargetConfig;
  /** Deployment identity for health, in-flight counts and metrics: "<provider>/<model>". */
  deployment: string;
}

export interface RoutePlan {
  /** Bounded label: the alias or wildcard pattern that matched. */
  label: string;
  targets: RouteTarget[];
}

export class ModelTable {
  private readonly exact = new Map<string, ModelConfig>();
  private readonly wildcards: ModelConfig[] = [];
  readonly aliases: string[];

  constructor(
    private readonly config: GatewayConfig,
    private readonly health: DeploymentHealth,
    private readonly random: () => number = Math.random,
  ) {
    for (const m of config.models) {
      if (m.pattern) this.wildcards.push(m);
      else this.exact.set(m.name, m);
    }
    this.aliases = [...this.exact.keys()];
  }

  /** Undefined when no route matches: the caller gets a 404 naming the model. */
  resolve(requested: string): RoutePlan | undefined {
    let model = this.exact.get(requested);
    if (!model) {
      for (const w of this.wildcards) {
        if (w.pattern!.test(requested)) {
          model = w;
          break;
        }
      }
    }
    if (!model) return undefined;
    const targets = model.targets.map((t) => {
      const upstreamModel = t.model ?? requested;
      return {
        provider: this.config.providers.get(t.provider)!,
        model: upstreamModel,
        target: t,
        deployment: t.provider + '/' + upstreamModel,
      };
    });
    return { label: model.name, targets: this.order(model, targets) };
  }

  private order(model: ModelConfig, targets: RouteTarget[]): RouteTarget[] {
    if (targets.length === 1) return targets;
    let ordered: RouteTarget[];
    switch (model.strategy) {
      case 'fallback':
        ordered = targets;
        break;
      case 'weighted':
        ordered = weightedOrder(targets, this.random);
        break;
      case 'least-inflight':
        ordered = [...targets].sort((a, b) => this.health.inFlight(a.deployment) - this.health.inFlight(b.deployment));
        break;
      default: {
        const never: never = model.strategy;
        return never;
      }
    }
    // Available deployments first; cooling ones stay at the end as a last resort (runPlan skips them
    // while a deployment after them is available, and tries them when nothing else is left).
    const now = Date.now();
    const ready = ordered.filter((t) => this.health.available(t.deployment, now));
    return ready.length === ordered.length ? ordered : [...ready, ...ordered.filter((t) => !ready.includes(t))];
  }
}

/** Weighted random order without replacement. */
function weightedOrder(targets: RouteTarget[], random: () => number): RouteTarget[] {
  const pool = [...targets];
  const out: RouteTarget[] = [];
  while (pool.length) {
    const total = pool.reduce((s, t) => s + t.target.weight, 0);
    let pick = 0;
    if (total > 0) {
      let r = random() * total;
      for (pick = 0; pick < pool.length - 1; pick++) {
        r -= pool[pick]!.target.weight;
        if (r < 0) break;
      }
    }
    out.push(pool.splice(pick, 1)[0]!);
  }
  return out;
}
