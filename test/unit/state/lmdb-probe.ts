// A separate OS process for lmdb-loading.test.ts: builds the whole app on the backend given in argv
// (memory, or file in the directory given), runs the start-up ping, then prints one JSON line saying
// whether lmdb was loaded — seen two ways: a module resolve hook recording every URL imported, and the
// shared objects (native addons) the process has mapped.
import { MessageChannel } from 'node:worker_threads';
import { register } from 'node:module';

const [backend, dir] = process.argv.slice(2);

// Resolve hooks run on the loader thread: each resolved URL comes back over a port, in order.
const HOOK = `
let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  port.postMessage(result.url);
  return result;
}`;
const { port1, port2 } = new MessageChannel();
const urls: string[] = [];
port1.on('message', (url: string) => urls.push(url));
register('data:text/javascript,' + encodeURIComponent(HOOK), { data: { port: port2 }, transferList: [port2] });

const { buildApp } = await import('../../../src/app.js');
const { resolveConfig } = await import('../../../src/config/load-config.js');
const { connectStateStore } = await import('../../../src/state/create-state-store.js');

const config = resolveConfig(
  { auth: { open: true }, providers: { p: { protocol: 'demo' } }, models: { m: { provider: 'p' } }, state: backend === 'file' ? { backend, path: dir } : { backend } },
  'probe',
);
const built = buildApp(config);
await built.app.ready();
await connectStateStore(built.ctx.stateStore, config);

// A last import whose URL marks the end: every URL resolved before it has reached the port by then.
const SENTINEL = 'data:text/javascript,export default "end of probe"';
await import(SENTINEL);
await new Promise<void>((done) => {
  const check = () => (urls.includes(SENTINEL) ? done() : setTimeout(check, 5));
  check();
});
port1.close();

const lmdbModules = urls.filter((u) => /\/node_modules\/(lmdb|@lmdb)\//.test(u));
const report = process.report.getReport() as unknown as { sharedObjects: string[] };
const lmdbAddons = report.sharedObjects.filter((p) => /lmdb/.test(p));
await built.app.close();
process.stdout.write(JSON.stringify({ backend: built.ctx.stateStore.backend, resolved: urls.length, lmdbModules, lmdbAddons }) + '\n');
