// The item source of one request's `item_reference` expansion, remembering which deployment produced
// each item it resolved. A pass-through attempt on the OpenAI deployment that produced every one of
// them gets the caller's references as they were (OpenAI resolves its own items, reasoning state
// included); any other attempt gets the items themselves.
import type { ItemSource } from '../responses-store/expand-item-references.js';
import type { ResponsesRepository } from '../responses-store/responses-repository.js';
import type { Producer } from '../responses-store/stored-response.js';
import type { RouteTarget } from '../router/model-table.js';

export class ReferencedItems implements ItemSource {
  private readonly producers: (Producer | undefined)[] = [];

  constructor(private readonly repo: ResponsesRepository) {}

  async findItems(ids: readonly string[], owner: string): Promise<(Record<string, unknown> | undefined)[]> {
    const found = await this.repo.findItems(ids, owner);
    return found.map((f) => {
      if (!f) return undefined;
      this.producers.push(f.producer);
      return f.item;
    });
  }

  itemOwners(ids: readonly string[]): Promise<(string | undefined)[]> {
    return this.repo.itemOwners(ids);
  }

  /** True when items were resolved and every one came from `target`. */
  allProducedBy(target: RouteTarget): boolean {
    return this.producers.length > 0 && this.producers.every((p) => p !== undefined && sameDeployment(p, target));
  }
}

/** The OpenAI Responses deployment `target` is the one that produced it. */
export function sameDeployment(p: Producer, target: RouteTarget): boolean {
  return p.protocol === 'responses' && p.provider === target.provider.name && p.model === target.model;
}
