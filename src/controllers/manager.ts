/**
 * The operator process: caches (informers) of MiniClusters and their children, a work queue,
 * the reconciler, leader election. Nothing here builds an object: it routes events to keys and keys
 * to the reconciler.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubernetesObject, V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  APP_NAME,
  COMPONENT_BROKER,
  LABEL_APP_COMPONENT,
  LABEL_APP_NAME,
  LABEL_MANAGED_BY,
  LABEL_MINICLUSTER,
  LABEL_MINICLUSTER_NAMESPACE,
  MANAGED_BY,
} from '../api/index.ts';
import type { KubeObject } from '../render/index.ts';
import { lazyExecQueueReader } from '../burst/lazy-queue-reader.ts';
import { fluxContainer } from '../render/index.ts';
import { describeApiError, isNotFound, isTransient } from '../kube/api-errors.ts';
import { watchFailureLogger } from '../runtime/failure-log.ts';
import { ApiServerRecovery, readyzProbe } from '../runtime/api-server-recovery.ts';
import { readMiniClusterStatus } from './minicluster/minicluster-client.ts';
import type { BurstEnvironment } from './minicluster/burst-step.ts';
import { collectOrphans, type OrphanSweep } from './minicluster/orphans.ts';
import { collectVolumes } from './minicluster/volume-collector.ts';
import { BurstTargetController, type BurstTargetControllerOptions } from './burst-target/burst-target-controller.ts';
import { EventRecorder } from '../runtime/events.ts';
import { ResilientInformer, type WatchedKind } from '../runtime/informers.ts';
import type { ApiClients } from '../kube/api-clients.ts';
import { LeaderElector } from '../runtime/leader-election.ts';
import { lazyReconcileLogger } from '../observability/logger.ts';
import {
  Reconciler,
  miniClusterKey,
  splitKey,
  type ControllerCache,
  type WriteCounter,
} from './minicluster/reconciler.ts';
import { watchedKinds, type LiveMiniCluster } from './minicluster/watched-kinds.ts';
import { WorkQueue } from '../runtime/work-queue.ts';

export const CONTROLLER_NAME = 'minicluster';
const ORPHAN_SWEEP_MS = 5 * 60_000;
/** Deletions come in bursts (a namespace, a test suite): one volume collection after them. */
const VOLUME_COLLECTION_DELAY_MS = 1_000;

/** This cluster's identity: the uid of its kube-system namespace (stable for the cluster's life). */
async function readClusterId(clients: ApiClients, log: Logger): Promise<string | undefined> {
  try {
    return (await clients.core.readNamespace({ name: 'kube-system' })).metadata?.uid;
  } catch (error) {
    log.warn(
      { error: describeApiError(error) },
      'cannot read the kube-system namespace: burst orphans will not be collected',
    );
    return undefined;
  }
}
const POD_EVENT_DELAY_MS = 500;
/** How long a stopping operator waits for running passes before it gives its Lease up. */
const STOP_WAIT_MS = 5_000;
export const REPORTING_CONTROLLER = 'flux-framework.org/flux-operator';

export interface ManagerOptions {
  readonly clients: ApiClients;
  readonly log: Logger;
  /** Namespaces to watch; empty for all. */
  readonly namespaces: readonly string[];
  readonly concurrency: number;
  readonly leaderElection?: {
    readonly namespace: string;
    readonly leaseName: string;
    readonly identity?: string;
  };
  /** Called for every API write (metrics, benchmark). */
  readonly onWrite?: WriteCounter;
  /** Called after each reconcile with its duration and outcome (metrics). */
  readonly onReconcile?: (result: 'success' | 'error' | 'requeue_after', seconds: number) => void;
  readonly onLeadershipChange?: (leading: boolean) => void;
  readonly onQueueDepth?: (depth: number) => void;
  /** Connectors of the GKE and EKS providers for BurstTargets of those kinds. */
  readonly providers?: BurstTargetControllerOptions['providers'];
  /** Deletes the cloud cluster of a deleted gke/eks BurstTarget, one step per call. */
  readonly deleteProvisioned?: BurstTargetControllerOptions['deleteProvisioned'];
  /** Installs the operator on kubeconfig BurstTargets with installOperator. */
  readonly installOperator?: BurstTargetControllerOptions['installOperator'];
  /** How often BurstTargets are checked (tests shorten it). */
  readonly targetSchedule?: BurstTargetControllerOptions['schedule'];
  /** How to read a lead broker's queue; default: exec `flux` in the lead pod. */
  readonly queueReader?: BurstEnvironment['queueReader'];
}

