// What every driver's error decoding shares: the JSON object of an error body (if it is one), proxy
// pages and plain text cut to a readable length, and single header values.

const MAX_TEXT = 500;

export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** The first value of a response header. */
export function header(headers: ResponseHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The body's JSON object, or undefined when it is not JSON or not an object. */
export function jsonObject(body: string): Record<string, unknown> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
}

/** Proxy pages and plain text: tags and runs of whitespace removed, cut to a readable length. */
export function plainText(body: string): string {
  const text = body.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
  return text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) + '…' : text;
}

/** "upstream answered HTTP 503: <text>" for a body that is not the vendor's error envelope. */
export function statusMessage(status: number, body: string): string {
  const text = plainText(body);
  return `upstream answered HTTP ${status}` + (text ? ': ' + text : '');
}
