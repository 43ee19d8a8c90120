// Keeps every metric label value inside a bounded set, whatever callers, configs or upstreams send.
// A Prometheus series per distinct value means an unbounded label is a memory leak on both sides.
import { ERROR_KINDS } from '../errors.js';

export const OTHER = 'other';

/**
 * A label whose values come from configuration (model aliases, provider names, upstream models).
 * With an allow-list (from the config), anything else is "other"; without one, the first `cap`
 * distinct values are kept and later ones become "other". Either way at most `cap` + a few values.
 */
export class BoundedLabel {
  private allowed: Set<string> | undefined;
  private readonly seen = new Set<string>();

  constructor(
    readonly cap: number,
    /** Values always accepted (e.g. "none" for "not routed yet"). */
    private readonly always: readonly string[] = [],
    readonly maxLength = 128,
  ) {}

  /** Replace the allow-list (on start and on config reload); undefined = first-come up to the cap. */
  allow(values: Iterable<string> | undefined): void {
    if (values === undefined) {
      this.allowed = undefined;
      return;
    }
    const set = new Set<string>();
    for (const v of values) {
      if (set.size >= this.cap) break;
      if (v.length <= this.maxLength) set.add(v);
    }
    this.allowed = set;
  }

  value(raw: string): string {
    if (this.always.includes(raw)) return raw;
    if (this.allowed) return this.allowed.has(raw) ? raw : OTHER;
    if (this.seen.has(raw)) return raw;
    if (this.seen.size >= this.cap || raw.length === 0 || raw.length > this.maxLength) return OTHER;
    this.seen.add(raw);
    return raw;
  }
}

const WARNING_FIELD_MAX = 64;
const INDEX_SEGMENT = /(^|[.[])\d+(?=$|[.\]])/g;
const UNSAFE_FIELD_CHARS = /[^A-Za-z0-9_.*[\]-]/g;

/**
 * Translation-warning field names: array indexes collapse to "*" ("turns.3.parts.0" →
 * "turns.*.parts.*"), characters outside [A-Za-z0-9_.*[]-] are dropped, the length is capped, and
 * the number of distinct results is capped (later ones → "other").
 */
export class WarningFieldLabel {
  private readonly seen = new Set<string>();

  constructor(readonly cap = 64) {}

  value(field: string): string {
    const label = normaliseWarningField(field);
    if (label === '') return OTHER;
    if (this.seen.has(label)) return label;
    if (this.seen.size >= this.cap) return OTHER;
    this.seen.add(label);
    return label;
  }
}

export function normaliseWarningField(field: string): string {
  return field.slice(0, 256).replace(INDEX_SEGMENT, '$1*').replace(UNSAFE_FIELD_CHARS, '').slice(0, WARNING_FIELD_MAX);
}

const ERROR_KIND_SET = new Set<string>(ERROR_KINDS);

/** A GatewayErrorKind, "none" for no error, "other" for anything unexpected. */
export function errorTypeLabel(kind: string | undefined): string {
  if (kind === undefined) return 'none';
  return ERROR_KIND_SET.has(kind) ? kind : OTHER;
}

/** Outcome of one upstream attempt: "success" or an error kind. */
export function attemptOutcomeLabel(outcome: string): string {
  return outcome === 'success' ? outcome : errorTypeLabel(outcome);
}

const STATUS_CLASSES = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx'];

/** "2xx"…"5xx"; "none" when no status was sent (the caller left first). */
export function statusClassLabel(status: number): string {
  if (status < 100 || status > 599) return 'none';
  return STATUS_CLASSES[Math.floor(status / 100)]!;
}
