// An answer cut to the caller's own output limit when the upstream could not be asked for so little
// (mapping.md §15.54): OpenAI Responses takes `max_output_tokens` ≥ 16, a Messages caller may ask for
// `max_tokens: 1`. The upstream is asked for its minimum; the caller receives at most `maxTokens`
// tokens' worth of it, measured as the estimator measures (CHARS_PER_TOKEN characters a token, which
// real tokenizers exceed, so the cut text stays within the limit), with the finish `max_tokens` when
// anything was cut. Usage passes unchanged: the tokens the upstream generated and billed.
import { CHARS_PER_TOKEN } from './estimate-tokens.js';
import type { IrEvent } from './types.js';

/** A sink that forwards `emit` the events of an answer cut to `maxTokens`. */
export function capOutput(maxTokens: number, emit: (ev: IrEvent) => void): (ev: IrEvent) => void {
  return new OutputCap(maxTokens * CHARS_PER_TOKEN, emit).push;
}

class OutputCap {
  /** Blocks whose start went out (later ones are dropped whole). */
  private readonly open = new Set<number>();
  /** Tool-call blocks: the argument text delivered so far, and whether it was cut. */
  private readonly args = new Map<number, string>();
  private readonly trimmed = new Set<number>();
  private cut = false;

  constructor(
    private left: number,
    private readonly emit: (ev: IrEvent) => void,
  ) {}

  readonly push = (ev: IrEvent): void => {
    switch (ev.type) {
      case 'text-start':
      case 'reasoning-start':
        if (this.left > 0) this.start(ev);
        return;
      case 'tool-call-start':
        if (this.left <= 0) {
          this.cut = true;
          return;
        }
        this.left = Math.max(0, this.left - ev.name.length);
        this.args.set(ev.block, '');
        this.start(ev);
        return;
      case 'text-delta':
      case 'reasoning-delta': {
        if (!this.open.has(ev.block)) {
          if (ev.text !== '') this.cut = true;
          return;
        }
        const text = this.take(ev.text);
        if (text !== '') this.emit(text === ev.text ? ev : { ...ev, text });
        return;
      }
      case 'tool-call-delta': {
        if (!this.open.has(ev.block)) return;
        const part = this.take(ev.argumentsDelta);
        if (part.length < ev.argumentsDelta.length) this.trimmed.add(ev.block);
        this.args.set(ev.block, this.args.get(ev.block)! + part);
        if (part !== '') this.emit(part === ev.argumentsDelta ? ev : { ...ev, argumentsDelta: part });
        return;
      }
      case 'tool-call-end': {
        if (!this.open.has(ev.block)) return;
        const sent = this.args.get(ev.block)!;
        if (this.trimmed.has(ev.block)) this.emit({ ...ev, arguments: sent });
        else if (sent === '' && ev.arguments !== undefined && ev.arguments !== '') {
          // Arguments that came only with the end: cut here.
          const whole = this.take(ev.arguments);
          this.emit(whole === ev.arguments ? ev : { ...ev, arguments: whole });
        } else this.emit(ev);
        return;
      }
      case 'text-end':
      case 'reasoning-end':
      case 'reasoning-part-break':
        if (this.open.has(ev.block)) this.emit(ev);
        return;
      case 'finish':
        this.emit(this.cut ? { type: 'finish', finish: { reason: 'max_tokens', raw: ev.finish.raw } } : ev);
        return;
      case 'response-start':
      case 'usage':
      case 'error':
        this.emit(ev);
        return;
      default: {
        const never: never = ev;
        return never;
      }
    }
  };

  private start(ev: IrEvent & { block: number }): void {
    this.open.add(ev.block);
    this.emit(ev);
  }

  /** As much of `text` as the budget allows (never half a surrogate pair); notes a cut. */
  private take(text: string): string {
    if (text.length <= this.left) {
      this.left -= text.length;
      return text;
    }
    if (text !== '') this.cut = true;
    let n = this.left;
    const code = n > 0 ? text.charCodeAt(n - 1) : 0;
    if (code >= 0xd800 && code <= 0xdbff) n--;
    this.left = 0;
    return text.slice(0, n);
  }
}
