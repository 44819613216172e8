/**
 * The BurstTarget controller: watches BurstTargets, connects to each (src/burst/target-connection.ts),
 * keeps its Connected condition, and checks it again every minute while connected, or with
 * exponential backoff (5 s ... 5 min) while it fails, so a fixed Secret or a recovered server is
 * noticed without any change to the BurstTarget. The burst controller gets the clients of connected
 * targets from `clientsFor`.
 *
 * Usable on its own: `new BurstTargetController({ clients, log, namespaces })`, `start()`, `stop()`.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { KubernetesObject, V1Secret } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  BURST_TARGET_API_VERSION,
  BURST_TARGET_KIND,
  BURST_TARGET_PLURAL,
  GROUP,
  VERSION_V1ALPHA1,
  formatProblem,
  namespaceOf,
  validateBurstTarget,
  type BurstTarget,
  type DefaultedBurstTarget,
} from '../../api/index.ts';
// Loaded on the first BurstTarget's check: it brings the official client (docs/performance.md).
import type { ProviderConnector, TargetConnected } from '../../burst/target-connection.ts';
import {
  DEFAULT_RETRY_SCHEDULE,
  burstTargetStatus,
  nextCheckDelayMs,
  targetStatusChanged,
  targetTransitionEvents,
  type CheckOutcome,
  type RetrySchedule,
} from '../../burst/target-status.ts';
import type { InstallOperator } from '../../burst/install-operator.ts';
import { reconcileLogger } from '../../observability/logger.ts';
import { describeApiError, isNotFound, isTransient } from '../../kube/api-errors.ts';
import type { ApiServerRecovery } from '../../runtime/api-server-recovery.ts';
import { EventRecorder } from '../../runtime/events.ts';
import { watchFailureLogger } from '../../runtime/failure-log.ts';
import { ResilientInformer, type WatchedKind } from '../../runtime/informers.ts';
import type { ApiClients } from '../../kube/api-clients.ts';
import type { AnsweredRequest } from '../../kube/transport.ts';
import { WorkQueue } from '../../runtime/work-queue.ts';
import { objectKey, splitObjectKey, type ObjectKey } from '../../runtime/object-key.ts';
import { customObjectsPath, listCustomObjects, patchFinalizers } from '../../kube/custom-objects.ts';
import { readSecret } from '../../kube/secrets.ts';
import { FIELD_MANAGER, REPORTING_CONTROLLER } from '../../deploy/constants.ts';
import {
  copyUpToDate,
  credentialsCopy,
  credentialsCopyName,
  credentialsSecretOf,
  withCredentialsSecret,
} from './credentials-copy.ts';

export const BURST_TARGET_CONTROLLER_NAME = 'bursttarget';
/** Holds a gke/eks BurstTarget's deletion until the cloud cluster the operator made is deleted. */
export const PROVISIONED_CLUSTER_FINALIZER = 'flux-framework.org/provisioned-cluster';

/** A BurstTarget as the API returns it. */
export type LiveBurstTarget = BurstTarget &
  KubernetesObject & {
    metadata: BurstTarget['metadata'] & {
      resourceVersion?: string;
      deletionTimestamp?: Date | string;
      finalizers?: string[];
    };
  };

export interface BurstTargetControllerOptions {
  readonly clients: ApiClients;
  readonly log: Logger;
  /** Namespaces to watch; empty for all. */
  readonly namespaces: readonly string[];
  /** Targets checked in parallel (default 4). */
  readonly concurrency?: number;
  /** The manager's: restarts the BurstTarget watch as soon as the API server is back. */
  readonly recovery?: ApiServerRecovery;
  /** Re-check and backoff intervals (default: 1 min; 5 s doubling up to 5 min). */
  readonly schedule?: Partial<RetrySchedule>;
  /** How long a target has to answer each request (default 10 s). */
  readonly connectTimeoutMs?: number;
  /** Connectors of the GKE and EKS providers; without one, such targets are UnsupportedProvider. */
  readonly providers?: Partial<Record<'gke' | 'eks', ProviderConnector>>;
  /** How a kubeconfig target with installOperator gets the operator; the release image by default. */
  readonly installOperator?: InstallOperator;
  /** Identity in events (reportingInstance); host, pid and a random suffix by default. */
  readonly identity?: string;
  /** Sees every request to a target's cluster, with the target's API server URL (the metrics). */
  readonly onTargetRequest?: (request: AnsweredRequest, server: string) => void;
  /**
   * One step of deleting the cloud cluster of a gke/eks BurstTarget (the providers' deleteProvisioned);
   * with it, such targets get a finalizer that holds their deletion until the cluster is gone.
   */
  readonly deleteProvisioned?: (
    target: DefaultedBurstTarget,
  ) => Promise<
    | { readonly ok: true; readonly done: boolean; readonly message: string }
    | { readonly ok: false; readonly reason: string; readonly message: string }
  >;
  /** Called when a target becomes connected or stops being connected. */
  readonly onConnectionChange?: (namespace: string, name: string, connected: boolean) => void;
  readonly now?: () => Date;
}

