// Tool names toward a Responses upstream. Namespaces travel natively (a `namespace` tool group and a
// `namespace` field on calls), so only the plain name must fit OpenAI's rule (^[a-zA-Z0-9_-]{1,64}$);
// a name that does not is shortened deterministically and mapped back when a call returns.
import { wireToolName } from '../../ir/tool-names.js';
import type { ToolDefinition } from '../../ir/types.js';

const MAX_NAME = 64;

export function wireName(name: string): string {
  return wireToolName(name, undefined, MAX_NAME);
}

/** Wire name → caller name for one request. Holds only renamed tools, so the usual lookup is a miss on
 * an empty map. */
export class ToolNameMap {
  private readonly renamed = new Map<string, string>();

  constructor(tools: readonly ToolDefinition[]) {
    for (const tool of tools) {
      const wire = wireName(tool.name);
      if (wire !== tool.name) this.renamed.set(key(wire, tool.namespace), tool.name);
    }
  }

  callerName(wire: string, namespace: string | undefined): string {
    if (this.renamed.size === 0) return wire;
    return this.renamed.get(key(wire, namespace)) ?? wire;
  }
}

function key(name: string, namespace: string | undefined): string {
  return namespace === undefined ? name : namespace + '\u0000' + name;
}
