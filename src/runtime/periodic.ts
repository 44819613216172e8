/**
 * A runnable that does its work on a schedule: `onInterval` every `intervalMs` while it runs, and
 * tasks run now or soon on demand. The manager runs it while this instance leads; stop() clears every
 * timer, so nothing of it runs after its leader stopped.
 */
import type { Runnable } from './runnable.ts';

export interface PeriodicRunnableOptions {
  readonly intervalMs: number;
  /** Every interval while running. */
  readonly onInterval: () => void;
  /** On each start: catches up on what happened while it did not run (another instance led). */
  readonly onStart?: () => void;
  /** A task that failed (`task` is its name); it runs again at its next trigger. */
  readonly onError: (task: string, error: unknown) => void;
}

export class PeriodicRunnable implements Runnable {
  private readonly options: PeriodicRunnableOptions;
  private interval: NodeJS.Timeout | undefined;
  /** Pending `soon` runs by task name. */
  private readonly pending = new Map<string, NodeJS.Timeout>();

  constructor(options: PeriodicRunnableOptions) {
    this.options = options;
  }

  /** Between start() and stop(). */
  get running(): boolean {
    return this.interval !== undefined;
  }

  start(): void {
    if (this.interval) return;
    this.interval = setInterval(() => this.options.onInterval(), this.options.intervalMs);
    this.interval.unref();
    this.options.onStart?.();
  }

  stop(): void {
    if (this.interval) clearInterval(this.interval);
    this.interval = undefined;
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }

  /** Runs the task now, its failure reported to onError; nothing while stopped. */
  run(task: string, work: () => Promise<unknown>): void {
    if (!this.running) return;
    work().catch((error: unknown) => this.options.onError(task, error));
  }

  /**
   * Runs the task once after `delayMs`, unless a run of it is pending already: a burst of triggers
   * (deletions of a namespace) makes one run, and never two at once. Nothing while stopped.
   */
  soon(task: string, delayMs: number, work: () => Promise<unknown>): void {
    if (!this.running || this.pending.has(task)) return;
    const timer = setTimeout(() => {
      this.pending.delete(task);
      this.run(task, work);
    }, delayMs);
    timer.unref();
    this.pending.set(task, timer);
  }
}
