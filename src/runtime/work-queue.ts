/**
 * A work queue of object keys (`namespace/name`) with the guarantees controllers rely on (as
 * client-go's): a key waiting is queued once however often it is added; a key is never handled by
 * two workers at once (an add while it is being handled runs it again afterwards); failures come back
 * after a per-key exponential backoff that resets on success.
 */
import type { ObjectKey } from './object-key.ts';

export interface WorkQueueOptions {
  readonly concurrency: number;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  /** Called when a handler throws; the key is retried after its backoff. */
  readonly onError?: (objectKey: ObjectKey, error: unknown, attempt: number) => void;
}

export type ObjectKeyHandler = (objectKey: ObjectKey) => Promise<void>;

export class WorkQueue {
  private readonly queued: ObjectKey[] = [];
  private readonly queuedSet = new Set<ObjectKey>();
  private readonly active = new Set<ObjectKey>();
  /** Keys added while being handled, and whether one of those adds bypassed a failure's backoff. */
  private readonly dirtyWhileActive = new Map<ObjectKey, boolean>();
  private readonly failures = new Map<ObjectKey, number>();
  /** Keys added after a delay: the timer, and when it is due (ms since the epoch). */
  private readonly delayed = new Map<ObjectKey, { timer: NodeJS.Timeout; dueAt: number }>();
  private readonly idleWaiters: (() => void)[] = [];
  private running = 0;
  private stopped = false;
  private readonly handler: ObjectKeyHandler;
  private readonly options: Required<Omit<WorkQueueOptions, 'onError'>> & Pick<WorkQueueOptions, 'onError'>;

  constructor(handler: ObjectKeyHandler, options: WorkQueueOptions) {
    this.handler = handler;
    this.options = { baseDelayMs: 5, maxDelayMs: 300_000, ...options };
  }

  /** Number of keys waiting to be handled (not counting active or delayed ones). */
  get depth(): number {
    return this.queued.length;
  }

  get activeCount(): number {
    return this.running;
  }

  /**
   * Queues a key. A key waiting out a failure's backoff stays waiting (an event of one of its children
   * rarely fixes what failed, and retrying at every event is the error loop backoff exists to stop)
   * unless `bypassBackoff` (a change of its spec, which may).
   */
  add(objectKey: ObjectKey, options: { bypassBackoff?: boolean } = {}): void {
    if (this.stopped) return;
    if (!options.bypassBackoff && this.failures.has(objectKey) && this.delayed.has(objectKey)) return;
    const delayed = this.delayed.get(objectKey);
    if (delayed) {
      clearTimeout(delayed.timer);
      this.delayed.delete(objectKey);
    }
    if (this.active.has(objectKey)) {
      this.dirtyWhileActive.set(
        objectKey,
        (this.dirtyWhileActive.get(objectKey) ?? false) || !!options.bypassBackoff,
      );
      return;
    }
    if (this.queuedSet.has(objectKey)) return;
    this.queuedSet.add(objectKey);
    this.queued.push(objectKey);
    this.pump();
  }

  /** Adds the key after a delay, unless it is added sooner. */
  addAfter(objectKey: ObjectKey, delayMs: number): void {
    if (this.stopped || this.queuedSet.has(objectKey)) return;
    const existing = this.delayed.get(objectKey);
    if (existing) {
      // The sooner of the two wins (a pod event does not wait out a status requeue), except a
      // failure's backoff, which only `add` with bypassBackoff cuts short.
      if (this.failures.has(objectKey) || existing.dueAt <= Date.now() + delayMs) return;
      clearTimeout(existing.timer);
    }
    const timer = setTimeout(() => {
      this.delayed.delete(objectKey);
      this.add(objectKey);
    }, delayMs);
    timer.unref();
    this.delayed.set(objectKey, { timer, dueAt: Date.now() + delayMs });
  }

  /**
   * Retries now every key waiting out a failure's backoff, keeping their failure counts (the API
   * server is back after an outage: what failed then may well succeed now).
   */
  retryFailedNow(): void {
    for (const objectKey of [...this.delayed.keys()]) {
      if (this.failures.has(objectKey)) this.add(objectKey, { bypassBackoff: true });
    }
  }

  /** Forgets a key's failure count, e.g. when its object was deleted. */
  forget(objectKey: ObjectKey): void {
    this.failures.delete(objectKey);
  }

  /** Resolves when nothing is queued, active or delayed. */
  async idle(): Promise<void> {
    if (this.isIdle()) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  stop(): void {
    this.stopped = true;
    for (const { timer } of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    this.queued.length = 0;
    this.queuedSet.clear();
    this.notifyIdle();
  }

  backoffFor(attempt: number): number {
    return Math.min(this.options.baseDelayMs * 2 ** Math.max(0, attempt - 1), this.options.maxDelayMs);
  }

  private isIdle(): boolean {
    return this.queued.length === 0 && this.running === 0 && this.delayed.size === 0;
  }

  private notifyIdle(): void {
    if (!this.isIdle() && !this.stopped) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private pump(): void {
    while (!this.stopped && this.running < this.options.concurrency && this.queued.length > 0) {
      const objectKey = this.queued.shift() as ObjectKey;
      this.queuedSet.delete(objectKey);
      this.active.add(objectKey);
      this.running += 1;
      void this.handle(objectKey);
    }
  }

  private async handle(objectKey: ObjectKey): Promise<void> {
    let retryAfterMs: number | undefined;
    try {
      await this.handler(objectKey);
      this.failures.delete(objectKey);
    } catch (error) {
      const attempt = (this.failures.get(objectKey) ?? 0) + 1;
      this.failures.set(objectKey, attempt);
      this.options.onError?.(objectKey, error, attempt);
      retryAfterMs = this.backoffFor(attempt);
    }
    this.active.delete(objectKey);
    this.running -= 1;
    // A change seen while the key was handled is new information: handle it now, unless the pass
    // failed and the change cannot fix that (see add).
    const dirty = this.dirtyWhileActive.get(objectKey);
    this.dirtyWhileActive.delete(objectKey);
    if (dirty !== undefined && (retryAfterMs === undefined || dirty))
      this.add(objectKey, { bypassBackoff: true });
    else if (retryAfterMs !== undefined) this.addAfter(objectKey, retryAfterMs);
    this.pump();
    this.notifyIdle();
  }
}
