/**
 * Brings waiting watches back as soon as the API server is ready again, instead of leaving each to
 * its own backoff timer (which after a long outage sits at its 30 s cap): while any watch waits, a
 * cheap readiness probe runs twice a second; when it turns from failing to passing, every waiting watch
 * restarts at once (spread over a short jitter so that they do not all hit the server in the same
 * millisecond), then `onRecovered` runs (the manager's full resync).
 *
 * A probe that passes while watches wait means their failure is not an outage (a refused permission,
 * say): those keep their own backoff. Once the server is seen away, probing goes on until it is seen
 * back, even when every watch restarted by its own timer meanwhile: otherwise the outage would never
 * be seen to end (no resync, and watch failures silenced as the outage's for good).
 */
import type { Transport } from '../kube/transport.ts';

export type ReadinessProbe = () => Promise<boolean>;

export interface ApiServerRecoveryOptions {
  readonly probe: ReadinessProbe;
  readonly intervalMs?: number;
  readonly jitterMs?: number;
  /** After the restarts of an outage's waiting watches have all been issued. */
  readonly onRecovered?: () => void;
  /** Each time the server is seen away, then back (logs). */
  readonly onOutage?: (event: 'away' | 'back') => void;
}

export type Restart = () => Promise<void>;

export class ApiServerRecovery {
  private readonly options: ApiServerRecoveryOptions;
  private readonly waiting = new Set<Restart>();
  private timer: NodeJS.Timeout | undefined;
  private probing = false;
  private away = false;
  private stopped = false;

  constructor(options: ApiServerRecoveryOptions) {
    this.options = options;
  }

  /** True between a failed probe and the next passing one. */
  get serverAway(): boolean {
    return this.away;
  }

  /** Registers a watch waiting to restart; returns how to take it back (it restarted by itself). */
  wait(restart: Restart): () => void {
    if (this.stopped) return () => undefined;
    this.waiting.add(restart);
    this.schedule(0);
    return () => this.waiting.delete(restart);
  }

  stop(): void {
    this.stopped = true;
    this.waiting.clear();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(delayMs: number): void {
    if (this.stopped || this.timer || this.probing) return;
    if (this.waiting.size === 0 && !this.away) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.probeOnce();
    }, delayMs);
    this.timer.unref();
  }

  private async probeOnce(): Promise<void> {
    this.probing = true;
    let ready: boolean;
    try {
      ready = await this.options.probe();
    } catch {
      ready = false;
    }
    this.probing = false;
    if (this.stopped) return;
    if (!ready) {
      if (!this.away) this.options.onOutage?.('away');
      this.away = true;
    } else if (this.away) {
      this.away = false;
      this.options.onOutage?.('back');
      await this.restartAll();
    }
    // Twice a second: the operator must be back in step within 5 s of readiness, and on a loaded
    // machine the relists and reconciles after it take most of that; a /readyz is cheap.
    this.schedule(this.options.intervalMs ?? 500);
  }

  private async restartAll(): Promise<void> {
    const restarts = [...this.waiting];
    this.waiting.clear();
    const jitterMs = this.options.jitterMs ?? 100;
    await Promise.all(
      restarts.map(async (restart) => {
        await new Promise((resolve) => setTimeout(resolve, Math.random() * jitterMs));
        await restart().catch(() => undefined);
      }),
    );
    if (!this.stopped) this.options.onRecovered?.();
  }
}

/** GET /readyz with the operator's credentials, on its own connection pool; true on HTTP 200. */
export function readyzProbe(transport: Transport, timeoutMs = 2_000): ReadinessProbe {
  return () => transport.probe('/readyz', timeoutMs);
}
