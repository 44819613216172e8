/**
 * One reconcile pass of a MiniCluster, as a list of named steps (Slinky style): validate, keys,
 * referenced Secrets, apply the rendered children, then status and events last. Every object comes
 * from src/render; this file only decides what to write and writes it.
 */
import type { V1Job, V1PersistentVolume, V1Pod, V1Secret, V1Service } from '@kubernetes/client-node';
import {
  API_VERSION,
  GROUP,
  KIND,
  LABEL_MINICLUSTER,
  PLURAL,
  VERSION,
  formatProblem,
  validateMiniCluster,
  type DefaultedMiniCluster,
  type MiniClusterStatus,
} from '../../api/index.ts';
import {
  exposesLeadBroker,
  miniClusterNames,
  renderMiniCluster,
  servesRestful,
  type KubeObject,
  type MiniClusterKeys,
  type MiniClusterNames,
} from '../../render/index.ts';
import { FIELD_MANAGER } from '../../deploy/constants.ts';
import { describeApiError, isConflict, isNotFound, isTransient } from '../../kube/api-errors.ts';
import { serverSideApply } from '../../kube/apply.ts';
import { containsDesired, staleChildren } from './desired-state.ts';
import { RECLAIM_PATCH, releasedVolumes } from './volume-collector.ts';
import type { EventRecorder } from '../../runtime/events.ts';
import type { ResilientInformer } from '../../runtime/informers.ts';
import type { ApiClients } from '../../kube/api-clients.ts';
import { resolveKeys } from './keys.ts';
import { RenderMemo } from './render-memo.ts';
import {
  computeStatus,
  progressOnly,
  statusChanged,
  transitionEvents,
  type BlockingProblem,
  type TransitionEvent,
} from './status.ts';
import {
  BURST_FINALIZER,
  burstStep,
  removeUndeclaredBursts,
  removeAllBursts,
  type BurstEnvironment,
  type BurstOutcome,
} from './burst-step.ts';
import type { LiveMiniCluster } from './watched-kinds.ts';
import type { ReconcileLog } from '../../observability/logger.ts';
import { deleteCustomObject, patchFinalizers } from '../../kube/custom-objects.ts';

/** How soon to look again at a MiniCluster waiting on something we do not watch (a user's Secret). */
const WAITING_REQUEUE_MS = 10_000;
/** How soon to try again an apply the API server refused (the condition and event say why). */
const APPLY_RETRY_MS = 30_000;

export interface ControllerCache {
  readonly miniClusters: ResilientInformer<LiveMiniCluster>;
  readonly jobs: ResilientInformer<V1Job>;
  readonly secrets: ResilientInformer<V1Secret>;
  readonly children: ReadonlyMap<string, ResilientInformer<KubeObject>>;
  podsOf(namespace: string, miniClusterName: string): V1Pod[];
}

/** Counts API writes, for metrics and the benchmark's "writes per MiniCluster". */
export type WriteCounter = (verb: 'apply' | 'create' | 'status' | 'delete' | 'event', kind: string) => void;

export interface ReconcilerDeps {
  readonly clients: ApiClients;
  readonly cache: ControllerCache;
  readonly recorder: EventRecorder;
  readonly countWrite: WriteCounter;
  readonly now: () => Date;
  /** Set when the operator bursts: how to reach targets and read queues. */
  readonly burst?: BurstEnvironment;
}

export interface ReconcileResult {
  /** Look again after this long even without a change (waiting on something not watched). */
  readonly requeueAfterMs?: number;
  /** Objects written in this pass. */
  readonly applied: readonly string[];
}

export function miniClusterKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

export function splitKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/**
 * A Secret this pass made new keys for exists already (the cache had not seen it yet, or another
 * operator instance made it): the pass starts again with the keys it holds.
 */
class SecretAppeared extends Error {
  readonly secret: V1Secret;

  constructor(secret: V1Secret) {
    super(`Secret ${secret.metadata?.name ?? ''} appeared meanwhile`);
    this.secret = secret;
  }
}

/** Thrown by a step that cannot go on; becomes the Ready condition's reason and message. */
class Blocked extends Error {
  readonly problem: BlockingProblem;
  readonly requeueAfterMs: number | undefined;

