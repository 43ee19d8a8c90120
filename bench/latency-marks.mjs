// Where one request's time goes inside a Node proxy (the gateway or FLOOR), for bench/latency-ab.ts --marks:
// preloaded with `node --import bench/latency-marks.mjs`, active only when LATENCY_MARKS_FILE is set. Per
// request (one at a time, as at a low rate) it takes the time of: the server's `request` event (headers
// parsed), fastify's route handler start, undici creating the upstream request, undici writing it, the
// upstream answer's headers and its end, and the reply's `end()` call (before and after), plus the
// process's CPU time over the request, from node's own diagnostics channels (no product code involved).
// Every second the finished requests are appended to the file as JSON lines of phase durations (µs).
// Not a product part.
import dc from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';
import http from 'node:http';

const file = process.env.LATENCY_MARKS_FILE;
if (file) {
  let cur = null;
  let rows = [];
  const mark = (key) => () => {
    if (cur !== null && cur[key] === undefined) cur[key] = performance.now();
  };
  dc.subscribe('http.server.request.start', ({ request }) => {
    if (request.method !== 'POST') return;
    cur = { in: performance.now(), cpu: process.cpuUsage() };
    request.latencyMarks = cur;
  });
  dc.subscribe('tracing:fastify.request.handler:start', mark('handler'));
  dc.subscribe('undici:request:create', mark('create'));
  dc.subscribe('undici:client:sendHeaders', mark('write'));
  dc.subscribe('undici:request:headers', mark('headers'));
  dc.subscribe('undici:request:trailers', mark('complete'));
  const end = http.ServerResponse.prototype.end;
  http.ServerResponse.prototype.end = function (...args) {
    const m = this.req?.latencyMarks;
    const t = performance.now();
    const r = end.apply(this, args);
    if (m && m.headers !== undefined && m.end === undefined) {
      m.end = t;
      m.ended = performance.now();
      const c = process.cpuUsage(m.cpu);
      const us = (a, b) => (a === undefined || b === undefined ? null : Math.round((b - a) * 1000));
      rows.push({
        // FLOOR has no handler: its first phase runs to the upstream request's creation.
        preHandler: us(m.in, m.handler ?? m.create),
        handlerToUpstream: m.handler === undefined ? 0 : us(m.handler, m.create),
        createToWrite: us(m.create, m.write),
        upstream: us(m.write, m.headers),
        answerToEnd: us(m.headers, m.end),
        endCall: us(m.end, m.ended),
        total: us(m.in, m.ended),
        cpu: c.user + c.system,
      });
    }
    return r;
  };
  setInterval(() => {
    if (rows.length === 0) return;
    appendFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    rows = [];
  }, 1000).unref();
}
