// One real coding client, one agent-loop turn, through the real gateway to one scripted upstream protocol:
//   client ──▶ recording proxy ──▶ gateway (buildApp) ──▶ scripted upstream (agentLoopReply)
// The evidence (client output, every gateway exchange, every upstream request, egress attempts, the proof file)
// is checked in protocol order so a failure names the first event or field that went wrong.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MODELS, startHarness, type UpstreamProtocol } from '../gateway-harness.js';
import { setAwsEnv, startBedrockHarness } from '../bedrock/gateway.js';
import type { BedrockReceived } from '../bedrock/server.js';
import { agentLoopReply, type ReceivedRequest, type Reply } from '../scripted-upstream/index.js';
import { CLIENTS, PROOF_FILE, PROOF_TEXT, routeLabel, type AgentLoopEvidence, type ClientName, type UpstreamTurn } from './agent-loop-checks.js';
import { runBounded, tail } from './bounded-process.js';
import { runClaudeCode } from './claude-code.js';
import { runCodex } from './codex.js';
import { runGeminiCli } from './gemini-cli.js';
import { runOpencode } from './opencode.js';
import { runQwenCode } from './qwen-code.js';
import { startEgressTrap, startRecordingProxy } from './recording-proxy.js';
import { makeSandbox } from './sandbox.js';

export { assertAgentLoop, findProblems, dossier } from './agent-loop-checks.js';
export type { AgentLoopEvidence, ClientName } from './agent-loop-checks.js';

/** The key the gateway is configured with and the clients present (x-api-key for Claude Code, Bearer for Codex). */
export const CLIENT_TEST_KEY = 'sk-switchyard-client-tests-0001';
export const PROMPT = `Use your shell tool to write ${PROOF_TEXT} into ${PROOF_FILE} in the current directory, then tell me exactly what the command printed.`;

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const base62 = (n: number) => [...randomBytes(n)].map((b) => BASE62[b % 62]).join('');

/** Vendor-shaped call ids per upstream family. */
function upstreamCallId(protocol: UpstreamProtocol): string {
  return protocol === 'messages' ? `toolu_01${base62(22)}` : `call_${base62(24)}`;
}

const preflights = new Map<string, Promise<void>>();

/** `<binary> --version` once per process, so "cannot run here at all" (wrong libc, no exec permission…) is reported
 *  as such, with the binary's own words, rather than as a failed agent loop. */
function preflight(client: ClientName, path: string): Promise<void> {
  let check = preflights.get(path);
  if (!check) {
    check = (async () => {
      const info = CLIENTS[client];
      const run = await runBounded(path, ['--version'], { cwd: tmpdir(), env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir() }, timeoutMs: 30_000 });
      if (run.spawnError || run.timedOut || run.exitCode !== 0)
        throw new Error(
          `${info.label} cannot run on this machine: \`${path} --version\` ${run.spawnError ?? (run.timedOut ? 'timed out' : `exited ${run.exitCode}`)}\n${tail(run.stderr || run.stdout, 2000)}`,
        );
    })();
    preflights.set(path, check);
  }
  return check;
}

/** Runs the client once against a fresh gateway + scripted upstream; never throws for gateway misbehaviour
 *  (that is what the evidence is for), only when the client cannot run on this machine at all. */
export interface AgentLoopOptions {
  timeoutMs: number;
  platform?: 'bedrock';
  /** Extra model routes (alias or pattern → the same upstream), for clients that pick model ids of their own. */
  extraRoutes?: string[];
  /** The deployment's model name instead of the harness's (e.g. a Gemini 3 name, whose signature rules differ). */
  upstreamModel?: string;
}

/** The harness's own routes plus `extra` names pointing at the same upstream deployment as `alias`. */
function routesWith(upstreamProtocol: UpstreamProtocol, extra: string[], upstreamModel: string): Record<string, unknown> {
  const models: Record<string, unknown> = {};
  for (const [protocol, m] of Object.entries(MODELS)) models[m.alias] = { provider: `up-${protocol}`, model: protocol === upstreamProtocol ? upstreamModel : m.upstream };
  for (const name of extra) models[name] = { provider: `up-${upstreamProtocol}`, model: upstreamModel };
  return models;
}

