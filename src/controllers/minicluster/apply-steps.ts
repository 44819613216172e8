/**
 * The steps that bring the MiniCluster's children to what its spec renders: render, prune what the
 * spec dropped, apply what changed (the Job last), and give released volumes back to their claims.
 * Every object comes from src/render; these steps only decide what to write and write it.
 */
import type { V1Job, V1PersistentVolume, V1Secret } from '@kubernetes/client-node';
import { KIND } from '../../api/index.ts';
import {
  renderMiniCluster,
  withQueueLabels,
  type KubeObject,
  type MiniClusterNames,
} from '../../render/index.ts';
import { FIELD_MANAGER } from '../../deploy/constants.ts';
import { describeApiError, isConflict, isNotFound, isTransient } from '../../kube/api-errors.ts';
import { serverSideApply } from '../../kube/apply.ts';
import { CONTINUE, restart, type StepResult } from '../../runtime/steps.ts';
import { containsDesired, staleChildren } from './desired-state.ts';
import {
  SPEC_CHANGE_NEEDS_RECREATE,
  keepingLiveTemplate,
  templateSpecKey,
  withTemplateSpecKey,
} from './job-template.ts';
import { validOf, type Pass } from './pass.ts';
import { brokersKeptOut } from './status.ts';
import { stopReason, withStoppedJob } from './stopped-job.ts';
import type { ReconcilerDeps } from './reconciler-deps.ts';
import { RECLAIM_PATCH, releasedVolumes } from './volume-collector.ts';
import { MINICLUSTER_API_VERSION, type LiveMiniCluster } from './watched-kinds.ts';

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

/** A step's refusal: the pass stops on this problem. */
type Refusal = Extract<StepResult, { next: 'stop' }>;

export function render(pass: Pass): StepResult {
  const { miniCluster, names } = validOf(pass);
  const { keys, live, objectKey, name, namespace } = pass;
  if (!keys) throw new Error('the render step ran before keys');
  const rendered = pass.memory.memo.rendered(objectKey, keys, () => {
    const specKey = templateSpecKey(live.spec);
    return renderMiniCluster(miniCluster, keys, {
      owner: { apiVersion: MINICLUSTER_API_VERSION, kind: KIND, name, uid: live.metadata.uid ?? '' },
    }).map((object) => withTemplateSpecKey(object, specKey));
  });
  // A scale-in waiting for its drained ranks keeps the Job at the size it runs; so does a Job Kueue
  // admitted and runs (queue-status.ts).
  const jobSize = pass.queue?.jobSize ?? pass.scale?.jobSize ?? miniCluster.spec.size;
  // A Job whose pods can never start a broker is stopped (stopped-job.ts), and stays so.
  const stopped = stopReason(
    pass.deps.cache.jobs.get(names.job, namespace),
    brokersKeptOut(pass.deps.cache.podsOf(namespace, name)),
  );
  // Kueue's labels of the MiniCluster as they are now (the render above is kept while the spec is).
  const labelled = rendered.map((object) =>
    withStoppedJob(withQueueLabels(object, live.metadata.labels), stopped),
  );
  pass.objects =
    jobSize === miniCluster.spec.size ? labelled : labelled.map((object) => withJobSize(object, jobSize));
  return CONTINUE;
}

/**
 * Deletes the children the spec stopped asking for, before anything is applied: a spec change the
 * Job cannot take must not keep what the spec dropped alive. Those that can go this way: the
 * services Deployment, and the RESTful server's Service and credentials Secret once the spec no
 * longer serves it (left, the Secret would keep its users' tokens and signing key). Every other
 * child exists whatever the spec says, or belongs to bursting, which removes its own.
 */
