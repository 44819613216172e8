/**
 * One reconcile pass of a MiniCluster, as a list of named steps (Slinky style) run by
 * src/runtime/steps.ts: validate, user Secrets, keys, render, prune, apply, volumes, burst, then
 * status (computed, written once, then the events) and cleanup, which run even when an earlier step
 * stopped the pass on a blocking problem. Every object comes from src/render; this file only decides
 * what to write and writes it.
 */
import type { V1Job, V1PersistentVolume, V1Pod, V1Secret, V1Service } from '@kubernetes/client-node';
import {
  GROUP,
  KIND,
  LABEL_MINICLUSTER,
  PLURAL,
  SECRET_DATA_KEYS,
  formatProblem,
  namespaceOf,
  type MiniClusterStatus,
} from '../../api/index.ts';
import {
  notYetRenderedProblems,
  toV1alpha2,
  validateMiniClusterV1alpha2,
  type ValidationResultV1alpha2,
} from '../../api/v1alpha2/index.ts';
import {
  exposesLeadBroker,
  miniClusterNames,
  renderMiniCluster,
  servesRestful,
  type KubeObject,
  type MiniClusterKeys,
  type MiniClusterNames,
  type MiniClusterModel,
} from '../../render/index.ts';
import { FIELD_MANAGER } from '../../deploy/constants.ts';
import { describeApiError, isConflict, isNotFound, isTransient } from '../../kube/api-errors.ts';
import { serverSideApply, type Applier } from '../../kube/apply.ts';
import type { AppsApi, CoreApi, CustomObjectsApi } from '../../kube/api-clients.ts';
import { containsDesired, staleChildren } from './desired-state.ts';
import { RECLAIM_PATCH, releasedVolumes } from './volume-collector.ts';
import type { EventRecorder } from '../../runtime/events.ts';
import type { ResilientInformer } from '../../runtime/informers.ts';
import {
  CONTINUE,
  continueAfter,
  restart,
  runSteps,
  stop,
  type Step,
  type StepResult,
} from '../../runtime/steps.ts';
import { resolveKeys } from './keys.ts';
import { HOST_STORAGE_RECHECK_MS, hostStorageProblem } from './host-storage-check.ts';
import { RenderMemo } from './render-memo.ts';
import { readSecret } from '../../kube/secrets.ts';
import { splitObjectKey, type ObjectKey } from '../../runtime/object-key.ts';
import type { WriteCounter } from '../../runtime/write-counter.ts';
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
  removeUndeclaredBursts,
  removeAllBursts,
  type BurstEnvironment,
  type BurstOutcome,
} from './burst-step.ts';
import { observeBursts } from './burst-observe.ts';
import {
  fluxQueueCounts,
  scaleStep,
  type FluxQueueObserver,
  type ScaleMemory,
  type ScaleOutcome,
} from './scale-step.ts';
import { planBurstActions } from './burst-plan.ts';
import { actOnPlan } from './burst-act.ts';
import { MINICLUSTER_API_VERSION, MINICLUSTER_VERSION, type LiveMiniCluster } from './watched-kinds.ts';
import {
  SPEC_CHANGE_NEEDS_RECREATE,
  keepingLiveTemplate,
  templateSpecKey,
  withTemplateSpecKey,
} from './job-template.ts';
import type { ReconcileLog } from '../../observability/logger.ts';
import { deleteCustomObject, patchFinalizers } from '../../kube/custom-objects.ts';

/** How soon to look again at a MiniCluster waiting on something we do not watch (a user's Secret). */
const WAITING_REQUEUE_MS = 10_000;

/** The children a spec change can drop (see pruneStale), by kind and name. */
const PRUNABLE = (
  names: MiniClusterNames,
): readonly (readonly ['Deployment' | 'Service' | 'Secret', string])[] => [
  ['Deployment', names.services],
  ['Service', names.restful],
  ['Secret', names.restful],
];
/** How soon to try again an apply the API server refused (the condition and event say why). */
const APPLY_RETRY_MS = 30_000;

/** The caches the operator keeps (the manager's informers). */
export interface ControllerCache {
  readonly miniClusters: ResilientInformer<LiveMiniCluster>;
  readonly jobs: ResilientInformer<V1Job>;
  readonly secrets: ResilientInformer<V1Secret>;
  readonly children: ReadonlyMap<string, ResilientInformer<KubeObject>>;
  podsOf(namespace: string, miniClusterName: string): V1Pod[];
}

