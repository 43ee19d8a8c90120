// A stream frame's `data` → the event object every stream decoder expects. A frame that is not a JSON
// object ends the stream with an error naming (the start of) what the upstream sent.

/** The frame's object, or — when it is not one — the message of the error that ends the stream. */
export function parseStreamFrame<T extends object>(data: string): T | string {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return 'upstream sent a stream frame that is not JSON: ' + excerpt(data);
  }
  if (value === null || typeof value !== 'object') return 'upstream sent a stream frame that is not an object: ' + excerpt(data);
  return value as T;
}

function excerpt(data: string): string {
  return data.length > 200 ? data.slice(0, 200) + '…' : data;
}
