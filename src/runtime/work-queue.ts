/**
 * A work queue with the guarantees controllers rely on (as client-go's): a key waiting is queued
 * once however often it is added; a key is never handled by two workers at once (an add while it is
 * being handled runs it again afterwards); failures come back after a per-key exponential backoff
 * that resets on success.
 */
export interface WorkQueueOptions {
  readonly concurrency: number;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  /** Called when a handler throws; the key is retried after its backoff. */
  readonly onError?: (key: string, error: unknown, attempt: number) => void;
}

export type KeyHandler = (key: string) => Promise<void>;

export class WorkQueue {
  private readonly queued: string[] = [];
  private readonly queuedSet = new Set<string>();
  private readonly active = new Set<string>();
  /** Keys added while being handled, and whether one of those adds bypassed a failure's backoff. */
  private readonly dirtyWhileActive = new Map<string, boolean>();
  private readonly failures = new Map<string, number>();
  /** Keys added after a delay: the timer, and when it is due (ms since the epoch). */
  private readonly delayed = new Map<string, { timer: NodeJS.Timeout; dueAt: number }>();
  private readonly idleWaiters: (() => void)[] = [];
  private running = 0;
  private stopped = false;
  private readonly handler: KeyHandler;
  private readonly options: Required<Omit<WorkQueueOptions, 'onError'>> & Pick<WorkQueueOptions, 'onError'>;

  constructor(handler: KeyHandler, options: WorkQueueOptions) {
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
  add(key: string, options: { bypassBackoff?: boolean } = {}): void {
    if (this.stopped) return;
    if (!options.bypassBackoff && this.failures.has(key) && this.delayed.has(key)) return;
    const delayed = this.delayed.get(key);
    if (delayed) {
      clearTimeout(delayed.timer);
      this.delayed.delete(key);
    }
    if (this.active.has(key)) {
      this.dirtyWhileActive.set(key, (this.dirtyWhileActive.get(key) ?? false) || !!options.bypassBackoff);
      return;
    }
    if (this.queuedSet.has(key)) return;
    this.queuedSet.add(key);
    this.queued.push(key);
    this.pump();
  }

  /** Adds the key after a delay, unless it is added sooner. */
  addAfter(key: string, delayMs: number): void {
    if (this.stopped || this.queuedSet.has(key)) return;
    const existing = this.delayed.get(key);
    if (existing) {
      // The sooner of the two wins (a pod event does not wait out a status requeue), except a
      // failure's backoff, which only `add` with bypassBackoff cuts short.
      if (this.failures.has(key) || existing.dueAt <= Date.now() + delayMs) return;
      clearTimeout(existing.timer);
    }
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.delayed.set(key, { timer, dueAt: Date.now() + delayMs });
  }

  /**
   * Retries now every key waiting out a failure's backoff, keeping their failure counts (the API
   * server is back after an outage: what failed then may well succeed now).
   */
  retryFailedNow(): void {
    for (const key of [...this.delayed.keys()]) {
      if (this.failures.has(key)) this.add(key, { bypassBackoff: true });
    }
  }

  /** Forgets a key's failure count, e.g. when its object was deleted. */
  forget(key: string): void {
    this.failures.delete(key);
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
      const key = this.queued.shift() as string;
      this.queuedSet.delete(key);
      this.active.add(key);
      this.running += 1;
      void this.handle(key);
    }
  }

  private async handle(key: string): Promise<void> {
    let retryAfterMs: number | undefined;
    try {
      await this.handler(key);
      this.failures.delete(key);
    } catch (error) {
      const attempt = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, attempt);
      this.options.onError?.(key, error, attempt);
      retryAfterMs = this.backoffFor(attempt);
    }
    this.active.delete(key);
    this.running -= 1;
    // A change seen while the key was handled is new information: handle it now, unless the pass
    // failed and the change cannot fix that (see add).
    const dirty = this.dirtyWhileActive.get(key);
    this.dirtyWhileActive.delete(key);
    if (dirty !== undefined && (retryAfterMs === undefined || dirty)) this.add(key, { bypassBackoff: true });
    else if (retryAfterMs !== undefined) this.addAfter(key, retryAfterMs);
    this.pump();
    this.notifyIdle();
  }
}
