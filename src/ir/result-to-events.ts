// The inverse of foldEvents: a complete result as the event sequence a stream would have carried
// (one delta per block). Used when a streaming caller is served from a non-streamed upstream answer.
import type { IrEvent, IrResult } from './types.js';

export function resultToEvents(result: IrResult, emit: (ev: IrEvent) => void): void {
  emit({ type: 'response-start', id: result.id, model: result.model });
  let block = 0;
  for (const part of result.content) {
    switch (part.type) {
      case 'text':
        emit(part.refusal ? { type: 'text-start', block, refusal: true } : { type: 'text-start', block });
        if (part.text) emit({ type: 'text-delta', block, text: part.text });
        emit({ type: 'text-end', block });
        break;
      case 'reasoning':
        emit({ type: 'reasoning-start', block });
        if (part.text) emit({ type: 'reasoning-delta', block, text: part.text });
        emit({ type: 'reasoning-end', block, carry: part.carry });
        break;
      case 'tool-call':
        emit(
          part.namespace
            ? { type: 'tool-call-start', block, id: part.id, name: part.name, kind: part.kind, namespace: part.namespace }
            : { type: 'tool-call-start', block, id: part.id, name: part.name, kind: part.kind },
        );
        if (part.arguments) emit({ type: 'tool-call-delta', block, argumentsDelta: part.arguments });
        emit({ type: 'tool-call-end', block, arguments: part.arguments });
        break;
      default: {
        const never: never = part;
        return never;
      }
    }
    block++;
  }
  emit({ type: 'usage', usage: result.usage });
  emit({ type: 'finish', finish: result.finish });
}
