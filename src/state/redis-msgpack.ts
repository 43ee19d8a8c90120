// The limits script's arguments as one MessagePack array each (read in Lua with cmsgpack.unpack, which
// Redis ships): numbers arrive as Lua numbers and strings as strings, decoded in C. Splitting a text of
// tokens with string.gmatch (and tonumber on each) was the largest part of the script's own work per
// request (≈ 0.14 µs per token on the server). Only what the limits script sends: strings and numbers.

const UINT32 = 2 ** 32;

/** Bytes an item takes at most. */
function bound(x: string | number): number {
  return typeof x === 'number' ? 9 : 5 + 3 * x.length;
}

function writeItem(buf: Buffer, at: number, x: string | number): number {
  if (typeof x === 'number') {
    // Non-negative integers below 2^32 as unsigned ints; anything else as a float64, which holds any
    // JS number exactly (Lua's numbers are doubles too).
    if (Number.isInteger(x) && x >= 0 && x < UINT32) {
      if (x < 128) {
        buf[at] = x;
        return at + 1;
      }
      buf[at] = 0xce;
      buf.writeUInt32BE(x, at + 1);
      return at + 5;
    }
    buf[at] = 0xcb;
    buf.writeDoubleBE(x, at + 1);
    return at + 9;
  }
  const n = buf.write(x, at + 5, 'utf8');
  buf[at] = 0xdb; // str32: the length is known only once written
  buf.writeUInt32BE(n, at + 1);
  return at + 5 + n;
}

/** A MessagePack array of `items` (array32 header). */
export function packArray(items: readonly (string | number)[]): Buffer {
  let size = 5;
  for (let i = 0; i < items.length; i++) size += bound(items[i]!);
  const buf = Buffer.allocUnsafe(size);
  buf[0] = 0xdd;
  buf.writeUInt32BE(items.length, 1);
  let at = 5;
  for (let i = 0; i < items.length; i++) at = writeItem(buf, at, items[i]!);
  return buf.subarray(0, at);
}
