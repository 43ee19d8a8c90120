// A fixed ring of time slots, each a row of `width` counters (Uint32), over `slots × slotMs` of wall-clock
// time. A slot is reused when its time comes round again and cleared lazily on its first write, so
// recording costs an index computation and an add, with no allocation and no timer.
export class SlotRing {
  readonly data: Uint32Array;
  /** The slot number (time / slotMs) each row currently holds; -1 = never written. */
  private readonly epochs: Float64Array;

  constructor(
    readonly slotMs: number,
    readonly slots: number,
    readonly width: number,
  ) {
    this.data = new Uint32Array(slots * width);
    this.epochs = new Float64Array(slots).fill(-1);
  }

  /** The offset in `data` of the row for time `now` (ms), cleared if it held an older slot. */
  rowAt(now: number): number {
    const epoch = Math.floor(now / this.slotMs);
    const i = epoch % this.slots;
    const base = i * this.width;
    if (this.epochs[i] !== epoch) {
      this.data.fill(0, base, base + this.width);
      this.epochs[i] = epoch;
    }
    return base;
  }

  /** Adds the rows of the last `count` slots up to `now` (the current one included) into `out`. */
  sumInto(now: number, count: number, out: number[] | Float64Array): void {
    const current = Math.floor(now / this.slotMs);
    const w = this.width;
    for (let k = 0; k < count && k < this.slots; k++) {
      const epoch = current - k;
      const i = epoch % this.slots;
      if (this.epochs[i] !== epoch) continue;
      const base = i * w;
      for (let c = 0; c < w; c++) out[c] += this.data[base + c]!;
    }
  }

  /**
   * Column `col` over the last `points × step` slots, oldest first, `step` slots summed per point (a
   * sparkline). The last point holds the current slot.
   */
  series(now: number, col: number, points: number, step: number): number[] {
    const current = Math.floor(now / this.slotMs);
    const out = new Array<number>(points).fill(0);
    for (let p = 0; p < points; p++) {
      for (let s = 0; s < step; s++) {
        const epoch = current - (points - 1 - p) * step - s;
        if (epoch < 0) continue;
        const i = epoch % this.slots;
        if (this.epochs[i] === epoch) out[p]! += this.data[i * this.width + col]!;
      }
    }
    return out;
  }
}