  constructor(problem: BlockingProblem, requeueAfterMs?: number) {
    super(problem.message);
    this.problem = problem;
    this.requeueAfterMs = requeueAfterMs;
  }
}

/**
 * Progress-only status changes (pod counts, steps of a start: see progressOnly) of one MiniCluster
 * are written at most this often: pods that start over several seconds make a write or two, not one
 * per step (docs/performance.md: writes per MiniCluster). Ready, problems and outcomes are not held.
 */
export const STATUS_PROGRESS_INTERVAL_MS = 10_000;

/**
 * Progress writes of all MiniClusters together stay under this rate: when many start at once (a
 * fleet of 1,000), each one's progress is written less often than every 10 s, and the API server
 * spends its time starting their pods. Ready, problems and outcomes are never held.
 */
export const STATUS_PROGRESS_WRITES_PER_SECOND = 20;

/** How long progress waits after a MiniCluster's last status write, with `starting` MiniClusters starting. */
export function progressIntervalMs(starting: number): number {
  return Math.max(
    STATUS_PROGRESS_INTERVAL_MS,
    Math.ceil((starting * 1000) / STATUS_PROGRESS_WRITES_PER_SECOND),
  );
}

export class Reconciler {
  private readonly deps: ReconcilerDeps;
  /** When each MiniCluster's status was last written (ms since the epoch, deps.now's clock). */
  private readonly statusWrittenAt = new Map<string, number>();
  /** MiniClusters whose last computed status is a start in progress (summary Pending or Starting). */
  private readonly starting = new Set<string>();
  private readonly memo = new RenderMemo();
  /** Per MiniCluster, Secrets a create found there already (by name), until the cache has them too. */
  private readonly appeared = new Map<string, Map<string, V1Secret>>();

  constructor(deps: ReconcilerDeps) {
    this.deps = deps;
  }

  /** One pass; `log` carries the MiniCluster's namespace, name and this pass's reconcile id. */
  async reconcile(key: string, log: ReconcileLog): Promise<ReconcileResult> {
    const { namespace, name } = splitKey(key);
    const live = this.deps.cache.miniClusters.get(name, namespace);
    if (!live) {
      this.statusWrittenAt.delete(key);
      this.starting.delete(key);
      this.memo.forget(key);
      this.appeared.delete(key);
      return { applied: [] };
    }
    // Deleted: its children go with it through their ownerReferences; burst clusters elsewhere
    // are removed here, before the finalizer lets the deletion finish.
    if (live.metadata.deletionTimestamp) {
      this.starting.delete(key);
      this.memo.forget(key);
      this.appeared.delete(key);
      return this.finalize(live, log);
    }

    const applied: string[] = [];
    let problem: BlockingProblem | undefined;
    let requeueAfterMs: number | undefined;
    let miniCluster: DefaultedMiniCluster | undefined;
    let burst: BurstOutcome | undefined;
    try {
      const defaulted = this.validated(key, live);
      miniCluster = defaulted;
      const names = miniClusterNames(miniCluster);
      await this.requireUserSecrets(miniCluster, names);
      const { keys, fresh } = this.keys(key, miniCluster, names, log);
      const objects = this.memo.rendered(key, keys, () =>
        renderMiniCluster(defaulted, keys, {
          owner: { apiVersion: API_VERSION, kind: KIND, name, uid: live.metadata.uid ?? '' },
        }),
      );
      // First: a spec change the Job cannot take must not keep what the spec dropped alive.
      const pruned = await this.pruneStale(objects, names, namespace, live.metadata.uid ?? '');
      if (pruned.length > 0) log.info({ pruned }, 'deleted what the spec no longer asks for');
      applied.push(...(await this.applyChanged(key, objects, fresh)));
      await this.reclaimReleasedVolumes(objects, log);
      if (applied.length > 0) log.info({ applied }, 'applied');
      burst = await this.burst(live, miniCluster);
      if (burst) requeueAfterMs = burst.requeueAfterMs;
    } catch (error) {
      if (error instanceof SecretAppeared) {
        const secret = error.secret.metadata?.name ?? '';
        const appeared = this.appeared.get(key) ?? new Map<string, V1Secret>();
        this.appeared.set(key, appeared.set(secret, error.secret));
        log.info({ secret }, 'a Secret of this MiniCluster appeared meanwhile; using its keys');
        return { applied, requeueAfterMs: 0 };
      }
      if (!(error instanceof Blocked)) throw error;
      problem = error.problem;
      requeueAfterMs = error.requeueAfterMs;
      log.warn({ reason: problem.reason, detail: problem.message }, 'waiting');
    }
    const statusDelayMs = await this.updateStatus(live, miniCluster, problem, log, burst);
    if (statusDelayMs !== undefined)
      requeueAfterMs = Math.min(requeueAfterMs ?? statusDelayMs, statusDelayMs);
    return requeueAfterMs === undefined ? { applied } : { applied, requeueAfterMs };
  }