function ownerKey(object: KubernetesObject): string | undefined {
  const name = object.metadata?.labels?.[LABEL_MINICLUSTER];
  // Cluster-wide objects (PersistentVolumes) name their MiniCluster's namespace in a label.
  const namespace = object.metadata?.namespace ?? object.metadata?.labels?.[LABEL_MINICLUSTER_NAMESPACE];
  return name && namespace ? miniClusterKey(namespace, name) : undefined;
}

export class Manager {
  private readonly options: ManagerOptions;
  private readonly queue: WorkQueue;
  private readonly reconciler: Reconciler;
  private readonly informers: ResilientInformer<KubernetesObject>[] = [];
  private readonly cache: ControllerCache;
  private readonly podIndex = new Map<string, Map<string, V1Pod>>();
  private readonly seenGenerations = new Map<string, number | undefined>();
  private readonly elector: LeaderElector | undefined;
  private readonly targets: BurstTargetController;
  private readonly recovery: ApiServerRecovery;
  private clusterId: string | undefined;
  private orphanTimer: NodeJS.Timeout | undefined;
  private volumeTimer: NodeJS.Timeout | undefined;
  private leading = false;
  private stopping = false;
  readonly identity: string;

  constructor(options: ManagerOptions) {
    this.options = options;
    const { clients, log } = options;
    this.identity =
      options.leaderElection?.identity ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
    const kinds = watchedKinds(clients);
    this.recovery = new ApiServerRecovery({
      probe: readyzProbe(clients.transport),
      onOutage: (event) =>
        event === 'away'
          ? log.warn({}, 'the API server does not answer; watches restart as soon as it is ready')
          : log.info({}, 'the API server is ready again; restarting watches and resyncing'),
      onRecovered: () => this.resync(),
    });
    // During an outage every watch fails again and again: the recovery's one line says it all.
    const onError = watchFailureLogger(log, () => this.recovery.serverAway);
    const owned = `${LABEL_MANAGED_BY}=${MANAGED_BY}`;
    // A child's change (the Job's counts move with every pod) is folded with its siblings' and the
    // pods' like a pod's: one pass, not one per event (docs/performance.md: writes per MiniCluster).
    const enqueueOwner = (object: KubernetesObject) => {
      const key = ownerKey(object);
      if (key) this.enqueueSoon(key);
    };
    const childHandlers = { onAdd: enqueueOwner, onUpdate: enqueueOwner, onDelete: enqueueOwner };
    const make = <T extends KubernetesObject>(
      kind: WatchedKind<T>,
      labelSelector: string | undefined,
      handlers: { onAdd(o: T): void; onUpdate(o: T): void; onDelete(o: T): void },
    ) => {
      const informer = new ResilientInformer<T>({
        transport: clients.transport,
        kind,
        namespaces: options.namespaces,
        ...(labelSelector ? { labelSelector } : {}),
        handlers,
        onError,
        recovery: this.recovery,
      });
      this.informers.push(informer as unknown as ResilientInformer<KubernetesObject>);
      return informer;
    };

    const miniClusters = make<LiveMiniCluster>(kinds.miniClusters, undefined, {
      onAdd: (mc) => this.onMiniCluster(mc),
      onUpdate: (mc) => this.onMiniCluster(mc),
      onDelete: (mc) => {
        const key = miniClusterKey(mc.metadata.namespace ?? 'default', mc.metadata.name);
        this.seenGenerations.delete(key);
        this.queue.forget(key);
        if (mc.spec.volumes !== undefined) this.collectVolumesSoon();
      },
    });
    const jobs = make(kinds.jobs, owned, childHandlers);
    const services = make(kinds.services, owned, childHandlers);
    const configMaps = make(kinds.configMaps, owned, childHandlers);
    const secrets = make(kinds.secrets, owned, childHandlers);
    const deployments = make(kinds.deployments, owned, childHandlers);
    const claims = make(kinds.persistentVolumeClaims, owned, childHandlers);
    const persistentVolumes = new ResilientInformer({
      transport: clients.transport,
      kind: kinds.persistentVolumes,
      // Cluster-wide objects: one cluster-wide watch, whatever namespaces the operator watches.
      namespaces: [],
      labelSelector: owned,
      handlers: childHandlers,
      onError,
      recovery: this.recovery,
    });
    this.informers.push(persistentVolumes as unknown as ResilientInformer<KubernetesObject>);
    // Broker pods only: the services pod shares the MiniCluster's network labels, never its count.
    make(kinds.pods, `${LABEL_APP_NAME}=${APP_NAME},${LABEL_APP_COMPONENT}=${COMPONENT_BROKER}`, {
      onAdd: (pod) => this.indexPod(pod, false),
      onUpdate: (pod) => this.indexPod(pod, false),
      onDelete: (pod) => this.indexPod(pod, true),
    });

    const children = new Map<string, ResilientInformer<KubeObject>>([
      ['Job', jobs as unknown as ResilientInformer<KubeObject>],
      ['Service', services as unknown as ResilientInformer<KubeObject>],
      ['ConfigMap', configMaps as unknown as ResilientInformer<KubeObject>],
      ['Secret', secrets as unknown as ResilientInformer<KubeObject>],
      ['Deployment', deployments as unknown as ResilientInformer<KubeObject>],
      ['PersistentVolumeClaim', claims as unknown as ResilientInformer<KubeObject>],
      ['PersistentVolume', persistentVolumes as unknown as ResilientInformer<KubeObject>],
    ]);
    this.cache = {
      miniClusters,
      jobs,
      secrets,
      children,
      podsOf: (namespace, name) => [...(this.podIndex.get(miniClusterKey(namespace, name))?.values() ?? [])],
    };

    const onWrite = options.onWrite ?? (() => undefined);
    this.targets = new BurstTargetController({
      clients,
      log,
      recovery: this.recovery,
      namespaces: options.namespaces,
      onWrite,
      ...(options.providers ? { providers: options.providers } : {}),
      ...(options.deleteProvisioned ? { deleteProvisioned: options.deleteProvisioned } : {}),
      ...(options.installOperator ? { installOperator: options.installOperator } : {}),
      ...(options.targetSchedule ? { schedule: options.targetSchedule } : {}),
      // A target that connects (or drops) changes what the MiniClusters of its namespace can do.
      onConnectionChange: (namespace) => {
        for (const mc of this.cache.miniClusters.list(namespace)) {
          this.enqueue(miniClusterKey(namespace, mc.metadata.name));
        }
      },
    });
    const recorder = new EventRecorder({
      api: clients.events,
      controller: REPORTING_CONTROLLER,
      instance: this.identity,
      onError: (error) => log.warn({ error: describeApiError(error) }, 'could not record an event'),
      onWrite: () => onWrite('event', 'Event'),
    });
    const burst: BurstEnvironment = {
      localClients: clients,
      target: (namespace, name) => {
        const connection = this.targets.connectionFor(namespace, name);
        return connection ? { clients: connection.clients, namespace: connection.namespace } : undefined;
      },
      queueReader:
        options.queueReader ??
        ((miniCluster, leadPod) =>
          lazyExecQueueReader(clients.transport.access, {
            namespace: leadPod.metadata?.namespace ?? 'default',
            podName: leadPod.metadata?.name ?? '',
            container: fluxContainer(miniCluster).name,
          })),
      readSecret: async (name, namespace) => {
        const cached = secrets.get(name, namespace);
        if (cached) return cached;
        try {
          return await clients.core.readNamespacedSecret({ name, namespace });
        } catch {
          return undefined;
        }
      },
      countWrite: (verb, kind) => onWrite(verb, kind),
      now: () => new Date(),
      clusterId: () => this.clusterId,
    };
    this.reconciler = new Reconciler({
      clients,
      cache: this.cache,
      recorder,
      countWrite: onWrite,
      now: () => new Date(),
      burst,
    });
    this.queue = new WorkQueue((key) => this.handle(key), {
      concurrency: options.concurrency,
      onError: (key, error, attempt) => {
        const { namespace, name } = splitKey(key);
        // An unreachable or overloaded API server is not this MiniCluster's fault, and heals by itself.
        const transient = this.recovery.serverAway || isTransient(error);
        (transient ? log.warn.bind(log) : log.error.bind(log))(
          {
            namespace,
            name,
            attempt,
            retryInMs: this.queue.backoffFor(attempt),
            error: describeApiError(error),
          },
          'reconcile failed; retrying',
        );
      },
    });

    if (options.leaderElection) {
      this.elector = new LeaderElector({
        api: clients.coordination,
        namespace: options.leaderElection.namespace,
        leaseName: options.leaderElection.leaseName,
        identity: this.identity,
        onStartedLeading: () => this.startLeading(),
        onStoppedLeading: () => this.stopLeading(),
        onError: (error) => log.warn({ error: describeApiError(error) }, 'leader election'),
      });
    }
  }