/** What the controller knows of a connected target. */
export type TargetConnectionInfo = Omit<TargetConnected, 'ok'> & {
  /** spec.queueName: Kueue's queue on the target, named by the burst MiniClusters made there. */
  readonly queueName?: string;
};

/** How to list and watch BurstTargets. */
export function burstTargetKind(clients: ApiClients): WatchedKind<LiveBurstTarget> {
  const { custom } = clients;
  return {
    name: BURST_TARGET_KIND,
    path: (namespace) => customObjectsPath(BURST_TARGET_PLURAL, namespace),
    list: (namespace, labelSelector) =>
      listCustomObjects<LiveBurstTarget>(custom, BURST_TARGET_PLURAL, namespace, labelSelector),
  };
}

export class BurstTargetController {
  private readonly options: BurstTargetControllerOptions;
  private readonly schedule: RetrySchedule;
  private readonly informer: ResilientInformer<LiveBurstTarget>;
  private readonly queue: WorkQueue;
  private readonly recorder: EventRecorder;
  private readonly connections = new Map<ObjectKey, TargetConnectionInfo>();
  private readonly failures = new Map<ObjectKey, number>();
  private readonly seenGenerations = new Map<ObjectKey, number | undefined>();
  private readonly now: () => Date;

  constructor(options: BurstTargetControllerOptions) {
    this.options = options;
    this.schedule = { ...DEFAULT_RETRY_SCHEDULE, ...options.schedule };
    this.now = options.now ?? (() => new Date());
    const { clients, log } = options;
    this.recorder = new EventRecorder({
      api: clients.events,
      controller: REPORTING_CONTROLLER,
      instance: options.identity ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
      onError: (error) => log.warn({ error: describeApiError(error) }, 'could not record an event'),
    });
    this.informer = new ResilientInformer<LiveBurstTarget>({
      transport: clients.transport,
      kind: burstTargetKind(clients),
      namespaces: options.namespaces,
      handlers: {
        onAdd: (target) => this.onTarget(target),
        onUpdate: (target) => this.onTarget(target),
        onDelete: (target) => this.onDeleted(target),
      },
      onError: watchFailureLogger(log, () => options.recovery?.serverAway ?? false),
      ...(options.recovery ? { recovery: options.recovery } : {}),
    });
    this.queue = new WorkQueue((key) => this.check(key), {
      concurrency: options.concurrency ?? 4,
      baseDelayMs: this.schedule.initialBackoffMs,
      maxDelayMs: this.schedule.maxBackoffMs,
      onError: (key, error, attempt) => {
        const { namespace, name } = splitObjectKey(key);
        const transient = (options.recovery?.serverAway ?? false) || isTransient(error);
        (transient ? log.warn.bind(log) : log.error.bind(log))(
          { namespace, name, attempt, error: describeApiError(error) },
          'BurstTarget check failed; retrying',
        );
      },
    });
  }

  /** True once the BurstTarget cache has listed once. */
  get synced(): boolean {
    return this.informer.hasSynced;
  }

  async start(): Promise<void> {
    await this.informer.start();
  }

  async stop(): Promise<void> {
    this.queue.stop();
    await this.informer.stop();
    this.connections.clear();
  }

  /** Resolves when no check is queued or running (tests). Delayed re-checks count as pending. */
  async idle(): Promise<void> {
    await this.queue.idle();
  }

  /** Clients of the target cluster while the BurstTarget is connected; undefined otherwise. */
  clientsFor(namespace: string, targetName: string): ApiClients | undefined {
    return this.connections.get(objectKey(namespace, targetName))?.clients;
  }

  /** Clients, server, version and target namespace of a connected BurstTarget. */
  /** Every target connected now. */
  connectedTargets(): TargetConnectionInfo[] {
    return [...this.connections.values()];
  }

  connectionFor(namespace: string, targetName: string): TargetConnectionInfo | undefined {
    return this.connections.get(objectKey(namespace, targetName));
  }