/** One object of a cache by name; cluster-wide objects (PersistentVolumes) with namespace ''. */
export interface CacheReader<T> {
  get(name: string, namespace: string): T | undefined;
}

/** What the reconciler reads of the caches (ControllerCache is one). */
export interface ReconcilerCache {
  readonly miniClusters: CacheReader<LiveMiniCluster>;
  readonly jobs: CacheReader<V1Job>;
  readonly secrets: CacheReader<V1Secret>;
  readonly children: ReadonlyMap<string, CacheReader<KubeObject>>;
  podsOf(namespace: string, miniClusterName: string): V1Pod[];
}

/** The API calls the reconciler makes (ApiClients has them all). */
export interface ReconcilerClients {
  readonly objects: Applier;
  readonly core: Pick<
    CoreApi,
    | 'readNamespace'
    | 'readNamespacedSecret'
    | 'createNamespacedSecret'
    | 'deleteNamespacedSecret'
    | 'deleteNamespacedService'
    | 'patchPersistentVolume'
  >;
  readonly apps: Pick<AppsApi, 'deleteNamespacedDeployment'>;
  readonly custom: Pick<
    CustomObjectsApi,
    'patchNamespacedCustomObjectStatus' | 'patchNamespacedCustomObject' | 'deleteNamespacedCustomObject'
  >;
}

export interface ReconcilerDeps {
  readonly clients: ReconcilerClients;
  readonly cache: ReconcilerCache;
  readonly recorder: Pick<EventRecorder, 'record'>;
  readonly countWrite: WriteCounter;
  readonly now: () => Date;
  /** Set when the operator bursts: how to reach targets and read queues. */
  readonly burst?: BurstEnvironment;
  /** Each step's duration in seconds, by step name (flux_operator_reconcile_step_duration_seconds). */
  readonly observeStep?: (step: string, seconds: number) => void;
  /** The Flux view image of MiniClusters that name none (`flux.container.image`). Unset: the API's default. */
  readonly fluxViewImage?: string;
  /** Namespaces allowed host storage besides those labelled (the Helm value hostStorageNamespaces). */
  readonly hostStorageNamespaces?: readonly string[];
  /** Each Flux queue the scale step reads, in counts (the flux_operator_flux_* metrics). */
  readonly observeFluxQueue?: FluxQueueObserver;
}

export interface ReconcileResult {
  /** Look again after this long even without a change (waiting on something not watched). */
  readonly requeueAfterMs?: number;
  /** Objects written in this pass. */
  readonly applied: readonly string[];
}

/** What the steps of one pass share: each step reads what the ones before it found. */
interface Pass {
  readonly objectKey: ObjectKey;
  readonly namespace: string;
  readonly name: string;
  readonly live: LiveMiniCluster;
  readonly log: ReconcileLog;
  /** Set by validate. */
  miniCluster?: MiniClusterModel;
  names?: MiniClusterNames;
  /** Set by keys: the keys, and the generated Secrets that hold new ones (created, never applied). */
  keys?: MiniClusterKeys;
  fresh: ReadonlySet<string>;
  /** Set by render. */
  objects: readonly KubeObject[];
  /** Objects written by apply. */
  readonly applied: string[];
  /** Set by scale: the Job's size this pass, the queue as read, status.autoscale. */
  scale?: ScaleOutcome;
  /** Set by burst. */
  burst?: BurstOutcome;
  /** The status written this pass, if one was (cleanup follows it). */
  written?: MiniClusterStatus;
}

type Result = StepResult<BlockingProblem>;

/** A step's refusal: the pass stops on this problem. */
type Refusal = Extract<Result, { next: 'stop' }>;

