// The checks behind the client tests, in the order the protocol exchange happens, so that a failure names the
// first event or field that went wrong; and the dossier that goes into the assertion message.
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UpstreamProtocol } from '../gateway-harness.js';
import type { ReceivedRequest, ReplyBlock } from '../scripted-upstream/index.js';
import { tail, type BoundedRun } from './bounded-process.js';
import { claudeCodeBinary, type ClientBinary } from './claude-code.js';
import { codexBinary } from './codex.js';
import { geminiCliBinary } from './gemini-cli.js';
import { opencodeBinary } from './opencode.js';
import { qwenCodeBinary } from './qwen-code.js';
import type { EgressAttempt, GatewayExchange } from './recording-proxy.js';
import { readDoorAnswer, viewRequest, type Door, type DoorAnswer, type RequestView } from './wire.js';

export type ClientName = 'claude-code' | 'codex' | 'gemini-cli' | 'qwen-code' | 'qwen-code-responses' | 'qwen-code-messages' | 'opencode';

interface ClientInfo {
  label: string;
  door: Door;
  /** The door's generation endpoint, as shown in messages. */
  doorPath: string;
  /** Whether a request URL is one of the client's agent-loop turns on that door (not a side call). */
  isTurn: (path: string) => boolean;
  /** Whether the client sends back the opaque reasoning state it was given (thinking signatures, encrypted
   *  reasoning, thought signatures, reasoning_details). A client that drops it is still served — the gateway then
   *  falls back (thinking off toward Anthropic, Google's stand-in signature toward Gemini) — so for such a
   *  client the round trip of that state is not asserted. */
  replaysOpaque: boolean;
  /** The client's shell tool, which agentLoopReply calls. */
  shellTool: string;
  binary: () => ClientBinary;
}

export const CLIENTS: Record<ClientName, ClientInfo> = {
  'claude-code': { label: 'Claude Code', door: 'messages', doorPath: '/v1/messages', isTurn: (p) => p === '/v1/messages', replaysOpaque: true, shellTool: 'Bash', binary: claudeCodeBinary },
  codex: { label: 'Codex', door: 'responses', doorPath: '/v1/responses', isTurn: (p) => p === '/v1/responses', replaysOpaque: true, shellTool: 'exec_command', binary: codexBinary },
  'gemini-cli': {
    label: 'Gemini CLI',
    door: 'gemini',
    doorPath: '/v1beta/models/{model}:streamGenerateContent',
    isTurn: (p) => /^\/v1beta\/models\/[^/:]+:streamGenerateContent$/.test(p),
    replaysOpaque: true,
    shellTool: 'run_shell_command',
    binary: geminiCliBinary,
  },
  'qwen-code': { label: 'Qwen Code', door: 'chat', doorPath: '/v1/chat/completions', isTurn: (p) => p === '/v1/chat/completions', replaysOpaque: false, shellTool: 'run_shell_command', binary: qwenCodeBinary },
  'qwen-code-responses': {
    label: 'Qwen Code (openai-responses)',
    door: 'responses',
    doorPath: '/v1/responses',
    isTurn: (p) => p === '/v1/responses',
    // store:false without include: reasoning.encrypted_content, and no reasoning items in its history.
    replaysOpaque: false,
    shellTool: 'run_shell_command',
    binary: qwenCodeBinary,
  },
  // It drops redacted_thinking blocks from its history, so the opaque state is not asserted to come back.
  'qwen-code-messages': { label: 'Qwen Code (anthropic)', door: 'messages', doorPath: '/v1/messages', isTurn: (p) => p === '/v1/messages', replaysOpaque: false, shellTool: 'run_shell_command', binary: qwenCodeBinary },
  opencode: { label: 'opencode', door: 'chat', doorPath: '/v1/chat/completions', isTurn: (p) => p === '/v1/chat/completions', replaysOpaque: false, shellTool: 'bash', binary: opencodeBinary },
};

/** The event that ends a door's answer, for messages. */
const TERMINAL: Record<Door, string> = { messages: 'message_stop', responses: 'response.completed', chat: 'data: [DONE]', gemini: 'a finishReason' };
/** Where a door carries the opaque reasoning state, for messages. */
const OPAQUE_FIELD: Record<Door, string> = { messages: 'thinking.signature', responses: 'reasoning.encrypted_content', chat: 'reasoning_details', gemini: 'thoughtSignature' };

