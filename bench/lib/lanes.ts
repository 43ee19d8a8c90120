// The gateway's lanes under test, and the systems measured against each other for them.
import type { Protocol } from '../request-bodies.js';

export interface Lane {
  /** Command-line id, e.g. `messages-chat`. */
  id: string;
  /** Printed label, e.g. `messages→chat`. */
  label: string;
  door: Protocol;
  upstream: Protocol;
  kind: 'pass-through' | 'translation';
}

function lane(door: Protocol, upstream: Protocol): Lane {
  return {
    id: `${door}-${upstream}`,
    label: `${door}→${upstream}`,
    door,
    upstream,
    kind: door === upstream ? 'pass-through' : 'translation',
  };
}

export const LANES: Lane[] = [
  lane('messages', 'messages'),
  lane('responses', 'responses'),
  lane('messages', 'responses'),
  lane('responses', 'messages'),
  lane('messages', 'chat'),
  lane('responses', 'chat'),
  lane('messages', 'gemini'),
  lane('responses', 'gemini'),
  // The Chat Completions and Gemini doors (issues 34 and 35): each door's pass-through, then into the other three.
  lane('chat', 'chat'),
  lane('chat', 'messages'),
  lane('chat', 'responses'),
  lane('chat', 'gemini'),
  lane('gemini', 'gemini'),
  lane('gemini', 'messages'),
  lane('gemini', 'responses'),
  lane('gemini', 'chat'),
];

/** Lanes whose gateway is also measured with metrics off (one per lane kind keeps the suite short). */
export const METRICS_LANES = ['messages-messages', 'responses-chat'];

/** The model name each fake upstream sees (the gateway maps `m-<protocol>` to it). */
export const UPSTREAM_MODEL: Record<Protocol, string> = {
  messages: 'claude-bench',
  responses: 'gpt-bench',
  chat: 'chat-bench',
  gemini: 'gemini-bench',
};

/** Gateway model alias routed to the fake upstream of that protocol (paced: the paced upstream). */
export function gatewayModel(upstream: Protocol, paced: boolean): string {
  return `m-${upstream}${paced ? '-paced' : ''}`;
}

export type SystemKind = 'direct' | 'floor' | 'json-floor' | 'gateway' | 'gateway-warn' | 'gateway-nometrics' | 'gateway-nostore';

/** The gateway as users run it (default config: request log line at `info`, metrics on), and the
 * variants measured beside it: `log.level: warn`, metrics off, and (same process as the default, on
 * Responses-door lanes) requests that send `store: false`. */
export type GatewayVariant = 'gateway' | 'gateway-warn' | 'gateway-nometrics' | 'gateway-nostore';

/**
 * One system measured for one protocol pair: DIRECT, FLOOR and JSON-FLOOR depend only on the upstream
 * protocol (DIRECT and FLOOR carry the upstream protocol's request, JSON-FLOOR the same with the
 * gateway's model alias, which it maps), the gateway on the lane.
 */
export interface Cell {
  key: string;
  system: SystemKind;
  /** Protocol of the request sent (the door for the gateway, the upstream's own for DIRECT/FLOOR). */
  door: Protocol;
  upstream: Protocol;
  lane?: Lane;
}

export function baselineCells(upstreams: Iterable<Protocol>): Cell[] {
  const cells: Cell[] = [];
  for (const p of upstreams) {
    cells.push({ key: `direct:${p}`, system: 'direct', door: p, upstream: p });
    cells.push({ key: `floor:${p}`, system: 'floor', door: p, upstream: p });
    cells.push({ key: `json-floor:${p}`, system: 'json-floor', door: p, upstream: p });
  }
  return cells;
}

export function gatewayCell(lane: Lane, variant: GatewayVariant = 'gateway'): Cell {
  return { key: `${variant}:${lane.id}`, system: variant, door: lane.door, upstream: lane.upstream, lane };
}