export async function runAgentLoop(client: ClientName, upstreamProtocol: UpstreamProtocol, opts: AgentLoopOptions): Promise<AgentLoopEvidence> {
  const info = CLIENTS[client];
  const binary = info.binary();
  if (!binary.path) throw new Error(`${info.label} cannot run on this machine: ${binary.problem ?? 'no binary found'}`);
  await preflight(client, binary.path);

  // Everything started is closed again, in reverse order, whatever fails on the way.
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    const auth = { keys: [{ name: 'client-tests', key: CLIENT_TEST_KEY }] };
    const upstreamModel = opts.upstreamModel ?? MODELS[upstreamProtocol].upstream;
    let harness: Awaited<ReturnType<typeof startHarness>>;
    if (opts.platform === 'bedrock') {
      // The Messages alias on the scripted Bedrock, signed with credentials from the environment.
      const restore = setAwsEnv({ AWS_ACCESS_KEY_ID: BEDROCK_KEY_ID, AWS_SECRET_ACCESS_KEY: BEDROCK_SECRET });
      cleanups.push(async () => restore());
      harness = await startBedrockHarness({ bedrock: { credentials: { [BEDROCK_KEY_ID]: { secretAccessKey: BEDROCK_SECRET } } }, config: () => ({ auth }) });
    } else {
      const models = opts.extraRoutes?.length || opts.upstreamModel ? { models: routesWith(upstreamProtocol, opts.extraRoutes ?? [], upstreamModel) } : {};
      harness = await startHarness({ config: () => ({ auth, ...models }) });
    }
    cleanups.push(() => harness.close());
    const upstreamTurns: UpstreamTurn[] = [];
    harness.upstream.setDefault((req): Reply => {
      const reply = agentLoopReply(req);
      if (reply.kind !== 'reply') return reply;
      const blocks = reply.blocks.map((b) => (b.type === 'tool-call' && !b.id ? { ...b, id: upstreamCallId(req.protocol) } : b));
      upstreamTurns.push({ request: req, blocks });
      return { ...reply, blocks };
    });
    const proxy = await startRecordingProxy(harness.url);
    cleanups.push(() => proxy.close());
    const trap = await startEgressTrap();
    cleanups.push(() => trap.close());
    const sandbox = await makeSandbox(`${client}-${upstreamProtocol}`, { egressProxyUrl: trap.url });
    cleanups.push(() => sandbox.cleanup());
    const ev: AgentLoopEvidence = {
      client,
      upstreamProtocol,
      alias: MODELS[upstreamProtocol].alias,
      upstreamModel,
      route: routeLabel(client, upstreamProtocol, MODELS[upstreamProtocol].alias, binary.version) + (opts.platform === 'bedrock' ? ' on Amazon Bedrock' : ''),
      clientVersion: binary.version,
      exchanges: proxy.exchanges,
      upstream: harness.upstream.received,
      upstreamTurns,
      egress: trap.attempts,
      clientKey: CLIENT_TEST_KEY,
    };
    const common = { sandbox, baseUrl: proxy.url, apiKey: CLIENT_TEST_KEY, model: MODELS[upstreamProtocol].alias, prompt: PROMPT, timeoutMs: opts.timeoutMs };
    if (client === 'claude-code') {
      const result = await runClaudeCode(binary.path, common);
      ev.run = result.run;
      ev.finalAnswer = typeof result.json?.result === 'string' ? result.json.result : undefined;
      if (!result.json) ev.clientReportedError = 'stdout is not the --output-format json result';
      else if (result.json.is_error || result.json.subtype !== 'success') ev.clientReportedError = `result ${result.json.subtype}, is_error=${String(result.json.is_error)}: ${String(result.json.result ?? '')}`;
    } else if (client === 'gemini-cli') {
      const result = await runGeminiCli(binary.path, common);
      ev.run = result.run;
      ev.finalAnswer = typeof result.json?.response === 'string' ? result.json.response : undefined;
      if (!result.json) ev.clientReportedError = 'stdout is not the --output-format json result';
      else if (result.json.error) ev.clientReportedError = `error ${JSON.stringify(result.json.error)}`;
    } else if (client === 'qwen-code' || client === 'qwen-code-responses' || client === 'qwen-code-messages') {
      const mode = client === 'qwen-code' ? 'openai' : client === 'qwen-code-responses' ? 'openai-responses' : 'anthropic';
      const result = await runQwenCode(binary.path, { ...common, mode });
      ev.run = result.run;
      const final = result.events.find((e) => e.type === 'result');
      ev.finalAnswer = typeof final?.result === 'string' ? final.result : undefined;
      if (!final) ev.clientReportedError = 'no stream-json result event';
      else if (final.is_error || final.subtype !== 'success') ev.clientReportedError = `result ${final.subtype}, is_error=${String(final.is_error)}: ${JSON.stringify(final.error ?? final.result ?? '')}`;
    } else if (client === 'opencode') {
      const result = await runOpencode(binary.path, common);
      ev.run = result.run;
      // Its exit code does not show an API error: its JSON events do.
      const texts = result.events.filter((e) => e.type === 'text' && typeof e.part?.text === 'string').map((e) => e.part.text as string);
      ev.finalAnswer = texts[texts.length - 1];
      const failed = result.events.find((e) => e.type === 'error');
      if (failed) ev.clientReportedError = `error: ${JSON.stringify(failed.error ?? failed)}`;
    } else {
      const result = await runCodex(binary.path, common);
      ev.run = result.run;
      const messages = result.events.filter((e) => e.type === 'item.completed' && e.item?.type === 'agent_message');
      ev.finalAnswer = result.lastMessage ?? messages[messages.length - 1]?.item?.text;
      const failed = result.events.find((e) => e.type === 'turn.failed' || e.type === 'error');
      if (failed) ev.clientReportedError = `${failed.type}: ${JSON.stringify(failed.error ?? failed.message ?? failed)}`;
    }
    try {
      ev.proofFile = readFileSync(join(sandbox.work, PROOF_FILE), 'utf8');
    } catch {
      ev.proofFile = undefined;
    }
    if (opts.platform === 'bedrock') bedrockEvidence(ev);
    return ev;
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  }
}


