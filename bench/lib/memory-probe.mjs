// Memory breakdown of the gateway at its peak, for the bench only: loaded with
// `node --import <this file> dist/main.js` and active only when SWITCHYARD_BENCH_MEMORY_PROBE names a
// file. It samples process.memoryUsage() every 50 ms, keeps the sample with the highest RSS, and on
// SIGUSR2 appends that sample as one JSON line to the file, with the major GCs since the last one (when
// each began, epoch ms, and its pause), and starts over (the bench signals after each phase). On SIGWINCH
// it runs two full garbage collections and appends one `{ "gc": ... }` line with process.memoryUsage()
// after them: the live heap, for bytes per open stream (plateau minus idle).
// Plain JavaScript with node: imports only, so the gateway runs without a loader thread,
// and nothing of it is in the product.
import diagnostics from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';

const file = process.env.SWITCHYARD_BENCH_MEMORY_PROBE;

if (file) {
  // Sockets the upstream pools hold: undici announces each connection on this channel.
  const poolSockets = new Set();
  diagnostics.subscribe('undici:client:connected', (message) => {
    const socket = message?.socket;
    if (!socket || poolSockets.has(socket)) return;
    poolSockets.add(socket);
    socket.once('close', () => poolSockets.delete(socket));
  });

  const MiB = 1024 * 1024;
  // Counting TCP handles lists every active resource (20,000 with 10,000 streams open): every 10th sample.
  let tcp = 0;
  let tick = 0;
  const sample = () => {
    const m = process.memoryUsage();
    if (tick++ % 10 === 0) tcp = process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
    return {
      rssMiB: m.rss / MiB,
      heapUsedMiB: m.heapUsed / MiB,
      heapTotalMiB: m.heapTotal / MiB,
      externalMiB: m.external / MiB,
      arrayBuffersMiB: m.arrayBuffers / MiB,
      poolSockets: poolSockets.size,
      // Every TCP handle minus the pools' (listening sockets included): the callers' connections.
      otherTcpHandles: Math.max(0, tcp - poolSockets.size),
    };
  };
  // The first sample at the highest RSS (RSS rarely shrinks, so a later equal one is usually idle), and
  // the most sockets seen at any time.
  let peak = sample();
  let samples = 0;
  let maxPoolSockets = 0;
  let maxOtherTcpHandles = 0;
  setInterval(() => {
    samples++;
    const s = sample();
    if (s.rssMiB > peak.rssMiB) peak = s;
    maxPoolSockets = Math.max(maxPoolSockets, s.poolSockets);
    maxOtherTcpHandles = Math.max(maxOtherTcpHandles, s.otherTcpHandles);
  }, 50).unref();

  // Major GCs: with many streams open, marking the live heap is what delays events (bench/profiles.md).
  let majorGcs = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majorGcs.push({ at: Math.round(performance.timeOrigin + e.startTime), pauseMs: e.duration });
    }
  }).observe({ entryTypes: ['gc'] });

  // A `gc` function without starting the process with --expose-gc (which would change nothing else, but
  // the bench starts the gateway as users do): the flag set at run time reaches a new context's global.
  let gc;
  process.on('SIGWINCH', () => {
    if (!gc) {
      v8.setFlagsFromString('--expose-gc');
      gc = vm.runInNewContext('gc');
    }
    const t0 = performance.now();
    gc();
    gc();
    const m = process.memoryUsage();
    const after = { heapUsedMiB: m.heapUsed / MiB, heapTotalMiB: m.heapTotal / MiB, externalMiB: m.external / MiB, arrayBuffersMiB: m.arrayBuffers / MiB, rssMiB: m.rss / MiB };
    appendFileSync(file, JSON.stringify({ at: Date.now(), gc: { ...after, gcMs: performance.now() - t0 } }) + '\n');
  });

  process.on('SIGUSR2', () => {
    const report = { at: Date.now(), samples, peak: { ...peak, maxPoolSockets, maxOtherTcpHandles }, now: sample(), majorGcs };
    appendFileSync(file, JSON.stringify(report) + '\n');
    majorGcs = [];
    peak = sample();
    samples = 0;
    maxPoolSockets = 0;
    maxOtherTcpHandles = 0;
  });
}