  /** Checks the target again now (e.g. after a request to it failed). */
  recheck(namespace: string, targetName: string): void {
    this.queue.add(objectKey(namespace, targetName));
  }

  /** A spec change (generation) or first sight triggers a check; our own status writes do not. */
  private onTarget(target: LiveBurstTarget): void {
    const key = objectKey(namespaceOf(target), target.metadata.name);
    const generation = target.metadata.generation;
    const seen = this.seenGenerations.has(key) ? this.seenGenerations.get(key) : -1;
    this.seenGenerations.set(key, generation);
    if (seen !== generation || target.metadata.deletionTimestamp) {
      this.failures.delete(key);
      this.queue.add(key);
    }
  }

  private onDeleted(target: LiveBurstTarget): void {
    const namespace = namespaceOf(target);
    const key = objectKey(namespace, target.metadata.name);
    this.seenGenerations.delete(key);
    this.failures.delete(key);
    this.queue.forget(key);
    this.forgetConnection(namespace, target.metadata.name);
  }

  private forgetConnection(namespace: string, name: string): void {
    if (this.connections.delete(objectKey(namespace, name))) {
      this.options.onConnectionChange?.(namespace, name, false);
    }
  }

  private readSecret(namespace: string, name: string): Promise<V1Secret | undefined> {
    return readSecret({ core: this.options.clients.core }, name, namespace);
  }

  /** One check of one target: connect, write status, record events, schedule the next check. */
  /** A gke/eks target whose cluster this operator creates, so must delete. */
  private provisions(target: LiveBurstTarget): boolean {
    return (
      this.options.deleteProvisioned !== undefined &&
      (target.spec.provider === 'gke' || target.spec.provider === 'eks')
    );
  }

  private async setFinalizers(target: LiveBurstTarget, finalizers: string[]): Promise<void> {
    await patchFinalizers(this.options.clients.custom, BURST_TARGET_PLURAL, target, finalizers);
  }

  /** The copy of the credentials Secret, made or brought up to date (credentials-copy.ts). */
  private async keepCredentialsCopy(live: LiveBurstTarget): Promise<void> {
    const secretName = credentialsSecretOf(live);
    if (secretName === undefined) return;
    const namespace = namespaceOf(live);
    // A missing Secret is the connection's to report (SecretMissing); the last copy stays.
    const original = await this.readSecret(namespace, secretName);
    if (!original) return;
    const wanted = credentialsCopy(live, original);
    const current = await this.readSecret(namespace, credentialsCopyName(live.metadata.name));
    if (copyUpToDate(current, wanted)) return;
    await this.options.clients.objects.apply(wanted, FIELD_MANAGER);
  }