export async function pruneStale(pass: Pass): Promise<StepResult> {
  const { names } = validOf(pass);
  const { namespace, live } = pass;
  const candidates: KubeObject[] = [];
  for (const [kind, name] of PRUNABLE(names)) {
    const current = pass.deps.cache.children.get(kind)?.get(name, namespace);
    if (current) candidates.push({ ...current, kind });
  }
  const stale = staleChildren(pass.objects, candidates, live.metadata.uid ?? '');
  const pruned: string[] = [];
  for (const object of stale) {
    const { kind } = object;
    const name = object.metadata.name;
    try {
      if (kind === 'Deployment')
        await pass.deps.clients.apps.deleteNamespacedDeployment({
          name,
          namespace,
          propagationPolicy: 'Background',
        });
      else if (kind === 'Service') await pass.deps.clients.core.deleteNamespacedService({ name, namespace });
      else await pass.deps.clients.core.deleteNamespacedSecret({ name, namespace });
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
export async function applyChanged(pass: Pass): Promise<StepResult> {
  const { objectKey, objects, fresh } = pass;
  const liveOf = (object: KubeObject) =>
    // Cluster-wide objects (PersistentVolumes) are cached without a namespace.
    pass.deps.cache.children.get(object.kind)?.get(object.metadata.name, object.metadata.namespace ?? '');
  const changed = objects.filter(
    (object) => !pass.memory.memo.contains(objectKey, object, liveOf(object), containsDesired),
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
      const refused = await applyOne(pass.deps, job, { dryRun: true });
      if (refused) return refused;
    }
  }
  const results = await Promise.allSettled(
    before.map((object) =>
      object.kind === 'Secret' && fresh.has(object.metadata.name)
        ? createSecret(pass, object as V1Secret & KubeObject)
        : applyOne(pass.deps, object),
    ),
  );
  // The first object in order that failed or was refused decides, as if they were written in turn.
  for (const result of results) {
    if (result.status === 'rejected') throw result.reason;
    if (result.value) return result.value;
  }
  for (const job of jobs) {
    const refused = await applyOne(pass.deps, job);
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
async function createSecret(pass: Pass, secret: V1Secret & KubeObject): Promise<StepResult | undefined> {
  const { name, namespace = 'default' } = secret.metadata;
  try {
    await pass.deps.clients.core.createNamespacedSecret({
      namespace,
      body: secret,
      fieldManager: FIELD_MANAGER,
    });
    return undefined;
  } catch (error) {
    // A create answers 409 only when the object exists.
    if (!isConflict(error)) return refusal(secret, error);
  }
  const found = await pass.deps.clients.core.readNamespacedSecret({ name, namespace });
  const appeared = pass.memory.appeared.get(pass.objectKey) ?? new Map<string, V1Secret>();
  pass.memory.appeared.set(pass.objectKey, appeared.set(name, found));
  pass.log.info({ secret: name }, 'a Secret of this MiniCluster appeared meanwhile; using its keys');
  return restart(0);
}

async function applyOne(
  deps: ReconcilerDeps,
  object: KubeObject,
  options: { dryRun?: boolean } = {},
): Promise<Refusal | undefined> {
  try {
    await serverSideApply(deps.clients.objects, object, FIELD_MANAGER, options);
    return undefined;
  } catch (error) {
    return refusal(object, error);
  }
}

/**
 * Why the API server refused a write of `object`, as the problem the pass stops on. An error that
 * is no refusal (unreachable, overloaded) is thrown: not the MiniCluster's problem, the queue's
 * backoff retries it.
 */
function refusal(object: KubeObject, error: unknown): Refusal {
  const id = `${object.kind}/${object.metadata.name}`;
  if (isTransient(error)) throw error;
  const message = describeApiError(error);
  // The Job's pod template is immutable: a change there needs a new Flux instance anyway.
  const reason =
    object.kind === 'Job' && /field is immutable/.test(message) ? SPEC_CHANGE_NEEDS_RECREATE : 'ApplyFailed';
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
export async function reclaimReleasedVolumes(pass: Pass): Promise<StepResult> {
  const informer = pass.deps.cache.children.get('PersistentVolume');
  const wanted = pass.objects
    .filter((object) => object.kind === 'PersistentVolume')
    .map((object) => object.metadata.name);
  for (const name of releasedVolumes(
    wanted,
    (volume) => informer?.get(volume, '') as V1PersistentVolume | undefined,
  )) {
    await pass.deps.clients.core.patchPersistentVolume({ name, body: RECLAIM_PATCH });
    pass.log.info({ persistentVolume: name }, 'released volume made available to its claim again');
  }
  return CONTINUE;
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