  /** True once every cache has listed once. */
  get synced(): boolean {
    return this.informers.every((informer) => informer.hasSynced);
  }

  get isLeader(): boolean {
    return this.leading;
  }

  get queueDepth(): number {
    return this.queue.depth;
  }

  async start(): Promise<void> {
    this.clusterId = await readClusterId(this.options.clients, this.options.log);
    await Promise.all(this.informers.map((informer) => informer.start()));
    this.options.log.info({ identity: this.identity, synced: this.synced }, 'caches started');
    if (this.elector) this.elector.start();
    else this.startLeading();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.recovery.stop();
    this.queue.stop();
    if (this.orphanTimer) clearInterval(this.orphanTimer);
    if (this.volumeTimer) clearTimeout(this.volumeTimer);
    // The Lease goes first, once no pass is running (or after a few seconds): a standby then takes
    // over at once, whatever the rest of the shutdown takes before the kubelet's SIGKILL.
    await Promise.race([this.queue.idle(), sleep(STOP_WAIT_MS, undefined, { ref: false })]);
    await this.elector?.stop();
    await this.targets.stop();
    await Promise.all(this.informers.map((informer) => informer.stop()));
  }

  /** Resolves when no reconcile is queued or running (tests, benchmarks). */
  async idle(): Promise<void> {
    await this.queue.idle();
  }

