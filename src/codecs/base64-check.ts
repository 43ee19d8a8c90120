// Whether a payload is standard padded base64, as both vendors require of inline media. One native
// regex run (no per-character loop in JS, no decode); checked once per media block, at the door.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function isBase64(data: string): boolean {
  return data.length % 4 === 0 && BASE64.test(data);
}