  private validated(key: string, live: LiveMiniCluster): DefaultedMiniCluster {
    const result = this.memo.validated(key, live, () => validateMiniCluster(live));
    if (result.ok) return result.value;
    const message = result.problems.slice(0, 5).map(formatProblem).join('; ');
    throw new Blocked({ reason: 'InvalidSpec', message });
  }

  /** curveCertSecret / mungeSecret must exist before pods can mount them. */
  private async requireUserSecrets(
    miniCluster: DefaultedMiniCluster,
    names: MiniClusterNames,
  ): Promise<void> {
    const namespace = miniCluster.metadata.namespace ?? 'default';
    const wanted: { name: string; field: string; key: string }[] = [];
    if (!names.generatesCurveCertSecret) {
      wanted.push({ name: names.curveCertSecret, field: 'spec.flux.curveCertSecret', key: 'curve.cert' });
    }
    if (!names.generatesMungeKeySecret) {
      wanted.push({ name: names.mungeKeySecret, field: 'spec.flux.mungeSecret', key: 'munge.key' });
    }
    for (const secret of wanted) {
      const found = await this.readSecret(secret.name, namespace);
      if (!found) {
        throw new Blocked(
          {
            reason: 'SecretMissing',
            message: `${secret.field}: Secret ${namespace}/${secret.name} does not exist; create it with the key ${secret.key}`,
          },
          WAITING_REQUEUE_MS,
        );
      }
      if (found.data?.[secret.key] === undefined) {
        throw new Blocked(
          {
            reason: 'SecretMissing',
            message: `${secret.field}: Secret ${namespace}/${secret.name} has no key ${secret.key}; add it`,
          },
          WAITING_REQUEUE_MS,
        );
      }
    }
  }