  /** The uids of the MiniClusters in the cache: what the orphan and volume collectors keep. */
  private livingUids(): Set<string> {
    return new Set(
      this.cache.miniClusters.list().flatMap((mc) => (mc.metadata.uid ? [mc.metadata.uid] : [])),
    );
  }

  /**
   * Removes burst MiniClusters and copied Secrets this cluster made whose MiniCluster is gone, in this
   * cluster and on every connected BurstTarget. Runs every few minutes while leading; tests call it.
   */
  async collectOrphans(): Promise<OrphanSweep[]> {
    const clusterId = this.clusterId;
    if (!this.leading || !clusterId || !this.synced) return [];
    const living = this.livingUids();
    const local = this.options.namespaces.length > 0 ? [...this.options.namespaces] : [undefined];
    const targets = [
      ...local.map((namespace) => ({ clients: this.options.clients, namespace })),
      ...this.targets
        .connectedTargets()
        .map((target) => ({ clients: target.clients, namespace: target.namespace })),
    ];
    const sweeps: OrphanSweep[] = [];
    for (const target of targets) {
      const sweep = await collectOrphans(target, clusterId, living, (verb, kind) =>
        this.options.onWrite?.(verb, kind),
      );
      if (sweep.miniClusters.length + sweep.secrets.length > 0) {
        this.options.log.info({ ...sweep }, 'removed orphaned burst objects');
      }
      sweeps.push(sweep);
    }
    return sweeps;
  }

  /**
   * Deletes the PersistentVolumes made for `spec.volumes` (delete: true) of MiniClusters that are
   * gone: on each such deletion, on taking the lead and with the orphan sweep. Tests call it.
   */
  async collectVolumes(): Promise<string[]> {
    if (!this.leading || !this.synced) return [];
    const deleted = await collectVolumes(
      this.options.clients,
      () => this.livingUids(),
      this.options.namespaces,
      (verb, kind) => this.options.onWrite?.(verb, kind),
    );
    if (deleted.length > 0)
      this.options.log.info({ persistentVolumes: deleted }, 'removed the volumes of deleted MiniClusters');
    return deleted;
  }

  /** One collection shortly after a burst of deletions, never two at once. */
  private collectVolumesSoon(): void {
    if (!this.leading || this.volumeTimer) return;
    this.volumeTimer = setTimeout(() => {
      this.volumeTimer = undefined;
      this.collectVolumes().catch((error: unknown) =>
        this.options.log.warn({ error: describeApiError(error) }, 'volume collection failed'),
      );
    }, VOLUME_COLLECTION_DELAY_MS);
    this.volumeTimer.unref();
  }

