import type { V1Lease } from '@kubernetes/client-node';
import { apiErrorCode } from '../kube/api-errors.ts';
import { microTime, type CoordinationApi } from '../kube/api-clients.ts';

/** The Lease calls leader election makes (CoordinationApi's; tests pass an in-memory store). */
export type LeaseApi = Pick<
  CoordinationApi,
  'readNamespacedLease' | 'createNamespacedLease' | 'replaceNamespacedLease'
>;

export interface LeaderElectionOptions {
  readonly api: LeaseApi;
  readonly namespace: string;
  readonly leaseName: string;
  readonly identity: string;
  /** How long a lease stays valid after its last renewal. */
  readonly leaseDurationSeconds?: number;
  /** How long the leader keeps trying to renew before it gives up leadership. */
  readonly renewDeadlineMs?: number;
  /** How often candidates try to acquire and the leader renews. */
  readonly retryPeriodMs?: number;
  readonly onStartedLeading: () => void;
  readonly onStoppedLeading: () => void;
  readonly onError?: (error: unknown) => void;
  readonly now?: () => Date;
}

/**
 * Leader election on a coordination.k8s.io Lease, as client-go's leaderelection does it: a candidate
 * takes the lease when it is free or expired (optimistic concurrency through resourceVersion), the
 * leader renews it every retry period, and a leader that cannot renew within the renew deadline stops
 * leading (the caller must then stop writing, usually by exiting).
 */
export class LeaderElector {
  private readonly options: Required<Omit<LeaderElectionOptions, 'onError'>> &
    Pick<LeaderElectionOptions, 'onError'>;
  private leading = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private lastRenewal = 0;

  constructor(options: LeaderElectionOptions) {
    this.options = {
      leaseDurationSeconds: 15,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      now: () => new Date(),
      ...options,
    };
  }

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    void this.tick();
  }

  /** Stops campaigning; a leader releases the lease so another candidate takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (!this.leading) return;
    this.leading = false;
    try {
      const lease = await this.read();
      if (lease?.spec?.holderIdentity === this.options.identity) {
        lease.spec.holderIdentity = undefined;
        lease.spec.renewTime = undefined;
        lease.spec.acquireTime = undefined;
        await this.options.api.replaceNamespacedLease({
          name: this.options.leaseName,
          namespace: this.options.namespace,
          body: lease,
        });
      }
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), this.options.retryPeriodMs);
  }

  private async tick(): Promise<void> {
    try {
      const held = await this.tryAcquireOrRenew();
      if (held) {
        this.lastRenewal = this.options.now().getTime();
        if (!this.leading && !this.stopped) {
          this.leading = true;
          this.options.onStartedLeading();
        }
      } else if (this.leading) {
        this.loseLeadership();
      }
    } catch (error) {
      this.options.onError?.(error);
      if (this.leading && this.options.now().getTime() - this.lastRenewal > this.options.renewDeadlineMs) {
        this.loseLeadership();
      }
    }
    this.schedule();
  }

  private loseLeadership(): void {
    this.leading = false;
    this.options.onStoppedLeading();
  }

  private async read(): Promise<V1Lease | undefined> {
    try {
      return await this.options.api.readNamespacedLease({
        name: this.options.leaseName,
        namespace: this.options.namespace,
      });
    } catch (error) {
      if (apiErrorCode(error) === 404) return undefined;
      throw error;
    }
  }

  /** True when this candidate holds the lease after the call. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const { api, namespace, leaseName, identity, leaseDurationSeconds } = this.options;
    const nowDate = this.options.now();
    // MicroTime on the wire: six fractional digits (the client's type says Date; the JSON is a string).
    const now = microTime(nowDate) as unknown as Date;
    const existing = await this.read();
    if (!existing) {
      try {
        await api.createNamespacedLease({
          namespace,
          body: {
            metadata: { name: leaseName, namespace },
            spec: {
              holderIdentity: identity,
              leaseDurationSeconds,
              acquireTime: now,
              renewTime: now,
              leaseTransitions: 0,
            },
          },
        });
        return true;
      } catch (error) {
        if (apiErrorCode(error) === 409) return false;
        throw error;
      }
    }
    const spec = existing.spec ?? {};
    const holder = spec.holderIdentity;
    const heldByUs = holder === identity;
    const renewedAt = spec.renewTime ? new Date(spec.renewTime).getTime() : 0;
    const expiresAt = renewedAt + (spec.leaseDurationSeconds ?? leaseDurationSeconds) * 1000;
    if (holder && !heldByUs && expiresAt > nowDate.getTime()) return false;
    existing.spec = {
      ...spec,
      holderIdentity: identity,
      leaseDurationSeconds,
      renewTime: now,
      acquireTime: heldByUs && spec.acquireTime ? spec.acquireTime : now,
      leaseTransitions: (spec.leaseTransitions ?? 0) + (heldByUs ? 0 : 1),
    };
    try {
      // replace carries the resourceVersion we read: a concurrent writer makes this fail with 409.
      await api.replaceNamespacedLease({ name: leaseName, namespace, body: existing });
      return true;
    } catch (error) {
      if (apiErrorCode(error) === 409) return false;
      throw error;
    }
  }
}