export const PROTOCOL_LABEL: Record<UpstreamProtocol, string> = { messages: 'Anthropic Messages', responses: 'OpenAI Responses', chat: 'Chat Completions', gemini: 'Google Gemini' };

export const PROOF_FILE = 'switchyard-proof.txt';
export const PROOF_TEXT = 'switchyard-ok';

/** What the scripted upstream answered to one request (tool-call ids fixed so the round trip is checkable). */
export interface UpstreamTurn {
  request: ReceivedRequest;
  blocks: ReplyBlock[];
}

export interface AgentLoopEvidence {
  client: ClientName;
  upstreamProtocol: UpstreamProtocol;
  /** The gateway alias the client asked for, and the model name the upstream must receive. */
  alias: string;
  upstreamModel: string;
  route: string;
  clientVersion?: string;
  run?: BoundedRun;
  /** The client's own final answer (Claude Code's JSON `result`, Codex's last agent message). */
  finalAnswer?: string;
  /** Client-side failure it reported in its own output (is_error, turn.failed…). */
  clientReportedError?: string;
  exchanges: GatewayExchange[];
  upstream: ReceivedRequest[];
  upstreamTurns: UpstreamTurn[];
  egress: EgressAttempt[];
  proofFile?: string;
  /** The key the client presented to the gateway: it must never travel upstream. */
  clientKey?: string;
  /** Problems found by the route's own checks (a cloud platform's envelope and auth), reported first. */
  platformProblems?: string[];
  /** Where the full evidence was written when the run failed. */
  dumpPath?: string;
}

export function routeLabel(client: ClientName, upstream: UpstreamProtocol, alias: string, version?: string): string {
  const c = CLIENTS[client];
  const lane = (c.door as string) === upstream ? 'pass-through lane' : 'translation lane';
  return `${c.label}${version ? ' ' + version : ''} → POST ${c.doorPath} → ${alias} → ${PROTOCOL_LABEL[upstream]} upstream (${lane})`;
}

// ───────────────────────────── checks, in protocol order ─────────────────────────────

const pathOf = (url: string) => url.split('?')[0]!.replace(/\/+$/, '');
const isGeneration = (r: ReceivedRequest) => !/count_tokens|input_tokens|countTokens|^\/(v1\/)?models/.test(r.path);
const short = (s: unknown, n = 300) => {
  const t = typeof s === 'string' ? s : JSON.stringify(s);
  return t === undefined ? String(t) : t.length > n ? t.slice(0, n) + '…' : t;
};

/** Exchanges on the client's main endpoint (not count_tokens etc.), with the gateway's parsed answer. */
function doorTurns(ev: AgentLoopEvidence): { ex: GatewayExchange; index: number; view: RequestView; answer: DoorAnswer }[] {
  const door = CLIENTS[ev.client].door;
  return ev.exchanges
    .map((ex, index) => ({ ex, index }))
    .filter(({ ex }) => ex.method === 'POST' && CLIENTS[ev.client].isTurn(pathOf(ex.url)))
    .map(({ ex, index }) => ({ ex, index, view: viewRequest(door, ex.requestBody, pathOf(ex.url)), answer: readDoorAnswer(door, ex.responseText, ex.responseHeaders['content-type']) }))
    // Agent-loop turns carry the tools; a request without them is a side call (opencode's session title).
    .filter(({ view }) => view.toolNames.length > 0);
}

function statusProblem(ex: GatewayExchange, index: number): string | undefined {
  if (ex.error && ex.status === 0) return `gateway exchange #${index + 1} ${ex.method} ${ex.url}: ${ex.error}`;
  if (ex.status < 200 || ex.status >= 300) return `gateway answered ${ex.method} ${ex.url} (exchange #${index + 1}) with HTTP ${ex.status}: ${short(ex.responseText, 600)}`;
  return undefined;
}

