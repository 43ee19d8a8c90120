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
import { GENERATION_DOORS } from '../codecs/doors.js';
import type { CutCounts } from './in-flight.js';

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
  cut: CutCounts;
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
  // WebSockets are not the server's connections any more: each finishes its running response, then
  // closes with 1001 going-away (the client reconnects to another instance).
  for (const socket of ctx.sockets) socket.goAway();
  log.info({ ms: ms(), inFlight: ctx.inFlight.size }, 'drain: stopped accepting; running requests and streams may finish for shutdown_grace_ms');

  let cut = Object.fromEntries(GENERATION_DOORS.map((door) => [door, 0])) as CutCounts;
  if (!(await ctx.inFlight.idle(options.graceMs))) {
    cut = ctx.inFlight.cut();
    for (const door of GENERATION_DOORS) ctx.obs.recordShutdownCut(door, cut[door]);
    log.warn({ ms: ms(), cut }, 'drain: grace over; ended the requests still running with a retryable overloaded error');
    await ctx.inFlight.idle(CUT_FLUSH_MS);
  } else {
    log.info({ ms: ms() }, 'drain: every running request and stream finished');
  }
  // Meanwhile a socket whose response just ended (or was cut) has its going-away close under way: its
  // handshake may finish, so the client reads 1001 and not a dropped connection; what is left is dropped.
  const socketsClosed = Promise.all([...ctx.sockets].map((s) => s.closed));
  await Promise.race([Promise.all([ctx.saver.idle(), socketsClosed]), sleep(SAVE_FLUSH_MS)]);
  clearInterval(reaper);
  for (const socket of ctx.sockets) socket.terminate();
  server.closeAllConnections();
  await app.close();
  const elapsedMs = ms();
  log.info({ ms: elapsedMs, cut }, 'drain: closed');
  return { cut, elapsedMs };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
