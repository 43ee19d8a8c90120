// Folds IR stream events into an IrResult. Used for non-streamed callers (so both modes agree by
// construction) and by encoders that must repeat the whole output in a terminal event.
import type { Finish, IrEvent, IrResult, OutputPart, ReasoningPart, StreamErrorInfo, TextPart, ToolCallPart, Usage } from './types.js';
import { emptyUsage } from './types.js';
import { keepFlat } from './keep-flat.js';

export class EventFolder {
  id = '';
  model = '';
  readonly content: OutputPart[] = [];
  usage: Usage = emptyUsage();
  finish: Finish | undefined;
  error: StreamErrorInfo | undefined;
  /** The part currently open (blocks are sequential, so one at a time). */
  private open: OutputPart | undefined;
  /** Deltas appended so far (keepFlat). */
  private appends = 0;

  push(ev: IrEvent): void {
    switch (ev.type) {
      case 'response-start':
        this.id = ev.id;
        this.model = ev.model;
        if (ev.usage) this.usage = { ...ev.usage };
        return;
      case 'text-start': {
        const part: TextPart = ev.refusal ? { type: 'text', text: '', refusal: true } : { type: 'text', text: '' };
        this.content.push(part);
        this.open = part;
        return;
      }
      case 'text-delta':
        if (this.open?.type === 'text') this.open.text = keepFlat(this.open.text + ev.text, ++this.appends);
        return;
      case 'reasoning-start': {
        const part: ReasoningPart = { type: 'reasoning', text: '' };
        this.content.push(part);
        this.open = part;
        return;
      }
      case 'reasoning-delta':
        if (this.open?.type === 'reasoning') this.open.text = keepFlat(this.open.text + ev.text, ++this.appends);
        return;
      case 'reasoning-part-break':
        if (this.open?.type === 'reasoning' && this.open.text !== '') this.open.text += '\n\n';
        return;
      case 'reasoning-end':
        if (this.open?.type === 'reasoning' && ev.carry) this.open.carry = ev.carry;
        this.open = undefined;
        return;
      case 'tool-call-start': {
        const part: ToolCallPart = { type: 'tool-call', id: ev.id, name: ev.name, arguments: '', kind: ev.kind };
        if (ev.namespace) part.namespace = ev.namespace;
        this.content.push(part);
        this.open = part;
        return;
      }
      case 'tool-call-delta':
        if (this.open?.type === 'tool-call') this.open.arguments = keepFlat(this.open.arguments + ev.argumentsDelta, ++this.appends);
        return;
      case 'tool-call-end':
        if (this.open?.type === 'tool-call' && ev.arguments !== undefined) this.open.arguments = ev.arguments;
        this.open = undefined;
        return;
      case 'text-end':
        this.open = undefined;
        return;
      case 'usage':
        this.usage = ev.usage;
        return;
      case 'finish':
        this.finish = ev.finish;
        return;
      case 'error':
        this.error = ev.error;
        return;
      default: {
        const never: never = ev;
        return never;
      }
    }
  }

  /** The folded result; a stream that ended without `finish` reports `other`. */
  result(): IrResult {
    return {
      id: this.id,
      model: this.model,
      content: this.content,
      finish: this.finish ?? { reason: 'other', raw: null },
      usage: this.usage,
    };
  }
}

export function foldEvents(events: Iterable<IrEvent>): IrResult {
  const folder = new EventFolder();
  for (const ev of events) folder.push(ev);
  return folder.result();
}