  /** From the cache when the operator made it, else straight from the API (user Secrets are not watched). */
  private async readSecret(name: string, namespace: string): Promise<V1Secret | undefined> {
    const cached = this.deps.cache.secrets.get(name, namespace);
    if (cached) return cached;
    try {
      return await this.deps.clients.core.readNamespacedSecret({ name, namespace });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /**
   * The keys, from the generated Secrets the cache holds; new ones for those it does not. The cache
   * may lag (a Secret made a moment ago, or by another operator instance): so a Secret holding new
   * keys is created, never applied (`fresh`), and a create that finds one there already starts the
   * pass again with its keys (SecretAppeared). Keys are never stored twice for one MiniCluster.
   */
  private keys(
    key: string,
    miniCluster: DefaultedMiniCluster,
    names: MiniClusterNames,
    log: ReconcileLog,
  ): { keys: MiniClusterKeys; fresh: ReadonlySet<string> } {
    const namespace = miniCluster.metadata.namespace ?? 'default';
    const restful = servesRestful(miniCluster);
    const fresh = new Set<string>();
    const stored = (wanted: boolean, name: string): V1Secret | undefined => {
      if (!wanted) return undefined;
      const cached = this.deps.cache.secrets.get(name, namespace);
      if (cached) this.appeared.get(key)?.delete(name);
      const found = cached ?? this.appeared.get(key)?.get(name);
      if (!found) fresh.add(name);
      return found;
    };
    const existing = {
      curveCert: stored(names.generatesCurveCertSecret, names.curveCertSecret),
      mungeKey: stored(names.generatesMungeKeySecret, names.mungeKeySecret),
      restful: stored(restful, names.restful),
    };
    const { keys, generated } = resolveKeys(
      miniCluster.metadata.name,
      names,
      existing,
      this.deps.now(),
      restful,
    );
    if (generated) log.info({}, 'generated keys');
    return { keys, fresh };
  }

  /**
   * Server-side applies each rendered object the live state does not already match. What the pods
   * mount or resolve (ConfigMap, Secrets, Services) goes first, together; the Job last, so its pods
   * never start without them. A Job about to change is first applied as a dry run, so that one the
   * API server refuses leaves nothing half-made (or half-updated) behind.
   */
  private async applyChanged(
    key: string,
    objects: readonly KubeObject[],
    fresh: ReadonlySet<string>,
  ): Promise<string[]> {
    const changed = objects.filter((object) => {
      const informer = this.deps.cache.children.get(object.kind);
      // Cluster-wide objects (PersistentVolumes) are cached without a namespace.
      const live = informer?.get(object.metadata.name, object.metadata.namespace ?? '');
      return !this.memo.contains(key, object, live, containsDesired);
    });
    const before = changed.filter((object) => object.kind !== 'Job');
    const jobs = changed.filter((object) => object.kind === 'Job');
    if (before.length > 0) {
      for (const job of jobs) await this.applyOne(job, { dryRun: true });
    }
    const results = await Promise.allSettled(
      before.map((object) =>
        object.kind === 'Secret' && fresh.has(object.metadata.name)
          ? this.createSecret(object as V1Secret & KubeObject)
          : this.applyOne(object),
      ),
    );
    const failure = results.find((result) => result.status === 'rejected');
    if (failure) throw failure.reason;
    for (const job of jobs) await this.applyOne(job);
    return changed.map((object) => `${object.kind}/${object.metadata.name}`);
  }

  /**
   * Deletes the children the spec stopped asking for. Only the services Deployment can go this way
   * (every other child exists whatever the spec says, or belongs to bursting, which removes its own).
   */
  private async pruneStale(
    objects: readonly KubeObject[],
    names: MiniClusterNames,
    namespace: string,
    uid: string,
  ): Promise<string[]> {
    const live = this.deps.cache.children.get('Deployment')?.get(names.services, namespace);
    const stale = staleChildren(objects, live ? [{ ...live, kind: 'Deployment' }] : [], uid);
    const deleted: string[] = [];
    for (const object of stale) {
      const name = object.metadata.name;
      this.deps.countWrite('delete', 'Deployment');
      try {
        await this.deps.clients.apps.deleteNamespacedDeployment({
          name,
          namespace,
          propagationPolicy: 'Background',
        });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
      deleted.push(`Deployment/${name}`);
    }
    return deleted;
  }

  /** Released PersistentVolumes of this MiniCluster take its claims again (see releasedVolumes). */
  private async reclaimReleasedVolumes(objects: readonly KubeObject[], log: ReconcileLog): Promise<void> {
    const informer = this.deps.cache.children.get('PersistentVolume');
    const wanted = objects
      .filter((object) => object.kind === 'PersistentVolume')
      .map((object) => object.metadata.name);
    for (const name of releasedVolumes(
      wanted,
      (volume) => informer?.get(volume, '') as V1PersistentVolume | undefined,
    )) {
      this.deps.countWrite('apply', 'PersistentVolume');
      await this.deps.clients.core.patchPersistentVolume({ name, body: RECLAIM_PATCH });
      log.info({ persistentVolume: name }, 'released volume made available to its claim again');
    }
  }

  private async createSecret(secret: V1Secret & KubeObject): Promise<void> {
    const { name, namespace = 'default' } = secret.metadata;
    try {
      this.deps.countWrite('create', 'Secret');
      await this.deps.clients.core.createNamespacedSecret({
        namespace,
        body: secret,
        fieldManager: FIELD_MANAGER,
      });
    } catch (error) {
      // A create answers 409 only when the object exists.
      if (!isConflict(error)) this.applyFailure(secret, error);
      throw new SecretAppeared(await this.deps.clients.core.readNamespacedSecret({ name, namespace }));
    }
  }

  private async applyOne(object: KubeObject, options: { dryRun?: boolean } = {}): Promise<void> {
    try {
      if (!options.dryRun) this.deps.countWrite('apply', object.kind);
      await serverSideApply(this.deps.clients.objects, object, FIELD_MANAGER, options);
    } catch (error) {
      this.applyFailure(object, error);
    }
  }

  /** Why a write of `object` failed, as the error the pass ends with. */
  private applyFailure(object: KubeObject, error: unknown): never {
    const id = `${object.kind}/${object.metadata.name}`;
    // Unreachable or overloaded: not the MiniCluster's problem; the queue's backoff retries it.
    if (isTransient(error)) throw error;
    const message = describeApiError(error);
    // The Job's pod template is immutable: a change there needs a new Flux instance anyway.
    const reason =
      object.kind === 'Job' && /field is immutable/.test(message) ? 'SpecChangeNeedsRecreate' : 'ApplyFailed';
    const fix =
      reason === 'SpecChangeNeedsRecreate'
        ? '; the pod template of a running MiniCluster cannot change: delete and recreate the MiniCluster'
        : '';
    // A Job refused as immutable waits for the user to recreate the MiniCluster (a spec change
    // triggers a pass by itself); any other refusal may end without one (a policy or a permission
    // changed): looked at again, slowly, since the condition and the event already say it all.
    throw new Blocked(
      { reason, message: `applying ${id}: ${message}${fix}` },
      reason === 'ApplyFailed' ? APPLY_RETRY_MS : undefined,
    );
  }

  private async updateStatus(
    live: LiveMiniCluster,
    miniCluster: DefaultedMiniCluster | undefined,
    problem: BlockingProblem | undefined,
    log: ReconcileLog,
    burst?: BurstOutcome,
  ): Promise<number | undefined> {
    const namespace = live.metadata.namespace ?? 'default';
    const name = live.metadata.name;
    const job = this.deps.cache.jobs.get(miniCluster ? miniClusterNames(miniCluster).job : name, namespace);
    const subject: DefaultedMiniCluster =
      miniCluster ??
      // An invalid spec still gets a status; defaults that cannot be computed fall back to the raw spec.
      ({
        ...live,
        spec: { ...live.spec, maxSize: live.spec.maxSize ?? live.spec.size ?? 1, size: live.spec.size ?? 1 },
      } as DefaultedMiniCluster);
    const previous = live.status;
    const leadBrokerService =
      miniCluster && exposesLeadBroker(miniCluster)
        ? (this.deps.cache.children
            .get('Service')
            ?.get(miniClusterNames(miniCluster).leadBrokerService, namespace) as V1Service | undefined)
        : undefined;
    const next = computeStatus({
      ...(leadBrokerService ? { leadBrokerService } : {}),
      ...(burst ? { burst: { bursts: burst.bursts, jobs: burst.jobs, condition: burst.condition } } : {}),
      miniCluster: subject,
      previous,
      job: job?.metadata?.labels?.[LABEL_MINICLUSTER] === name ? job : undefined,
      pods: this.deps.cache.podsOf(namespace, name),
      ...(problem ? { problem } : {}),
      now: this.deps.now(),
    });
    const key = miniClusterKey(namespace, name);
    if (next.summary === 'Pending' || next.summary === 'Starting') this.starting.add(key);
    else this.starting.delete(key);
    if (!statusChanged(previous, next)) return undefined;
    // Progress alone waits out the interval since the last write, then the latest is written.
    const nowMs = this.deps.now().getTime();
    const sinceLast = nowMs - (this.statusWrittenAt.get(key) ?? Number.NEGATIVE_INFINITY);
    const interval = progressIntervalMs(this.starting.size);
    if (progressOnly(previous, next) && sinceLast >= 0 && sinceLast < interval) {
      return interval - sinceLast;
    }
    this.statusWrittenAt.set(key, nowMs);
    this.deps.countWrite('status', KIND);
    await this.deps.clients.custom.patchNamespacedCustomObjectStatus({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: PLURAL,
      name,
      body: { status: statusPatch(previous, next) },
    });
    await this.emitTransitions(live, previous, next, burst?.events ?? []);
    if (miniCluster?.spec.cleanup && (next.summary === 'Succeeded' || next.summary === 'Failed')) {
      this.deps.countWrite('delete', KIND);
      await deleteCustomObject(this.deps.clients.custom, PLURAL, namespace, name);
      log.info({}, 'cleanup: deleted the finished MiniCluster');
    }
    return undefined;
  }

  /** Events after the status write succeeded, so they never announce what status does not show. */
  private async emitTransitions(
    live: LiveMiniCluster,
    previous: MiniClusterStatus | undefined,
    next: MiniClusterStatus,
    extra: readonly TransitionEvent[],
  ): Promise<void> {
    const target = {
      apiVersion: API_VERSION,
      kind: KIND,
      name: live.metadata.name,
      namespace: live.metadata.namespace ?? 'default',
      ...(live.metadata.uid ? { uid: live.metadata.uid } : {}),
    };
    for (const event of [...transitionEvents(previous, next), ...extra]) {
      await this.deps.recorder.record(target, { ...event, action: 'Reconcile' });
    }
  }

  /** The bursting step, for a MiniCluster that declares burst slots (and a finalizer while it has bursts). */
  private async burst(
    live: LiveMiniCluster,
    miniCluster: DefaultedMiniCluster,
  ): Promise<BurstOutcome | undefined> {
    const environment = this.deps.burst;
    if (!environment) return undefined;
    if (!exposesLeadBroker(miniCluster)) {
      const bursts = live.status?.bursts ?? [];
      return bursts.length > 0 ? removeUndeclaredBursts(environment, miniCluster, bursts) : undefined;
    }
    const namespace = miniCluster.metadata.namespace ?? 'default';
    const name = miniCluster.metadata.name;
    const service = this.deps.cache.children
      .get('Service')
      ?.get(miniClusterNames(miniCluster).leadBrokerService, namespace) as V1Service | undefined;
    const outcome = await burstStep(
      miniCluster,
      live.status,
      this.deps.cache.podsOf(namespace, name),
      service,
      environment,
    );
    const finalizers = live.metadata.finalizers ?? [];
    if (outcome.bursts.length > 0 && !finalizers.includes(BURST_FINALIZER)) {
      await this.setFinalizers(live, [...finalizers, BURST_FINALIZER]);
    }
    return outcome;
  }

  private async setFinalizers(live: LiveMiniCluster, finalizers: string[]): Promise<void> {
    this.deps.countWrite('apply', KIND);
    await patchFinalizers(this.deps.clients.custom, PLURAL, live, finalizers);
  }

  /** A MiniCluster being deleted: remove its burst clusters, then let the deletion finish. */
  private async finalize(live: LiveMiniCluster, log: ReconcileLog): Promise<ReconcileResult> {
    const finalizers = live.metadata.finalizers ?? [];
    if (!finalizers.includes(BURST_FINALIZER)) return { applied: [] };
    const environment = this.deps.burst;
    const validated = validateMiniCluster({
      ...live,
      metadata: { ...live.metadata, deletionTimestamp: undefined },
    });
    if (environment && validated.ok) {
      const unreachable = await removeAllBursts(environment, validated.value, live.status?.bursts ?? []);
      if (unreachable.length > 0) {
        log.warn({ targets: unreachable }, 'cannot reach burst targets to remove burst clusters; retrying');
        return { applied: [], requeueAfterMs: 10_000 };
      }
    }
    // Without a burst environment (or a valid spec) nothing can be removed: the escape hatch is to
    // remove the finalizer by hand, which this also does rather than block deletion forever.
    await this.setFinalizers(
      live,
      finalizers.filter((finalizer) => finalizer !== BURST_FINALIZER),
    );
    log.info({}, 'removed burst clusters; deletion can finish');
    return { applied: [] };
  }
}

/**
 * A JSON merge patch from one status to the next: fields the next status no longer has are set to
 * null, since a merge patch leaves absent fields as they were.
 */
export function statusPatch(
  previous: MiniClusterStatus | undefined,
  next: MiniClusterStatus,
): Record<string, unknown> {
  const patch: Record<string, unknown> = { ...next };
  for (const key of Object.keys(previous ?? {})) {
    if (!(key in next)) patch[key] = null;
  }
  return patch;
}
