// The `output` items of a Responses response body the gateway rendered, for the item store. Runs after
// the caller's last byte, once per stored response: the one parse is off the request's path.
import type { StoredItem } from './response-store.js';

export function outputItemsOf(responseJson: string): StoredItem[] {
  const output = (JSON.parse(responseJson) as { output?: unknown }).output;
  return Array.isArray(output) ? (output as StoredItem[]) : [];
}