/** The MiniCluster and its names, which every step after validate has. */
function validOf(pass: Pass): { miniCluster: MiniClusterModel; names: MiniClusterNames } {
  const { miniCluster, names } = pass;
  if (!miniCluster || !names) throw new Error('a reconcile step ran before validate');
  return { miniCluster, names };
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
  /** Per MiniCluster, what the scale step remembers between passes (last read, ranks' last busy times). */
  private readonly scaleMemory = new Map<string, ScaleMemory>();
  /** The steps of a pass, in order. */
  private readonly steps: readonly Step<Pass, BlockingProblem>[] = [
    { name: 'validate', run: (pass) => this.validate(pass) },
    { name: 'host-storage', run: (pass) => this.checkHostStorage(pass) },
    { name: 'user-secrets', run: (pass) => this.requireUserSecrets(pass) },
    { name: 'keys', run: (pass) => this.keys(pass) },
    { name: 'scale', run: (pass) => this.scale(pass) },
    { name: 'render', run: (pass) => this.render(pass) },
    { name: 'prune', run: (pass) => this.pruneStale(pass) },
    { name: 'apply', run: (pass) => this.applyChanged(pass) },
    { name: 'volumes', run: (pass) => this.reclaimReleasedVolumes(pass) },
    { name: 'burst', run: (pass) => this.burst(pass) },
    { name: 'status', always: true, run: (pass, stopped) => this.updateStatus(pass, stopped?.problem) },
    { name: 'cleanup', always: true, run: (pass) => this.cleanup(pass) },
  ];

  constructor(deps: ReconcilerDeps) {
    this.deps = deps;
  }

  /** One pass; `log` carries the MiniCluster's namespace, name and this pass's reconcile id. */
  async reconcile(objectKey: ObjectKey, log: ReconcileLog): Promise<ReconcileResult> {
    const { namespace, name } = splitObjectKey(objectKey);
    const live = this.deps.cache.miniClusters.get(name, namespace);
    if (!live) {
      this.forgetScale(objectKey);
      this.statusWrittenAt.delete(objectKey);
      this.starting.delete(objectKey);
      this.memo.forget(objectKey);
      this.appeared.delete(objectKey);
      return { applied: [] };
    }
    // Deleted: its children go with it through their ownerReferences; burst clusters elsewhere
    // are removed here, before the finalizer lets the deletion finish.
    if (live.metadata.deletionTimestamp) {
      this.forgetScale(objectKey);
      this.starting.delete(objectKey);
      this.memo.forget(objectKey);
      this.appeared.delete(objectKey);
      return this.finalize(live, log);
    }

    const pass: Pass = { objectKey, namespace, name, live, log, fresh: new Set(), objects: [], applied: [] };
    const { requeueAfterMs } = await runSteps(this.steps, pass, {
      log,
      ...(this.deps.observeStep ? { observe: this.deps.observeStep } : {}),
    });
    const applied = pass.applied;
    return requeueAfterMs === undefined ? { applied } : { applied, requeueAfterMs };
  }

  private validate(pass: Pass): Result {
    const { objectKey, live } = pass;
    const result = this.memo.validated(objectKey, live, () => this.validateLive(live));
    if (!result.ok) {
      const message = result.problems.slice(0, 5).map(formatProblem).join('; ');
      return stop({ reason: 'InvalidSpec', message });
    }
    pass.miniCluster = result.value;
    pass.names = miniClusterNames(result.value);
    return CONTINUE;
  }

  /**
   * The MiniCluster in its v1alpha2 form (the conversion's: a v1alpha1 one has Flux in its image, and
   * what a v1alpha2 one said that v1alpha1 cannot comes back from the conversion's annotation),
   * validated and defaulted, with the operator's Flux view image. A field the renderer does not act
   * on yet is refused by its v1alpha2 name, never run without.
   */
  private validateLive(live: LiveMiniCluster): ValidationResultV1alpha2 {
    const { fluxViewImage } = this.deps;
    const v1alpha2 = toV1alpha2(live);
    const unrendered = notYetRenderedProblems(v1alpha2);
    if (unrendered.length > 0) return { ok: false, problems: unrendered };
    return validateMiniClusterV1alpha2(v1alpha2, fluxViewImage === undefined ? {} : { fluxViewImage });
  }

  /** Host storage only where the namespace allows it (host-storage-check.ts). */
  private async checkHostStorage(pass: Pass): Promise<Result> {
    const { miniCluster } = validOf(pass);
    if (this.deps.hostStorageNamespaces?.includes(pass.namespace)) return CONTINUE;
    const problem = await hostStorageProblem(miniCluster.spec, pass.namespace, this.deps.clients.core);
    return problem ? stop(problem, HOST_STORAGE_RECHECK_MS) : CONTINUE;
  }

  /** curveCertSecret / mungeSecret must exist before pods can mount them. */
  private async requireUserSecrets(pass: Pass): Promise<Result> {
    const { names } = validOf(pass);
    const namespace = pass.namespace;
    const wanted: { name: string; field: string; dataKey: string }[] = [];
    if (!names.generatesCurveCertSecret) {
      wanted.push({
        name: names.curveCertSecret,
        field: 'spec.flux.curveCertSecret',
        dataKey: SECRET_DATA_KEYS.curveCert,
      });
    }
    if (!names.generatesMungeKeySecret) {
      wanted.push({
        name: names.mungeKeySecret,
        field: 'spec.flux.mungeSecret',
        dataKey: SECRET_DATA_KEYS.mungeKey,
      });
    }
    const source = { cache: this.deps.cache.secrets, core: this.deps.clients.core };
    for (const secret of wanted) {
      const found = await readSecret(source, secret.name, namespace);
      if (!found) {
        return stop(
          {
            reason: 'SecretMissing',
            message: `${secret.field}: Secret ${namespace}/${secret.name} does not exist; create it with the key ${secret.dataKey}`,
          },
          WAITING_REQUEUE_MS,
        );
      }
      if (found.data?.[secret.dataKey] === undefined) {
        return stop(
          {
            reason: 'SecretMissing',
            message: `${secret.field}: Secret ${namespace}/${secret.name} has no key ${secret.dataKey}; add it`,
          },
          WAITING_REQUEUE_MS,
        );
      }
    }
    return CONTINUE;
  }

  /**
   * The keys, from the generated Secrets the cache holds; new ones for those it does not. The cache
   * may lag (a Secret made a moment ago, or by another operator instance): so a Secret holding new
   * keys is created, never applied (`fresh`), and a create that finds one there already starts the
   * pass again with its keys (see createSecret). Keys are never stored twice for one MiniCluster.
   */
  private keys(pass: Pass): Result {
    const { miniCluster, names } = validOf(pass);
    const { objectKey, namespace } = pass;
    const restful = servesRestful(miniCluster);
    const fresh = new Set<string>();
    const stored = (wanted: boolean, name: string): V1Secret | undefined => {
      if (!wanted) return undefined;
      const cached = this.deps.cache.secrets.get(name, namespace);
      if (cached) this.appeared.get(objectKey)?.delete(name);
      const found = cached ?? this.appeared.get(objectKey)?.get(name);
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
    if (generated) pass.log.info({}, 'generated keys');
    pass.keys = keys;
    pass.fresh = fresh;
    return CONTINUE;
  }

  /**
   * Autoscaling and scale-in (scale-step.ts): reads the Flux queue of an autoscaled MiniCluster every
   * pollSeconds, and of any MiniCluster whose Job must shrink (to drain the ranks that go first). A
   * new size the autoscaler decides is written to spec.size, as an HPA would through /scale; the next
   * pass applies it like any other.
   */
  private async scale(pass: Pass): Promise<Result> {
    const { miniCluster, names } = validOf(pass);
    const { live, namespace, name, objectKey } = pass;
    const environment = this.deps.burst;
    if (!environment) return CONTINUE;
    const job = this.deps.cache.jobs.get(names.job, namespace);
    const outcome = await scaleStep(environment, {
      miniCluster,
      job: job?.metadata?.labels?.[LABEL_MINICLUSTER] === name ? job : undefined,
      pods: this.deps.cache.podsOf(namespace, name),
      previous: live.status,
      memory: this.scaleMemory.get(objectKey) ?? { lastBusyMs: new Map() },
      now: this.deps.now(),
    });
    this.scaleMemory.set(objectKey, outcome.memory);
    pass.scale = outcome;
    if (outcome.snapshot) this.deps.observeFluxQueue?.(namespace, name, fluxQueueCounts(outcome.snapshot));
    if (outcome.resize) {
      this.deps.countWrite('apply', KIND);
      try {
        // resourceVersion: a size someone else wrote meanwhile wins; the next poll decides again.
        await this.deps.clients.custom.patchNamespacedCustomObject({
          group: GROUP,
          version: MINICLUSTER_VERSION,
          namespace,
          plural: PLURAL,
          name,
          body: {
            metadata: { resourceVersion: live.metadata.resourceVersion },
            spec: { size: outcome.resize.size },
          },
        });
        pass.log.info(
          { from: miniCluster.spec.size, to: outcome.resize.size, reason: outcome.resize.reason },
          'autoscaled',
        );
      } catch (error) {
        if (!isConflict(error)) throw error;
        // The size changed meanwhile: nothing of this decision is reported; the next poll decides again.
        const { status: _status, resize: _resize, ...rest } = outcome;
        const { autoscale: _autoscale, draining: _draining, ...kept } = outcome.memory;
        pass.scale = { ...rest, events: [], memory: kept };
        this.scaleMemory.set(objectKey, kept);
      }
    }
    return continueAfter(outcome.requeueAfterMs);
  }

  private forgetScale(objectKey: ObjectKey): void {
    if (this.scaleMemory.delete(objectKey)) {
      const { namespace, name } = splitObjectKey(objectKey);
      this.deps.observeFluxQueue?.(namespace, name, undefined);
    }
  }

  private render(pass: Pass): Result {
    const { miniCluster } = validOf(pass);
    const { keys, live, objectKey, name } = pass;
    if (!keys) throw new Error('the render step ran before keys');
    const rendered = this.memo.rendered(objectKey, keys, () => {
      const specKey = templateSpecKey(live.spec);
      return renderMiniCluster(miniCluster, keys, {
        owner: { apiVersion: MINICLUSTER_API_VERSION, kind: KIND, name, uid: live.metadata.uid ?? '' },
      }).map((object) => withTemplateSpecKey(object, specKey));
    });
    // A scale-in waiting for its drained ranks keeps the Job at the size it runs.
    const jobSize = pass.scale?.jobSize ?? miniCluster.spec.size;
    pass.objects =
      jobSize === miniCluster.spec.size ? rendered : rendered.map((object) => withJobSize(object, jobSize));
    return CONTINUE;
  }

  /**
   * Deletes the children the spec stopped asking for, before anything is applied: a spec change the
   * Job cannot take must not keep what the spec dropped alive. Those that can go this way: the
   * services Deployment, and the RESTful server's Service and credentials Secret once the spec no
   * longer serves it (left, the Secret would keep its users' tokens and signing key). Every other
   * child exists whatever the spec says, or belongs to bursting, which removes its own.
   */
  private async pruneStale(pass: Pass): Promise<Result> {
    const { names } = validOf(pass);
    const { namespace, live } = pass;
    const candidates: KubeObject[] = [];
    for (const [kind, name] of PRUNABLE(names)) {
      const current = this.deps.cache.children.get(kind)?.get(name, namespace);
      if (current) candidates.push({ ...current, kind });
    }
    const stale = staleChildren(pass.objects, candidates, live.metadata.uid ?? '');
    const pruned: string[] = [];
    for (const object of stale) {
      const { kind } = object;
      const name = object.metadata.name;
      this.deps.countWrite('delete', kind);
      try {
        if (kind === 'Deployment')
          await this.deps.clients.apps.deleteNamespacedDeployment({
            name,
            namespace,
            propagationPolicy: 'Background',
          });
        else if (kind === 'Service')
          await this.deps.clients.core.deleteNamespacedService({ name, namespace });
        else await this.deps.clients.core.deleteNamespacedSecret({ name, namespace });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
      pruned.push(`${kind}/${name}`);
    }
    if (pruned.length > 0) pass.log.info({ pruned }, 'deleted what the spec no longer asks for');
    return CONTINUE;
  }

  /**
   * Server-side applies each rendered object the live state does not already match. What the pods
   * mount or resolve (ConfigMap, Secrets, Services) goes first, together; the Job last, so its pods
   * never start without them. A Job about to change is first applied as a dry run, so that one the
   * API server refuses leaves nothing half-made (or half-updated) behind.
   */
  private async applyChanged(pass: Pass): Promise<Result> {
    const { objectKey, objects, fresh } = pass;
    const liveOf = (object: KubeObject) =>
      // Cluster-wide objects (PersistentVolumes) are cached without a namespace.
      this.deps.cache.children.get(object.kind)?.get(object.metadata.name, object.metadata.namespace ?? '');
    const changed = objects.filter(
      (object) => !this.memo.contains(objectKey, object, liveOf(object), containsDesired),
    );
    const before = changed.filter((object) => object.kind !== 'Job');
    // A running Job made from this spec keeps its pod template (job-template.ts): only what may
    // change in it (its size, its annotations) is applied.
    const jobs = changed.flatMap((object) => {
      if (object.kind !== 'Job') return [];
      const live = liveOf(object);
      const kept = keepingLiveTemplate(object, live as V1Job | undefined, specSeen(pass.live));
      if (!kept) return [object];
      return live && containsDesired(kept, live) ? [] : [kept];
    });
    if (before.length > 0) {
      for (const job of jobs) {
        const refused = await this.applyOne(job, { dryRun: true });
        if (refused) return refused;
      }
    }
    const results = await Promise.allSettled(
      before.map((object) =>
        object.kind === 'Secret' && fresh.has(object.metadata.name)
          ? this.createSecret(pass, object as V1Secret & KubeObject)
          : this.applyOne(object),
      ),
    );
    // The first object in order that failed or was refused decides, as if they were written in turn.
    for (const result of results) {
      if (result.status === 'rejected') throw result.reason;
      if (result.value) return result.value;
    }
    for (const job of jobs) {
      const refused = await this.applyOne(job);
      if (refused) return refused;
    }
    pass.applied.push(...[...before, ...jobs].map((object) => `${object.kind}/${object.metadata.name}`));
    if (pass.applied.length > 0) pass.log.info({ applied: pass.applied }, 'applied');
    return CONTINUE;
  }

  /**
   * Creates a Secret holding new keys. One there already (the cache had not seen it yet, or another
   * operator instance made it) is adopted: the pass starts again at once, with the keys it holds.
   */
  private async createSecret(pass: Pass, secret: V1Secret & KubeObject): Promise<Result | undefined> {
    const { name, namespace = 'default' } = secret.metadata;
    try {
      this.deps.countWrite('create', 'Secret');
      await this.deps.clients.core.createNamespacedSecret({
        namespace,
        body: secret,
        fieldManager: FIELD_MANAGER,
      });
      return undefined;
    } catch (error) {
      // A create answers 409 only when the object exists.
      if (!isConflict(error)) return this.refusal(secret, error);
    }
    const found = await this.deps.clients.core.readNamespacedSecret({ name, namespace });
    const appeared = this.appeared.get(pass.objectKey) ?? new Map<string, V1Secret>();
    this.appeared.set(pass.objectKey, appeared.set(name, found));
    pass.log.info({ secret: name }, 'a Secret of this MiniCluster appeared meanwhile; using its keys');
    return restart(0);
  }

  private async applyOne(
    object: KubeObject,
    options: { dryRun?: boolean } = {},
  ): Promise<Refusal | undefined> {
    try {
      if (!options.dryRun) this.deps.countWrite('apply', object.kind);
      await serverSideApply(this.deps.clients.objects, object, FIELD_MANAGER, options);
      return undefined;
    } catch (error) {
      return this.refusal(object, error);
    }
  }

  /**
   * Why the API server refused a write of `object`, as the problem the pass stops on. An error that
   * is no refusal (unreachable, overloaded) is thrown: not the MiniCluster's problem, the queue's
   * backoff retries it.
   */
  private refusal(object: KubeObject, error: unknown): Refusal {
    const id = `${object.kind}/${object.metadata.name}`;
    if (isTransient(error)) throw error;
    const message = describeApiError(error);
    // The Job's pod template is immutable: a change there needs a new Flux instance anyway.
    const reason =
      object.kind === 'Job' && /field is immutable/.test(message)
        ? SPEC_CHANGE_NEEDS_RECREATE
        : 'ApplyFailed';
    const fix =
      reason === SPEC_CHANGE_NEEDS_RECREATE
        ? '; the pod template of a running MiniCluster cannot change: delete and recreate the MiniCluster'
        : '';
    // A Job refused as immutable waits for the user to recreate the MiniCluster (a spec change
    // triggers a pass by itself); any other refusal may end without one (a policy or a permission
    // changed): looked at again, slowly, since the condition and the event already say it all.
    const problem = { reason, message: `applying ${id}: ${message}${fix}` };
    return reason === 'ApplyFailed'
      ? { next: 'stop', problem, requeueAfterMs: APPLY_RETRY_MS }
      : { next: 'stop', problem };
  }

  /** Released PersistentVolumes of this MiniCluster take its claims again (see releasedVolumes). */
  private async reclaimReleasedVolumes(pass: Pass): Promise<Result> {
    const informer = this.deps.cache.children.get('PersistentVolume');
    const wanted = pass.objects
      .filter((object) => object.kind === 'PersistentVolume')
      .map((object) => object.metadata.name);
    for (const name of releasedVolumes(
      wanted,
      (volume) => informer?.get(volume, '') as V1PersistentVolume | undefined,
    )) {
      this.deps.countWrite('apply', 'PersistentVolume');
      await this.deps.clients.core.patchPersistentVolume({ name, body: RECLAIM_PATCH });
      pass.log.info({ persistentVolume: name }, 'released volume made available to its claim again');
    }
    return CONTINUE;
  }

  /**
   * Bursting, for a MiniCluster that declares burst slots: observe, plan, act (burst-step.ts), and a
   * finalizer while it has bursts. One that stopped declaring them has its bursts removed.
   */
  private async burst(pass: Pass): Promise<Result> {
    const { miniCluster, names } = validOf(pass);
    const { live, namespace, name } = pass;
    const environment = this.deps.burst;
    if (!environment) return CONTINUE;
    if (!exposesLeadBroker(miniCluster)) {
      const bursts = live.status?.bursts ?? [];
      if (bursts.length === 0) return CONTINUE;
      pass.burst = await removeUndeclaredBursts(environment, miniCluster, bursts);
      return continueAfter(pass.burst.requeueAfterMs);
    }
    const service = this.deps.cache.children.get('Service')?.get(names.leadBrokerService, namespace) as
      V1Service | undefined;
    const pods = this.deps.cache.podsOf(namespace, name);
    // The queue the scale step read this pass serves bursting too: one exec per poll.
    const snapshot = pass.scale?.snapshot;
    const reading = snapshot
      ? { ...environment, queueReader: () => ({ snapshot: () => Promise.resolve(snapshot) }) }
      : environment;
    const observed = await observeBursts(miniCluster, live.status, pods, service, reading);
    const outcome =
      'outcome' in observed
        ? observed.outcome
        : await actOnPlan(
            environment,
            miniCluster,
            observed.observed,
            planBurstActions(miniCluster, live.status, observed.observed),
          );
    const finalizers = live.metadata.finalizers ?? [];
    if (outcome.bursts.length > 0 && !finalizers.includes(BURST_FINALIZER)) {
      await this.setFinalizers(live, [...finalizers, BURST_FINALIZER]);
    }
    pass.burst = outcome;
    return continueAfter(outcome.requeueAfterMs);
  }

  /**
   * The status, computed from the caches and what the steps found, written once when it changed
   * (progress alone at most every progressIntervalMs), then the events of its transitions.
   */
  private async updateStatus(pass: Pass, problem: BlockingProblem | undefined): Promise<Result> {
    const { live, miniCluster, namespace, name, objectKey, burst, scale } = pass;
    const job = this.deps.cache.jobs.get(pass.names ? pass.names.job : name, namespace);
    const subject: MiniClusterModel =
      miniCluster ??
      // An invalid spec still gets a status; defaults that cannot be computed fall back to the raw spec.
      ({
        ...live,
        spec: { ...live.spec, maxSize: live.spec.maxSize ?? live.spec.size ?? 1, size: live.spec.size ?? 1 },
      } as MiniClusterModel);
    const previous = live.status;
    const leadBrokerService =
      miniCluster && pass.names && exposesLeadBroker(miniCluster)
        ? (this.deps.cache.children.get('Service')?.get(pass.names.leadBrokerService, namespace) as
            V1Service | undefined)
        : undefined;
    const next = computeStatus({
      ...(leadBrokerService ? { leadBrokerService } : {}),
      ...(burst ? { burst: { bursts: burst.bursts, jobs: burst.jobs, condition: burst.condition } } : {}),
      ...(scale?.status ? { scale: scale.status } : {}),
      miniCluster: subject,
      previous,
      job: job?.metadata?.labels?.[LABEL_MINICLUSTER] === name ? job : undefined,
      pods: this.deps.cache.podsOf(namespace, name),
      ...(problem ? { problem } : {}),
      now: this.deps.now(),
    });
    if (next.summary === 'Pending' || next.summary === 'Starting') this.starting.add(objectKey);
    else this.starting.delete(objectKey);
    if (!statusChanged(previous, next)) return CONTINUE;
    // Progress alone waits out the interval since the last write, then the latest is written.
    const nowMs = this.deps.now().getTime();
    const sinceLast = nowMs - (this.statusWrittenAt.get(objectKey) ?? Number.NEGATIVE_INFINITY);
    const interval = progressIntervalMs(this.starting.size);
    if (progressOnly(previous, next) && sinceLast >= 0 && sinceLast < interval) {
      return continueAfter(interval - sinceLast);
    }
    this.statusWrittenAt.set(objectKey, nowMs);
    this.deps.countWrite('status', KIND);
    await this.deps.clients.custom.patchNamespacedCustomObjectStatus({
      group: GROUP,
      version: MINICLUSTER_VERSION,
      namespace,
      plural: PLURAL,
      name,
      body: { status: statusPatch(previous, next) },
    });
    pass.written = next;
    await this.emitTransitions(live, previous, next, [...(scale?.events ?? []), ...(burst?.events ?? [])]);
    return CONTINUE;
  }

  /** Events after the status write succeeded, so they never announce what status does not show. */
  private async emitTransitions(
    live: LiveMiniCluster,
    previous: MiniClusterStatus | undefined,
    next: MiniClusterStatus,
    extra: readonly TransitionEvent[],
  ): Promise<void> {
    const target = {
      apiVersion: MINICLUSTER_API_VERSION,
      kind: KIND,
      name: live.metadata.name,
      namespace: namespaceOf(live),
      ...(live.metadata.uid ? { uid: live.metadata.uid } : {}),
    };
    for (const event of [...transitionEvents(previous, next), ...extra]) {
      await this.deps.recorder.record(target, { ...event, action: 'Reconcile' });
    }
  }

  /**
   * spec.cleanup: a MiniCluster is deleted when the status written this pass says it finished (once:
   * passes after that write see no change, and its deletion is under way).
   */
  private async cleanup(pass: Pass): Promise<Result> {
    const finished = pass.written?.summary === 'Succeeded' || pass.written?.summary === 'Failed';
    if (!pass.miniCluster?.spec.cleanup || !finished) return CONTINUE;
    this.deps.countWrite('delete', KIND);
    await deleteCustomObject(this.deps.clients.custom, PLURAL, pass.namespace, pass.name);
    pass.log.info({}, 'cleanup: deleted the finished MiniCluster');
    return CONTINUE;
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
    const validated = this.validateLive({
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
 * Whether the operator had seen the MiniCluster's spec through: its status observes the spec's
 * generation and names no refused pod template. A Job an older build made from it has that spec.
 */
function specSeen(live: LiveMiniCluster): boolean {
  const status = live.status as
    { observedGeneration?: number; conditions?: { type?: string; reason?: string }[] } | undefined;
  if (status?.observedGeneration === undefined || status.observedGeneration !== live.metadata.generation)
    return false;
  return !(status.conditions ?? []).some((condition) => condition.reason === SPEC_CHANGE_NEEDS_RECREATE);
}

/** The rendered Job with `size` pods (parallelism = completions); other objects as they are. */
function withJobSize(object: KubeObject, size: number): KubeObject {
  if (object.kind !== 'Job') return object;
  const job = object as KubeObject & V1Job;
  return { ...job, spec: { ...job.spec, parallelism: size, completions: size } } as KubeObject;
}

/**
 * A JSON merge patch from one status to the next: fields the next status no longer has are set to
 * null, since a merge patch leaves absent fields as they were; in nested objects too (a rank set
 * status.autoscale no longer lists). Lists are replaced whole.
 */
export function statusPatch(
  previous: MiniClusterStatus | undefined,
  next: MiniClusterStatus,
): Record<string, unknown> {
  return mergePatch(previous ?? {}, next);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mergePatch(previous: object, next: object): Record<string, unknown> {
  const before = previous as Record<string, unknown>;
  const patch: Record<string, unknown> = { ...next };
  for (const [key, value] of Object.entries(patch)) {
    const old = before[key];
    if (isPlainObject(value) && isPlainObject(old)) patch[key] = mergePatch(old, value);
  }
  for (const key of Object.keys(before)) {
    if (!(key in next)) patch[key] = null;
  }
  return patch;
}