const BEDROCK_KEY_ID = 'AKIACLIENTTESTS00001';
const BEDROCK_SECRET = 'client-tests-secret-for-the-scripted-bedrock';

/**
 * Bedrock's requests checked for what only Bedrock has (a SigV4 signature the fake verified, the model in
 * the path, anthropic_version and the betas in the body), then shown to the protocol checks as the
 * first-party requests they stand for: the model from the path, the betas as the header they came from,
 * CountTokens under the count path the checks skip.
 */
function bedrockEvidence(ev: AgentLoopEvidence): void {
  const problems: string[] = [];
  const seen = new Map<ReceivedRequest, ReceivedRequest>();
  ev.upstream = (ev.upstream as BedrockReceived[]).map((r, i) => {
    if (r.auth !== 'sigv4') problems.push(`Bedrock request ${i + 1} was not SigV4-signed (${r.auth})`);
    if (r.operation !== 'count-tokens') {
      if (r.body?.model !== undefined) problems.push(`Bedrock request ${i + 1} body carries model ${JSON.stringify(r.body.model)} (Bedrock takes it from the path)`);
      if (r.body?.anthropic_version !== 'bedrock-2023-05-31') problems.push(`Bedrock request ${i + 1} body anthropic_version is ${JSON.stringify(r.body?.anthropic_version)}`);
      if (r.headers['anthropic-beta'] !== undefined) problems.push(`Bedrock request ${i + 1} still sends the anthropic-beta header (Bedrock reads anthropic_beta in the body)`);
    }
    const betas = Array.isArray(r.body?.anthropic_beta) ? (r.body.anthropic_beta as string[]).join(',') : undefined;
    const view: ReceivedRequest = {
      ...r,
      path: r.operation === 'count-tokens' ? '/v1/messages/count_tokens' : '/v1/messages',
      headers: { ...r.headers, ...(betas !== undefined ? { 'anthropic-beta': betas } : {}) },
      body: r.operation === 'count-tokens' ? r.invokeBody : { ...r.body, model: r.modelId },
    };
    seen.set(r, view);
    return view;
  });
  ev.upstreamTurns = ev.upstreamTurns.map((t) => ({ ...t, request: seen.get(t.request) ?? t.request }));
  ev.platformProblems = problems;
}