/** Every problem found, first one first (in the order the protocol exchange happens). */
export function findProblems(ev: AgentLoopEvidence): string[] {
  const p: string[] = [...(ev.platformProblems ?? [])];
  const info = CLIENTS[ev.client];
  const up = ev.upstreamProtocol;
  const upModel = ev.upstreamModel;
  const run = ev.run;
  if (run?.spawnError) p.push(`${info.label} could not be started: ${run.spawnError}`);

  const turns = doorTurns(ev);
  // The upstream side of the agent-loop turns: generations that carry tools (side calls are checked below by status).
  const gen = ev.upstream.filter((r) => isGeneration(r) && viewRequest(r.protocol, r.body, r.path).toolNames.length > 0);
  const first = turns[0];
  // Side calls made before the first generation (count_tokens, models…) come first in time.
  ev.exchanges.slice(0, first ? first.index : 0).forEach((ex, i) => {
    const s = statusProblem(ex, i);
    if (s) p.push(s);
  });
  if (!first) {
    p.push(`${info.label} sent no POST ${info.doorPath} to the gateway (exchanges: ${ev.exchanges.map((e) => `${e.method} ${e.url} → ${e.status}`).join(', ') || 'none'})`);
  } else {
    // Turn 1: client → gateway → upstream → gateway → client.
    const s1 = statusProblem(first.ex, first.index);
    if (s1) p.push(s1);
    const u1 = gen[0];
    if (!u1) {
      if (!s1) p.push(`upstream received nothing for turn 1 although the gateway answered ${first.ex.status}`);
    } else {
      if (u1.protocol !== up) p.push(`upstream request 1 went to ${u1.method} ${u1.path} (${u1.protocol}), expected the ${PROTOCOL_LABEL[up]} endpoint`);
      const v1 = viewRequest(u1.protocol, u1.body, u1.path);
      if (v1.model !== upModel) p.push(`upstream request 1 field model is ${JSON.stringify(v1.model)}, expected ${JSON.stringify(upModel)}`);
      if (!v1.toolNames.includes(info.shellTool)) p.push(`upstream request 1 field tools lacks ${info.shellTool} (got ${short(v1.toolNames)})`);
      const header = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(',') : v);
      const clientBeta = header(first.ex.requestHeaders['anthropic-beta']);
      if ((info.door as string) === up && up === 'messages' && clientBeta && header(u1.headers['anthropic-beta']) !== clientBeta)
        p.push(`upstream request 1 header anthropic-beta is ${JSON.stringify(header(u1.headers['anthropic-beta']))}, expected the client's ${JSON.stringify(clientBeta)} (pass-through lane)`);
      if (ev.clientKey && JSON.stringify(u1.headers).includes(ev.clientKey)) p.push(`upstream request 1 headers carry the client's gateway key (it must stay at the gateway)`);
      // On the pass-through lane the client's own `include` goes up as sent (Qwen Code's Responses mode asks for none).
      const clientAsked = (info.door as string) !== 'responses' || first.view.includesEncryptedReasoning;
      if (up === 'responses' && clientAsked && !v1.includesEncryptedReasoning)
        p.push(`upstream request 1 field include lacks "reasoning.encrypted_content" (got ${short((u1.body as Record<string, unknown>)?.include)}), so the reasoning state cannot make the round trip under store:false`);
    }
    const a1 = first.answer;
    const issued = ev.upstreamTurns.find((t) => t.request === gen[0])?.blocks ?? [];
    const issuedCall = issued.find((b) => b.type === 'tool-call');
    const issuedReasoning = issued.find((b) => b.type === 'reasoning');
    if (!s1) {
      if (a1.malformed) p.push(`gateway answer 1 is malformed: ${a1.malformed}`);
      if (a1.error) p.push(`gateway answer 1 carried an error: ${a1.error}`);
      if (a1.toolCalls.length === 0) p.push(`gateway answer 1 has no tool call (events: ${short(a1.events.map((e) => e.event), 600)})`);
      else {
        const call = a1.toolCalls[0]!;
        if (call.name !== info.shellTool) p.push(`gateway answer 1 tool call name is ${JSON.stringify(call.name)}, expected ${info.shellTool}`);
        if (!call.arguments.includes(PROOF_FILE)) p.push(`gateway answer 1 tool call arguments lost the command: ${short(call.arguments)}`);
        const ownFamily = (info.door as string) === up;
        if (ownFamily && issuedCall?.type === 'tool-call' && call.id !== issuedCall.id)
          p.push(`gateway answer 1 (pass-through) changed the tool call id: upstream issued ${issuedCall.id}, client got ${call.id}`);
      }
      // A Responses upstream sends encrypted_content only when the request asked for it.
      const upstreamSentOpaque = up !== 'responses' || (gen[0] !== undefined && viewRequest(up, gen[0].body, gen[0].path).includesEncryptedReasoning);
      if (issuedReasoning?.type === 'reasoning' && (info.door as string) === up && up !== 'chat' && upstreamSentOpaque && issuedReasoning.opaque && !a1.opaque.includes(issuedReasoning.opaque))
        p.push(`gateway answer 1 (pass-through) altered the opaque reasoning state: upstream sent ${JSON.stringify(issuedReasoning.opaque)}, client got ${short(a1.opaque)}`);
      else if (issuedReasoning?.type === 'reasoning' && up !== 'chat' && upstreamSentOpaque && !a1.opaque.some((o) => o && o.length > 0))
        p.push(`gateway answer 1 carries no opaque reasoning state (${OPAQUE_FIELD[info.door]}) although the upstream returned ${JSON.stringify(issuedReasoning.opaque)}`);
      if (!a1.terminated) p.push(`gateway answer 1 ended without ${TERMINAL[info.door]} (last events: ${short(a1.events.slice(-4).map((e) => e.event))})`);
    }

    // Turn 2: the client sends the tool result back; the gateway must hand it to the upstream under the upstream's ids.
    const second = turns.find((t, i) => i > 0 && t.view.toolResults.length > 0);
    const callToClient = a1.toolCalls[0];
    if (!second) {
      if (!s1 && a1.toolCalls.length > 0) p.push(`${info.label} never sent the tool result back (${turns.length} request(s) to ${info.doorPath})`);
    } else {
      const r = second.view.toolResults[second.view.toolResults.length - 1]!;
      if (callToClient && r.id !== callToClient.id) p.push(`client's tool result refers to ${r.id}, but the gateway's tool call id was ${callToClient.id}`);
      if (info.replaysOpaque && a1.opaque.length > 0 && !a1.opaque.every((o) => second.view.opaque.includes(o)))
        p.push(`client request 2 did not replay the opaque reasoning state the gateway gave it (gave ${short(a1.opaque)}, replayed ${short(second.view.opaque)})`);
      const s2 = statusProblem(second.ex, second.index);
      if (s2) p.push(s2);
      const u2 = gen.find((g, i) => i > 0 && viewRequest(g.protocol, g.body, g.path).toolResults.length > 0);
      if (!u2) {
        if (!s2) p.push(`upstream never received the tool result (upstream requests: ${gen.length})`);
      } else {
        const v2 = viewRequest(u2.protocol, u2.body, u2.path);
        const res = v2.toolResults[v2.toolResults.length - 1]!;
        if (issuedCall?.type === 'tool-call') {
          if (res.id !== issuedCall.id) p.push(`upstream request 2 tool result id is ${JSON.stringify(res.id)}, but the upstream issued the call as ${JSON.stringify(issuedCall.id)}`);
          const hist = v2.historyCalls.find((c) => c.id === issuedCall.id);
          if (!hist) p.push(`upstream request 2 history has no tool call with the upstream's id ${issuedCall.id} (has ${short(v2.historyCalls)})`);
        }
        if (!res.text.includes(PROOF_TEXT)) p.push(`upstream request 2 tool result lost the command output: ${short(res.text)}`);
        if (issuedReasoning?.type === 'reasoning') {
          if (up === 'chat') {
            if (!v2.reasoningContent.includes(issuedReasoning.text))
              p.push(`upstream request 2 assistant message lacks reasoning_content ${JSON.stringify(issuedReasoning.text)} (echo_reasoning_content is on; got ${short(v2.reasoningContent)})`);
          } else if (info.replaysOpaque && issuedReasoning.opaque && !v2.opaque.includes(issuedReasoning.opaque)) {
            const knobs = `reasoning switches: client request 1 ${first.view.reasoningKnobs}, upstream request 1 ${viewRequest(up, gen[0]?.body, gen[0]?.path).reasoningKnobs}, upstream request 2 ${v2.reasoningKnobs}`;
            p.push(
              `upstream request 2 did not return the reasoning state to its own family: expected ${up === 'messages' ? 'a thinking block with signature' : 'a reasoning item with encrypted_content'} ${JSON.stringify(issuedReasoning.opaque)}, got ${short(v2.opaque)} (${knobs})`,
            );
          }
        }
      }
      const a2 = second.answer;
      if (!s2) {
        if (a2.malformed) p.push(`gateway answer 2 is malformed: ${a2.malformed}`);
        if (a2.error) p.push(`gateway answer 2 carried an error: ${a2.error}`);
        if (!a2.text.includes('Tool said:') || !a2.text.includes(PROOF_TEXT)) p.push(`gateway answer 2 text does not quote the tool output: ${short(a2.text)}`);
        if (!a2.terminated) p.push(`gateway answer 2 ended without ${TERMINAL[info.door]}`);
      }
    }
  }

  // Anything else the client called (count_tokens, models, session titles…) must be served, never a 4xx.
  ev.exchanges.forEach((ex, i) => {
    const s = statusProblem(ex, i);
    if (s && !p.includes(s)) p.push(s);
  });

  // The client's own view of the outcome.
  if (run?.timedOut) p.push(`${info.label} did not finish within the time limit (${run.durationMs} ms) and was killed`);
  else if (run && run.exitCode !== 0 && !run.spawnError) p.push(`${info.label} exited with code ${run.exitCode}${run.signal ? ` (signal ${run.signal})` : ''}`);
  if (ev.clientReportedError) p.push(`${info.label} reported: ${ev.clientReportedError}`);
  if (!ev.finalAnswer?.includes('Tool said:') || !ev.finalAnswer.includes(PROOF_TEXT)) p.push(`${info.label}'s final answer does not quote the tool output: ${short(ev.finalAnswer)}`);
  if (ev.proofFile === undefined) p.push(`the agent's shell command did not write ${PROOF_FILE} in the working directory`);
  else if (ev.proofFile.trim() !== PROOF_TEXT) p.push(`${PROOF_FILE} contains ${short(ev.proofFile)} instead of ${PROOF_TEXT}`);
  if (ev.egress.length > 0) p.push(`${info.label} tried to leave loopback: ${ev.egress.map((e) => `${e.method} ${e.target}`).join(', ')}`);
  return p;
}