  /** Lets the copy go once the cluster it served is deleted (or left alone). */
  private async releaseCredentialsCopy(namespace: string, name: string): Promise<void> {
    await this.options.clients.objects.apply(
      { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace, finalizers: [] } },
      FIELD_MANAGER,
    );
    await this.options.clients.core.deleteNamespacedSecret({ name, namespace }).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
  }

  /** A deleted gke/eks target: delete its cloud cluster step by step, then release the finalizer. */
  private async deleteProvisionedCluster(key: ObjectKey, live: LiveBurstTarget): Promise<void> {
    const finalizers = live.metadata.finalizers ?? [];
    if (!finalizers.includes(PROVISIONED_CLUSTER_FINALIZER)) return;
    const deleteProvisioned = this.options.deleteProvisioned;
    const validated = validateBurstTarget({
      ...live,
      metadata: { ...live.metadata, deletionTimestamp: undefined },
    });
    const copyName = credentialsCopyName(live.metadata.name);
    const copy =
      credentialsSecretOf(live) === undefined
        ? undefined
        : await this.readSecret(namespaceOf(live), copyName);
    if (deleteProvisioned && validated.ok) {
      // The copy: the user's Secret may be gone with a terminating namespace (credentials-copy.ts).
      const outcome = await deleteProvisioned(
        copy ? withCredentialsSecret(validated.value, copyName) : validated.value,
      );
      if (!outcome.ok || !outcome.done) {
        const failures = (this.failures.get(key) ?? 0) + 1;
        this.failures.set(key, failures);
        this.options.log.info(
          { namespace: live.metadata.namespace, name: live.metadata.name, detail: outcome.message },
          'deleting the cluster of a deleted BurstTarget',
        );
        this.queue.addAfter(key, nextCheckDelayMs(outcome.ok ? 1 : failures, this.schedule));
        return;
      }
      // Deleted, or left alone as not this BurstTarget's (src/burst/providers/ownership.ts): say which.
      this.options.log.info(
        { namespace: live.metadata.namespace, name: live.metadata.name, detail: outcome.message },
        'released the finalizer of a deleted BurstTarget',
      );
    }
    // Deleted, or nothing this operator can delete (the escape hatch: it never blocks deletion for good).
    if (copy) await this.releaseCredentialsCopy(namespaceOf(live), copyName);
    await this.setFinalizers(
      live,
      finalizers.filter((finalizer) => finalizer !== PROVISIONED_CLUSTER_FINALIZER),
    );
  }

  private async check(key: ObjectKey): Promise<void> {
    const { namespace, name } = splitObjectKey(key);
    const live = this.informer.get(name, namespace);
    if (!live) {
      this.forgetConnection(namespace, name);
      return;
    }
    if (live.metadata.deletionTimestamp) {
      this.forgetConnection(namespace, name);
      await this.deleteProvisionedCluster(key, live);
      return;
    }
    if (this.provisions(live) && !(live.metadata.finalizers ?? []).includes(PROVISIONED_CLUSTER_FINALIZER)) {
      // Before anything is made in the cloud. The check goes on: a finalizer is no new generation, so
      // the watch does not bring this target back (onTarget), and returning here left it unchecked.
      await this.setFinalizers(live, [...(live.metadata.finalizers ?? []), PROVISIONED_CLUSTER_FINALIZER]);
    }
    if (this.provisions(live)) await this.keepCredentialsCopy(live);
    const log = reconcileLogger(this.options.log, {
      namespace,
      name,
      controller: BURST_TARGET_CONTROLLER_NAME,
    });
    const outcome = await this.connect(live);
    if (outcome.ok) {
      const wasConnected = this.connections.has(key);
      this.connections.set(key, {
        clients: outcome.clients,
        server: outcome.server,
        version: outcome.version,
        namespace: outcome.namespace,
        // Kueue's queue there, which the burst MiniClusters made on it name (docs/kueue.md).
        ...(live.spec.queueName === undefined ? {} : { queueName: live.spec.queueName }),
      });
      this.failures.delete(key);
      if (!wasConnected) this.options.onConnectionChange?.(namespace, name, true);
    } else {
      this.forgetConnection(namespace, name);
      this.failures.set(key, (this.failures.get(key) ?? 0) + 1);
      log.warn({ reason: outcome.reason, detail: outcome.message }, 'burst target not connected');
    }

    const previous = live.status;
    const next = burstTargetStatus({
      generation: live.metadata.generation,
      previous,
      outcome: outcome.ok
        ? { ok: true, server: outcome.server, version: outcome.version, namespace: outcome.namespace }
        : outcome,
      now: this.now(),
    });
    if (targetStatusChanged(previous, next)) {
      await this.options.clients.custom.patchNamespacedCustomObjectStatus({
        group: GROUP,
        version: VERSION_V1ALPHA1,
        namespace,
        plural: BURST_TARGET_PLURAL,
        name,
        body: { status: next },
      });
      // Events only after the status write succeeded, so they never announce what status does not show.
      for (const event of targetTransitionEvents(previous, next)) {
        await this.recorder.record(
          {
            apiVersion: BURST_TARGET_API_VERSION,
            kind: BURST_TARGET_KIND,
            name,
            namespace,
            ...(live.metadata.uid ? { uid: live.metadata.uid } : {}),
          },
          { ...event, action: 'Connect' },
        );
      }
    }
    this.queue.addAfter(key, nextCheckDelayMs(this.failures.get(key) ?? 0, this.schedule));
  }

  private async connect(
    live: LiveBurstTarget,
  ): Promise<(TargetConnected & { ok: true }) | Exclude<CheckOutcome, { ok: true }>> {
    const validated = validateBurstTarget(live);
    if (!validated.ok) {
      return {
        ok: false,
        reason: 'InvalidSpec',
        message: validated.problems.slice(0, 5).map(formatProblem).join('; '),
      };
    }
    const { connectTarget, DEFAULT_CONNECT_TIMEOUT_MS } = await import('../../burst/target-connection.ts');
    return connectTarget({
      target: validated.value,
      readSecret: (namespace, name) => this.readSecret(namespace, name),
      timeoutMs: this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      ...(this.options.providers ? { providers: this.options.providers } : {}),
      ...(this.options.installOperator ? { installOperator: this.options.installOperator } : {}),
      ...(this.options.onTargetRequest ? { onRequest: this.options.onTargetRequest } : {}),
    });
  }
}
