// What every route handler shares: the resolved config and the long-lived collaborators.
import type { Logger } from 'pino';
import type { AccessService } from '../access/access-service.js';
import type { KeyAdmin } from '../access/key-admin.js';
import type { RuntimeKeys } from '../access/runtime-keys.js';
import type { GatewayConfig } from '../config/types.js';
import type { HttpClient } from '../drivers/http-client.js';
import type { Observability } from '../observability/observer.js';
import type { DeploymentHealth } from '../router/deployment-health.js';
import type { ModelTable } from '../router/model-table.js';
import type { ResponsesRepository } from '../responses-store/responses-repository.js';
import type { InstanceRegistry } from '../state/instance-registry.js';
import type { StateStore } from '../state/types.js';
import type { StatusService } from '../status/status-service.js';
import type { AnswerSaver } from './answer-saver.js';
import type { InFlight } from './in-flight.js';

export interface AppContext {
  /** Swapped atomically on reload; handlers read it once per request. */
  config: GatewayConfig;
  table: ModelTable;
  health: DeploymentHealth;
  http: HttpClient;
  obs: Observability;
  /** The shared state backend (state.backend); closed with the app. */
  stateStore: StateStore;
  /** Keys' model access, limits, budgets and spend on stateStore (reads ctx.config live). */
  access: AccessService;
  /** Keys issued through the admin API (undefined when `auth.runtime_keys.enabled` is false). */
  runtimeKeys: RuntimeKeys | undefined;
  /** The admin API's operations on runtime keys and teams (with runtimeKeys). */
  keyAdmin: KeyAdmin | undefined;
  /** Stored Responses on stateStore: GET/DELETE /v1/responses/{id}, input_items, continuations. */
  responses: ResponsesRepository;
  /** Saves finished Responses answers into `responses` after the caller's last byte. */
  saver: AnswerSaver;
  logger: Logger;
  /** The /metrics body: this process's registry, or in --workers mode every worker's, merged. */
  metricsText: () => Promise<string>;
  /** Every configured secret (gateway keys, provider keys), masked out of logged text. */
  secrets: string[];
  /** The status page's windows and data (GET /status.json). */
  status: StatusService;
  /** True from SIGTERM on (http/drain.ts): /readyz answers 503 while requests are still served. */
  draining: boolean;
  /** Generation requests being answered, for the drain (wait for them; cut them at the deadline). */
  inFlight: InFlight;
  /** Open WebSocket connections (socket-session.ts): the drain closes them with going-away. */
  sockets: Set<{ goAway(): void; readonly closed: Promise<void>; terminate(): void; recheckKey(): void }>;
  /** Redis backend: the gateway processes sharing the store (started by main.ts once connected). */
  instances: InstanceRegistry | undefined;
}
