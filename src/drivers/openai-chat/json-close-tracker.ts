// Whether streamed JSON text has closed its top-level object yet, fed one fragment at a time: bracket
// depth outside strings, no parsing and no allocation. The event decoder uses it to tell a finished
// tool call (safe to close its block) from one whose fragments may still arrive.
export class JsonCloseTracker {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private opened = false;

  reset(): void {
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    this.opened = false;
  }

  feed(text: string): void {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 92 /* \ */) this.escaped = true;
        else if (c === 34 /* " */) this.inString = false;
      } else if (c === 34) {
        this.inString = true;
      } else if (c === 123 /* { */ || c === 91 /* [ */) {
        this.depth++;
        this.opened = true;
      } else if (c === 125 /* } */ || c === 93 /* ] */) {
        this.depth--;
      }
    }
  }

  /** True once an object or array was opened and every bracket is closed again. */
  get closed(): boolean {
    return this.opened && this.depth <= 0 && !this.inString;
  }
}