/** Consecutive log lines that differ only by their leading timestamp are shown once, with a count. */
function collapseRepeats(text: string): string {
  const out: string[] = [];
  let last = '';
  let count = 0;
  const flush = () => {
    if (count > 1) out.push(`    (previous line ×${count})`);
  };
  for (const line of text.split('\n')) {
    const key = line.replace(/^\d{4}-\d\d-\d\dT[\d:.]+Z\s*/, '');
    if (key === last && key !== '') {
      count++;
      continue;
    }
    flush();
    out.push(line);
    last = key;
    count = 1;
  }
  flush();
  return out.join('\n');
}

function describeExchange(ex: GatewayExchange, i: number, door: Door, isTurn: (path: string) => boolean): string {
  const head = `  #${i + 1} ${ex.method} ${ex.url} → ${ex.status}${ex.error ? ` (${ex.error})` : ''} in ${ex.durationMs} ms`;
  if (ex.status >= 300 || ex.status === 0) return `${head}\n      body: ${short(ex.responseText, 1200)}`;
  if (ex.method !== 'POST' || !isTurn(pathOf(ex.url))) return `${head}  ${short(ex.responseText, 200)}`;
  const a = readDoorAnswer(door, ex.responseText, ex.responseHeaders['content-type']);
  const v = viewRequest(door, ex.requestBody, pathOf(ex.url));
  const events = a.events.map((e) => e.event).filter((e) => !/delta$/.test(e));
  return [
    head,
    `      request: ${v.reasoningKnobs} tools=${v.toolNames.length} toolResults=${short(v.toolResults.map((r) => r.id))} replayedOpaque=${short(v.opaque, 120)}`,
    `      answer: events=${short(events, 500)}`,
    `      answer: toolCalls=${short(a.toolCalls)} opaque=${short(a.opaque, 160)} text=${short(a.text, 200)} stop=${a.stop}${a.error ? ` error=${a.error}` : ''}${a.malformed ? ` malformed=${a.malformed}` : ''}`,
  ].join('\n');
}

