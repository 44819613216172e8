/**
 * The manager of an operator process (what controller-runtime's Manager gives Go operators): it holds
 * the caches (informers) its controllers declare, starts them, campaigns for the Lease, and while this
 * instance leads runs the controllers' work queues and the leader-only runnables. After an API server
 * outage it restarts the watches at once and resyncs every controller; stop() ends it all, the Lease
 * released first so that a standby takes over at once. It knows no kind: the controllers' setups
 * (src/controllers/<name>/setup.ts) declare what they watch.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { describeApiError } from '../kube/api-errors.ts';
import type { Transport } from '../kube/transport.ts';
import { ApiServerRecovery, readyzProbe } from './api-server-recovery.ts';
import { Controller, type ControllerHost, type ControllerOptions, type WatchOptions } from './controller.ts';
import { watchFailureLogger } from './failure-log.ts';
import { ResilientInformer, type InformerHandlers, type WatchedKind } from './informers.ts';
import { LeaderElector, type LeaseApi } from './leader-election.ts';
import type { Runnable } from './runnable.ts';

/** How long a stopping operator waits for running passes before it gives its Lease up. */
const STOP_WAIT_MS = 5_000;

export interface LeaderElectionConfig {
  readonly namespace: string;
  readonly leaseName: string;
  readonly identity?: string;
  /** Lease timings (tests shorten them); client-go's defaults otherwise. */
  readonly leaseDurationSeconds?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
}

export interface ManagerOptions {
  /** Watches and the readiness probe go through `transport`; the Lease through `coordination`. */
  readonly clients: { readonly transport: Transport; readonly coordination: LeaseApi };
  readonly log: Logger;
  /** Namespaces to watch; empty for all. */
  readonly namespaces: readonly string[];
  /** Without it, this instance leads from the start. */
  readonly leaderElection?: LeaderElectionConfig;
  readonly onLeadershipChange?: (leading: boolean) => void;
}

export class Manager implements ControllerHost {
  readonly identity: string;
  readonly log: Logger;
  readonly namespaces: readonly string[];
  /** Restarts waiting watches when the API server is back; controllers' own informers use it too. */
  readonly recovery: ApiServerRecovery;
  private readonly options: ManagerOptions;
  private readonly informers: ResilientInformer<KubernetesObject>[] = [];
  private readonly controllers: Controller[] = [];
  private readonly startup: Runnable[] = [];
  private readonly leaderOnly: Runnable[] = [];
  private readonly elector: LeaderElector | undefined;
  private readonly onWatchError: (kind: string, error: unknown, retryInMs: number) => void;
  private leading = false;
  /** Once leadership is lost this instance never leads again: its owner exits (client-go's advice). */
  private lostLead = false;
  private stopping = false;

  constructor(options: ManagerOptions) {
    this.options = options;
    const { clients, log } = options;
    this.log = log;
    this.namespaces = options.namespaces;
    this.identity =
      options.leaderElection?.identity ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
    this.recovery = new ApiServerRecovery({
      probe: readyzProbe(clients.transport),
      onOutage: (event) =>
        event === 'away'
          ? log.warn({}, 'the API server does not answer; watches restart as soon as it is ready')
          : log.info({}, 'the API server is ready again; restarting watches and resyncing'),
      onRecovered: () => this.resync(),
    });
    // During an outage every watch fails again and again: the recovery's one line says it all.
    this.onWatchError = watchFailureLogger(log, () => this.recovery.serverAway);
    const election = options.leaderElection;
    if (election) {
      this.elector = new LeaderElector({
        api: clients.coordination,
        namespace: election.namespace,
        leaseName: election.leaseName,
        identity: this.identity,
        ...(election.leaseDurationSeconds !== undefined
          ? { leaseDurationSeconds: election.leaseDurationSeconds }
          : {}),
        ...(election.renewDeadlineMs !== undefined ? { renewDeadlineMs: election.renewDeadlineMs } : {}),
        ...(election.retryPeriodMs !== undefined ? { retryPeriodMs: election.retryPeriodMs } : {}),
        onStartedLeading: () => this.startLeading(),
        onStoppedLeading: () => this.stopLeading(),
        onError: (error) => log.warn({ error: describeApiError(error) }, 'leader election'),
      });
    }
  }

