// Graceful shutdown of one serving process (main.ts on SIGTERM/SIGINT; each worker under --workers N):
//   t = 0                      /readyz turns 503 ("draining"); everything is still accepted and served, for
//                              server.drain_delay_ms: the time a load balancer or Kubernetes takes to stop
//                              sending here (probe period × failure threshold, endpoint propagation);
//   t = drain_delay_ms         stop accepting connections; idle keep-alive connections are closed, and every
//                              answer from now on carries `connection: close`;
//   … + shutdown_grace_ms      running requests and streams finish; whatever still runs at the deadline is
//                              ended with the protocol's retryable error (http/in-flight.ts) and counted in
//                              switchyard_shutdown_cut_total;
//   then                       saves of finished answers land, the app closes (upstream pool, state store).
// Each step is logged with its time since the signal ("drain: …"), so a rollout can be read from the logs.
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from './context.js';

/** After a cut: how long the cut requests get to write their error frames before connections are closed. */
const CUT_FLUSH_MS = 2000;
/** How long saves of answers already delivered may take to land. */
const SAVE_FLUSH_MS = 2000;
/** Connections that go idle once their last stream ends are closed this often while waiting. */
const REAP_EVERY_MS = 200;

export interface DrainOptions {
  drainDelayMs: number;
  graceMs: number;
  /** What started it (SIGTERM, SIGINT), for the log. */
  reason: string;
}

export interface DrainOutcome {
  /** Requests ended at the deadline, per front door. */
  cut: { messages: number; responses: number };
  elapsedMs: number;
}

/** The longest a drain can take: callers set their own hard stop beyond it. */
export function drainBoundMs(drainDelayMs: number, graceMs: number): number {
  return drainDelayMs + graceMs + CUT_FLUSH_MS + SAVE_FLUSH_MS;
}

export async function drainAndClose(app: FastifyInstance, ctx: AppContext, options: DrainOptions): Promise<DrainOutcome> {
  const t0 = performance.now();
  const ms = () => Math.round(performance.now() - t0);
  const log = ctx.logger;
  ctx.draining = true;
  log.info(
    { reason: options.reason, drainDelayMs: options.drainDelayMs, graceMs: options.graceMs, inFlight: ctx.inFlight.size },
    'drain: not ready (/readyz 503); still accepting and serving for drain_delay_ms',
  );
  if (options.drainDelayMs > 0) await sleep(options.drainDelayMs);

  const server = app.server;
  // Before fastify's own listener, so the header is set before any reply can be written.
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('connection', 'close');
  });
  server.close();
  server.closeIdleConnections();
  const reaper = setInterval(() => server.closeIdleConnections(), REAP_EVERY_MS);
  log.info({ ms: ms(), inFlight: ctx.inFlight.size }, 'drain: stopped accepting; running requests and streams may finish for shutdown_grace_ms');

  let cut = { messages: 0, responses: 0 };
  if (!(await ctx.inFlight.idle(options.graceMs))) {
    cut = ctx.inFlight.cut();
    ctx.obs.recordShutdownCut('messages', cut.messages);
    ctx.obs.recordShutdownCut('responses', cut.responses);
    log.warn({ ms: ms(), cut }, 'drain: grace over; ended the requests still running with a retryable overloaded error');
    await ctx.inFlight.idle(CUT_FLUSH_MS);
  } else {
    log.info({ ms: ms() }, 'drain: every running request and stream finished');
  }
  await Promise.race([ctx.saver.idle(), sleep(SAVE_FLUSH_MS)]);
  clearInterval(reaper);
  server.closeAllConnections();
  await app.close();
  const elapsedMs = ms();
  log.info({ ms: elapsedMs, cut }, 'drain: closed');
  return { cut, elapsedMs };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