  private startLeading(): void {
    if (this.leading || this.stopping) return;
    this.leading = true;
    // BurstTargets get status writes too: only the leader checks them.
    void this.targets.start();
    this.orphanTimer = setInterval(() => {
      this.collectOrphans().catch((error: unknown) =>
        this.options.log.warn({ error: describeApiError(error) }, 'orphan collection failed'),
      );
      this.collectVolumesSoon();
    }, ORPHAN_SWEEP_MS);
    this.orphanTimer.unref();
    this.options.onLeadershipChange?.(true);
    this.options.log.info({ identity: this.identity }, 'leading: reconciling MiniClusters');
    for (const mc of this.cache.miniClusters.list()) {
      this.enqueue(miniClusterKey(mc.metadata.namespace ?? 'default', mc.metadata.name));
    }
    // MiniClusters deleted while no operator led leave volumes behind.
    this.collectVolumesSoon();
  }

  private stopLeading(): void {
    if (!this.leading) return;
    this.leading = false;
    this.options.onLeadershipChange?.(false);
    this.queue.stop();
    this.options.log.error({ identity: this.identity }, 'lost leadership: stopping');
  }

  private enqueue(key: string, bypassBackoff = false): void {
    if (!this.leading) return;
    this.queue.add(key, { bypassBackoff });
    this.options.onQueueDepth?.(this.queue.depth);
  }

  /** Spec changes (generation), deletion and first sight trigger a pass; status-only updates do not. */
  private onMiniCluster(mc: LiveMiniCluster): void {
    const key = miniClusterKey(mc.metadata.namespace ?? 'default', mc.metadata.name);
    const generation = mc.metadata.generation;
    const seen = this.seenGenerations.has(key) ? this.seenGenerations.get(key) : -1;
    this.seenGenerations.set(key, generation);
    if (seen !== generation || mc.metadata.deletionTimestamp) this.enqueue(key, true);
  }

  /**
   * After an outage: what failed meanwhile is retried now, and every MiniCluster gets a pass (a full
   * resync), since changes the caches missed may have been made while they were away.
   */
  private resync(): void {
    if (!this.leading) return;
    this.queue.retryFailedNow();
    for (const mc of this.cache.miniClusters.list()) {
      this.enqueue(miniClusterKey(mc.metadata.namespace ?? 'default', mc.metadata.name));
    }
  }

  /**
   * Pods and children of one MiniCluster change together (scheduled, started, finished, the Job's
   * counts): a short delay folds their events into one pass and one status write instead of one per
   * event.
   */
  private enqueueSoon(key: string): void {
    if (!this.leading) return;
    this.queue.addAfter(key, POD_EVENT_DELAY_MS);
  }

  private indexPod(pod: V1Pod, deleted: boolean): void {
    const key = ownerKey(pod);
    const podName = pod.metadata?.name;
    if (!key || !podName) return;
    let pods = this.podIndex.get(key);
    if (deleted) {
      pods?.delete(podName);
      if (pods?.size === 0) this.podIndex.delete(key);
    } else {
      if (!pods) this.podIndex.set(key, (pods = new Map()));
      pods.set(podName, pod);
    }
    this.enqueueSoon(key);
  }

  /** Whether the API server says the MiniCluster is gone (its cache may lag behind). */
  private async isGone(key: string): Promise<boolean> {
    const { namespace, name } = splitKey(key);
    try {
      return (await readMiniClusterStatus(this.options.clients, namespace, name)) === undefined;
    } catch {
      return false;
    }
  }

  private async handle(key: string): Promise<void> {
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      const { namespace, name } = splitKey(key);
      const log = lazyReconcileLogger(this.options.log, { namespace, name, controller: CONTROLLER_NAME });
      const result = await this.reconciler.reconcile(key, log);
      if (result.requeueAfterMs !== undefined) this.queue.addAfter(key, result.requeueAfterMs);
      this.options.onReconcile?.(
        result.requeueAfterMs !== undefined ? 'requeue_after' : 'success',
        seconds(),
      );
    } catch (error) {
      if (isNotFound(error) && (await this.isGone(key))) {
        // Deleted while the cache still had it: nothing is left to reconcile.
        this.queue.forget(key);
        this.options.onReconcile?.('success', seconds());
        return;
      }
      this.options.onReconcile?.('error', seconds());
      throw error;
    } finally {
      this.options.onQueueDepth?.(this.queue.depth);
    }
  }
}