  /** Leading and not stopping: what leader-only work checks before it writes. */
  get isLeader(): boolean {
    return this.leading && !this.stopping;
  }

  get serverAway(): boolean {
    return this.recovery.serverAway;
  }

  /** True once every cache has listed once. */
  get synced(): boolean {
    return this.informers.every((informer) => informer.hasSynced);
  }

  /** A cache of one kind, started with the manager; its events go to `handlers`. */
  informer<T extends KubernetesObject>(
    kind: WatchedKind<T>,
    options: WatchOptions,
    handlers: InformerHandlers<T>,
  ): ResilientInformer<T> {
    const informer = new ResilientInformer<T>({
      transport: this.options.clients.transport,
      kind,
      // Cluster-scoped kinds: one cluster-wide watch, whatever namespaces the operator watches.
      namespaces: options.clusterWide ? [] : this.namespaces,
      ...(options.labelSelector ? { labelSelector: options.labelSelector } : {}),
      handlers,
      onError: this.onWatchError,
      recovery: this.recovery,
    });
    this.informers.push(informer as unknown as ResilientInformer<KubernetesObject>);
    return informer;
  }

  /** A controller whose queue runs while this instance leads; its setup declares its watches. */
  controller(options: ControllerOptions): Controller {
    const controller = new Controller(this, options);
    this.controllers.push(controller);
    return controller;
  }

  /**
   * A runnable: leader-only ones (the default) start on taking the lead and stop on losing it;
   * others start in start(), in order and awaited, before the caches.
   */
  add(runnable: Runnable, options: { leaderOnly?: boolean } = {}): void {
    (options.leaderOnly === false ? this.startup : this.leaderOnly).push(runnable);
  }

  async start(): Promise<void> {
    for (const runnable of this.startup) await runnable.start();
    await Promise.all(this.informers.map((informer) => informer.start()));
    this.log.info({ identity: this.identity, synced: this.synced }, 'caches started');
    if (this.elector) this.elector.start();
    else this.startLeading();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.recovery.stop();
    for (const controller of this.controllers) controller.stopQueue();
    // The Lease goes first, once no pass is running (or after a few seconds): a standby then takes
    // over at once, whatever the rest of the shutdown takes before the kubelet's SIGKILL.
    await Promise.race([this.idle(), sleep(STOP_WAIT_MS, undefined, { ref: false })]);
    await this.elector?.stop();
    await this.stopRunnables();
    for (const runnable of [...this.startup].reverse()) await runnable.stop();
    await Promise.all(this.informers.map((informer) => informer.stop()));
  }

  /** Resolves when no pass of any controller is queued or running (tests, benchmarks). */
  async idle(): Promise<void> {
    await Promise.all(this.controllers.map((controller) => controller.idle()));
  }

  private startLeading(): void {
    if (this.leading || this.stopping || this.lostLead) return;
    this.leading = true;
    for (const runnable of this.leaderOnly) {
      Promise.resolve()
        .then(() => runnable.start())
        .catch((error: unknown) =>
          this.log.warn({ error: describeApiError(error) }, 'a runnable failed to start'),
        );
    }
    this.options.onLeadershipChange?.(true);
    const kinds = this.controllers.flatMap((controller) => (controller.kind ? [`${controller.kind}s`] : []));
    this.log.info({ identity: this.identity }, `leading: reconciling ${kinds.join(', ')}`);
    for (const controller of this.controllers) controller.startLeading();
  }

  private stopLeading(): void {
    if (!this.leading) return;
    this.leading = false;
    this.lostLead = true;
    this.options.onLeadershipChange?.(false);
    for (const controller of this.controllers) controller.stopQueue();
    void this.stopRunnables();
    this.log.error({ identity: this.identity }, 'lost leadership: stopping');
  }

  private async stopRunnables(): Promise<void> {
    for (const runnable of this.leaderOnly) {
      try {
        await runnable.stop();
      } catch (error) {
        this.log.warn({ error: describeApiError(error) }, 'a runnable failed to stop');
      }
    }
  }

  private resync(): void {
    for (const informer of this.informers) void informer.restartWatches();
    for (const controller of this.controllers) controller.resync();
  }
}
