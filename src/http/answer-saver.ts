// Stores finished Responses-door answers in the shared store once the caller has its last byte (with
// `max_bytes: 0`, only the claims on its ids: responses-repository.ts): the
// record is built (the one parse of the answer) and written off the request's path, so a slow or
// absent store never delays a reply. A failed save is a warning and a count, never the caller's problem.
//
// A continuation can arrive before the save has landed (the caller reads the answer and sends the
// next turn at once): saves of this process are tracked, so a lookup here takes the record being
// saved (or waits for the save when the record is not built yet) instead of missing it.
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Observability } from '../observability/observer.js';
import type { ResponsesRepository } from '../responses-store/responses-repository.js';
import type { AnswerRecord } from '../responses-store/stored-response.js';
import { StateUnavailableError } from '../state/types.js';

/** A save of this process that has not landed yet. */
export interface SaveInFlight {
  /** Set once built (right after the last byte). */
  record?: AnswerRecord;
  done: Promise<void>;
}

export class AnswerSaver {
  private readonly pending = new Map<string, SaveInFlight>();

  constructor(
    private readonly repo: ResponsesRepository,
    private readonly logger: Logger,
    private readonly obs: Observability,
  ) {}

  /** Resolves once every save started so far has landed or failed (a draining process waits for it). */
  async idle(): Promise<void> {
    await Promise.all([...this.pending.values()].map((s) => s.done));
  }

  /**
   * Once `res` has been given its last byte, builds the record and saves it. Never throws. When the caller
   * left before the end, nothing is saved (it never got the answer whose id it would continue from).
   */
  saveAfter(res: ServerResponse, id: string, requestId: string, build: () => AnswerRecord | undefined): void {
    let done!: () => void;
    const tracked: SaveInFlight = { done: new Promise<void>((resolve) => (done = resolve)) };
    this.pending.set(id, tracked);
    const finish = () => {
      if (this.pending.get(id) === tracked) this.pending.delete(id);
      done();
    };
    const run = () => {
      let record: AnswerRecord | undefined;
      try {
        record = build();
      } catch (err) {
        this.failed(requestId, id, err);
        finish();
        return;
      }
      if (!record) {
        finish();
        return;
      }
      tracked.record = record;
      this.repo.save(record).then(finish, (err: unknown) => {
        this.failed(requestId, id, err);
        finish();
      });
    };
    // The last bytes are with the socket: the build and the write wait for the turn's I/O (the other
    // callers' replies) and go together in one setImmediate. A continuation of this process meanwhile
    // waits for the save (inFlight); one on another process sees the record a turn later at most.
    if (res.writableEnded) {
      this.defer(run);
      return;
    }
    const onFinish = () => {
      res.off('close', onClose);
      this.defer(run);
    };
    const onClose = () => {
      res.off('finish', onFinish);
      if (!res.writableFinished) finish();
    };
    res.once('finish', onFinish);
    res.once('close', onClose);
  }

  /** The same for an answer whose last byte is already with the caller's socket (a WebSocket response). */
  saveNow(id: string, requestId: string, record: AnswerRecord): void {
    let done!: () => void;
    const tracked: SaveInFlight = { record, done: new Promise<void>((resolve) => (done = resolve)) };
    this.pending.set(id, tracked);
    const finish = () => {
      if (this.pending.get(id) === tracked) this.pending.delete(id);
      done();
    };
    this.defer(() => {
      this.repo.save(record).then(finish, (err: unknown) => {
        this.failed(requestId, id, err);
        finish();
      });
    });
  }

  private due: (() => void)[] = [];

  private defer(run: () => void): void {
    if (this.due.push(run) === 1) setImmediate(this.runDue);
  }

  private readonly runDue = (): void => {
    const due = this.due;
    this.due = [];
    for (const run of due) run();
  };

  /** This process's save of `id`, while it has not landed. */
  inFlight(id: string): SaveInFlight | undefined {
    return this.pending.get(id);
  }

  private failed(requestId: string, id: string, err: unknown): void {
    // A backend failure was counted by the store itself (its onError); count the others here.
    if (!(err instanceof StateUnavailableError)) this.obs.recordStateError('put');
    this.logger.warn({ requestId, responseId: id, err: this.obs.safeError(err) }, 'stored response not saved');
  }
}
