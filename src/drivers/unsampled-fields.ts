// The sampling fields an upstream protocol has no place for (the Responses API and Anthropic have no
// seed and no repetition penalties): named in a warning, never sent, never silently lost.
import type { IrRequest, Warning } from '../ir/types.js';

export function warnSeedAndPenalties(req: IrRequest, upstream: string, warnings: Warning[]): void {
  if (req.seed !== undefined) warnings.push({ field: 'seed', message: `seed is not supported by ${upstream}; dropped` });
  if (req.presencePenalty !== undefined) warnings.push({ field: 'presence_penalty', message: `presence penalty is not supported by ${upstream}; dropped` });
  if (req.frequencyPenalty !== undefined) warnings.push({ field: 'frequency_penalty', message: `frequency penalty is not supported by ${upstream}; dropped` });
}