function describeUpstream(r: ReceivedRequest, i: number, turns: UpstreamTurn[]): string {
  const v = viewRequest(r.protocol, r.body, r.path);
  const turn = turns.find((t) => t.request === r);
  const answered = turn ? turn.blocks.map((b) => (b.type === 'tool-call' ? `tool-call ${b.name} ${b.id}` : b.type === 'reasoning' ? `reasoning(opaque=${b.opaque})` : `text ${short(b.text, 80)}`)).join(', ') : 'n/a';
  return [
    `  #${i + 1} ${r.method} ${r.url} (${r.protocol}) model=${v.model} stream=${r.stream} ${v.reasoningKnobs}`,
    `      tools=${short(v.toolNames, 300)}`,
    `      historyCalls=${short(v.historyCalls)} toolResults=${short(v.toolResults.map((t) => ({ id: t.id, text: short(t.text, 60) })))} opaque=${short(v.opaque)} reasoning_content=${short(v.reasoningContent)}`,
    `      scripted answer: ${answered}`,
  ].join('\n');
}

/** The assertion message: route, first problem, then everything needed to see why. */
export function dossier(ev: AgentLoopEvidence, problems: string[]): string {
  const info = CLIENTS[ev.client];
  const run = ev.run;
  return [
    `${ev.route}`,
    `FIRST PROBLEM: ${problems[0] ?? 'none'}`,
    ...(problems.length > 1 ? ['Also:', ...problems.slice(1).map((x) => `  - ${x}`)] : []),
    '',
    `--- ${info.label}: exit=${run?.exitCode} signal=${run?.signal} timedOut=${run?.timedOut} ${run?.durationMs} ms`,
    `    argv: ${run ? short([run.command, ...run.args].join(' '), 400) : 'n/a'}`,
    `    final answer: ${short(ev.finalAnswer, 400)}`,
    `--- ${info.label} stdout (tail):`,
    tail(collapseRepeats(run?.stdout ?? ''), 3000),
    `--- ${info.label} stderr (tail):`,
    tail(collapseRepeats(run?.stderr ?? ''), 3000),
    `--- gateway exchanges as the client saw them (${ev.exchanges.length}):`,
    ...ev.exchanges.map((ex, i) => describeExchange(ex, i, info.door, info.isTurn)),
    `--- upstream received (${ev.upstream.length}):`,
    ...ev.upstream.map((r, i) => describeUpstream(r, i, ev.upstreamTurns)),
    `--- egress attempts: ${ev.egress.length ? ev.egress.map((e) => `${e.method} ${e.target}`).join(', ') : 'none'}`,
    `--- proof file: ${ev.proofFile === undefined ? 'missing' : JSON.stringify(ev.proofFile)}`,
    ...(ev.dumpPath ? [`--- full evidence (request/response bodies): ${ev.dumpPath}`] : []),
  ].join('\n');
}

/** Writes every body on both sides to a JSON file outside the repo, for reading after a failure. */
function dump(ev: AgentLoopEvidence): string | undefined {
  try {
    const dir = join(tmpdir(), 'switchyard-client-e2e');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${ev.client}-via-${ev.upstreamProtocol}-${Date.now()}.json`);
    const upstream = ev.upstream.map((r) => ({ ...r, answer: ev.upstreamTurns.find((t) => t.request === r)?.blocks }));
    writeFileSync(file, JSON.stringify({ route: ev.route, run: ev.run, exchanges: ev.exchanges, upstream, egress: ev.egress, proofFile: ev.proofFile }, null, 1));
    return file;
  } catch {
    return undefined;
  }
}

/** Throws one error naming the client, the route and the first problem, with the whole dossier, if anything is off. */
export function assertAgentLoop(ev: AgentLoopEvidence): void {
  const problems = findProblems(ev);
  // SWITCHYARD_CLIENT_E2E_VERBOSE=1 prints the dossier of passing runs too (what each side saw).
  if (process.env.SWITCHYARD_CLIENT_E2E_VERBOSE) console.log(dossier(ev, problems));
  if (problems.length === 0) return;
  ev.dumpPath = dump(ev);
  const error = new Error(dossier(ev, problems));
  error.name = 'AgentLoopFailure';
  throw error;
}
