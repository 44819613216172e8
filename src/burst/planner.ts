/**
 * The burst planner: from a queue snapshot, the declared burst slots, the burst clusters that exist
 * and the policy, decides which burst clusters to create, keep and delete, and which jobs can never
 * run. Pure and deterministic: no clock (`now` is an input), inputs are sorted before use, so the
 * same input always gives the same plan.
 *
 * Rules (each decision is a small function returning a reason and a message):
 * - Demand: only jobs submitted `burstable` and waiting in `SCHED` count. A job needing no more than
 *   the local brokers never triggers a burst: it waits for local nodes, not for more of them.
 * - Capacity is what is up or on its way: the local brokers plus every active burst cluster,
 *   Pending or Ready. Counting Pending clusters is what keeps the planner from bursting twice for
 *   the same shortfall; a job needing more than that still triggers a burst for the difference.
 * - Size: the largest waiting job that can be covered now, not the sum of the waiting jobs. Fluxion
 *   schedules in FCFS order by default, one job at a time at the head of the queue, so the capacity
 *   that lets the largest job start lets each of them start in turn; the sum would pay for nodes that
 *   idle while the head job holds the queue. Bursts are all-or-nothing per job: a partial burst
 *   cannot start the job it was made for, so a job that cannot be covered now waits (see `waiting`).
 * - Grow first: an active burst cluster smaller than its slot grows (up to the slot's size, the budget
 *   and its target's room) before a new cluster is made: its brokers join sooner than a new cluster's,
 *   and the rest of its slot's hosts are listed anyway. Clusters never shrink: where jobs run is not
 *   known, so removing ranks could kill them; an idle cluster is removed whole.
 * - Where: free slots (no burst cluster in them) in declared order, each cluster on the cheapest
 *   target with room (`maxNodes`) for all of it, ties in declared order; when none has, on the one
 *   with the most room left (a cluster lives on one target, so a slot is never split). A cluster
 *   fills one slot with `size` up to the slot's size; the slot's host list is fixed, so a smaller
 *   cluster leaves the rest of the slot's hosts down. One create per slot; never more than
 *   `maxBurstNodes` across all burst clusters (existing ones included), never beyond the declared
 *   slots.
 * - Removal: a burst cluster is busy while a burstable job runs (where a job runs is not in the
 *   snapshot, so any running burstable job may be on its nodes) or while a waiting burstable job
 *   that the current capacity can hold needs its nodes (would not fit without it). Its idle time
 *   counts from the first plan that found it not busy (`idleSince`, which a busy plan clears), not
 *   from its creation or its last busy plan: while the queue cannot be read nothing is known of it,
 *   and a job it was made for may have come and gone unseen. A cluster idle for `idleSeconds` is
 *   deleted. A cluster whose slot is no longer declared, or a second cluster in one slot, is deleted
 *   at once.
 * - A slot whose cluster is deleted in a plan is reused only in a later plan: a plan never creates
 *   and deletes in the same slot.
 */
import type { FluxJob, QueueSnapshot } from './queue.ts';
import { targetsByCost, type BurstPolicy, type BurstTarget } from './policy.ts';

/** A burst slot as declared in `spec.flux.bursting.clusters`: its hosts are `<name>-<index>`. */
export interface BurstSlot {
  readonly name: string;
  readonly size: number;
}

export type BurstClusterState = 'Pending' | 'Ready';

/** A burst cluster that exists (its MiniCluster was created on a target). */
export interface BurstCluster {
  readonly slot: string;
  readonly target: string;
  readonly size: number;
  /** Pending: created, brokers not joined yet; Ready: its brokers are part of the instance. */
  readonly state: BurstClusterState;
  readonly createdAt: Date;
  /** When a plan first found it not busy since it was created or last busy; unset: no plan has since. */
  readonly idleSince?: Date;
}

export interface PlannerInput {
  readonly queue: QueueSnapshot;
  /** Brokers of the local MiniCluster (`spec.size`). */
  readonly localSize: number;
  /** Declared burst slots, in declared (rank) order. */
  readonly slots: readonly BurstSlot[];
  readonly clusters: readonly BurstCluster[];
  readonly policy: BurstPolicy;
  readonly now: Date;
}

export interface CreateAction {
  readonly kind: 'create';
  readonly slot: string;
  readonly target: string;
  readonly size: number;
  readonly reason: 'BurstNeeded';
  readonly message: string;
  /** Ids of the waiting jobs this plan's bursts let run. */
  readonly jobs: readonly string[];
}

export type DeleteReason = 'Idle' | 'SlotNotDeclared' | 'DuplicateSlot';

export interface DeleteAction {
  readonly kind: 'delete';
  readonly slot: string;
  readonly target: string;
  readonly reason: DeleteReason;
  readonly message: string;
}

export interface KeepAction {
  readonly kind: 'keep';
  readonly slot: string;
  readonly target: string;
  readonly reason: 'Busy' | 'IdleWithinGrace';
  readonly message: string;
  /** True when the cluster is busy now: the caller records `lastBusyAt = now` and clears `idleSince`. */
  readonly busy: boolean;
  /** Not busy: when its idle time began, for the caller to record (the input's, or `now` the first time). */
  readonly idleSince?: Date;
}

/** Grow an active burst cluster within its slot: `size` is the new size, `from` the current one. */
export interface ScaleAction {
  readonly kind: 'scale';
  readonly slot: string;
  readonly target: string;
  readonly from: number;
  readonly size: number;
  readonly reason: 'BurstNeeded';
  readonly message: string;
  /** The waiting jobs the growth is for. */
  readonly jobs: readonly string[];
}

export type BurstAction = CreateAction | ScaleAction | DeleteAction | KeepAction;

export type UnsatisfiableReason =
  | 'NodeCountUnknown'
  | 'NoBurstSlots'
  | 'ExceedsDeclaredHosts'
  | 'ExceedsMaxBurstNodes'
  | 'NoBurstTarget'
  | 'ExceedsTargetCapacity';

export interface JobVerdict<Reason extends string = string> {
  readonly jobId: string;
  readonly reason: Reason;
  readonly message: string;
}

export interface BurstPlan {
  /** Creates in slot order; growths; keeps and idle deletes in slot order; deletes of undeclared or duplicate slots. */
  readonly actions: readonly BurstAction[];
  /** Burstable waiting jobs that can never run with this spec and policy (event: Warning). */
  readonly unsatisfiable: readonly JobVerdict<UnsatisfiableReason>[];
  /** Burstable waiting jobs that could run, but not with the slots, budget and targets free now. */
  readonly waiting: readonly JobVerdict<'NoFreeCapacity'>[];
  /** Nodes up or on their way before this plan: local brokers plus active burst clusters. */
  readonly capacity: { readonly local: number; readonly burst: number; readonly planned: number };
}

interface Chunk {
  readonly slot: BurstSlot;
  readonly target: string;
  readonly size: number;
}

/** Nodes added to an existing cluster. */
interface Growth {
  readonly cluster: BurstCluster;
  readonly add: number;
}

/** An active cluster and how far its slot lets it grow. */
interface Growable {
  readonly cluster: BurstCluster;
  readonly headroom: number;
}

/** Order of job ids and slot names: plain code-unit order, the same on every run. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function nodes(count: number): string {
  return `${count} node${count === 1 ? '' : 's'}`;
}

function brokers(count: number): string {
  return `${count} local broker${count === 1 ? '' : 's'}`;
}

function listSlots(slots: readonly BurstSlot[]): string {
  return slots.map((slot) => `${slot.name}: ${slot.size}`).join(', ');
}

/**
 * Fills free slots in order, each on the cheapest target with room, up to `shortfall` nodes and the
 * budget. The one allocation rule, used both to plan and to decide what can ever fit.
 */
function allocate(
  shortfall: number,
  freeSlots: readonly BurstSlot[],
  budget: number,
  room: ReadonlyMap<string, number>,
  targets: readonly BurstTarget[],
): { chunks: Chunk[]; covered: number } {
  const left = new Map(room);
  const chunks: Chunk[] = [];
  let remaining = shortfall;
  let budgetLeft = budget;
  for (const slot of freeSlots) {
    if (remaining <= 0 || budgetLeft <= 0) break;
    const wanted = Math.min(slot.size, remaining, budgetLeft);
    const roomOf = (candidate: BurstTarget) => left.get(candidate.name) ?? 0;
    // The cheapest target that holds the whole cluster, else the one with the most room left.
    const target =
      targets.find((candidate) => roomOf(candidate) >= wanted) ??
      targets.reduce<BurstTarget | undefined>(
        (best, candidate) => (roomOf(candidate) > (best ? roomOf(best) : 0) ? candidate : best),
        undefined,
      );
    if (target === undefined) break;
    const targetRoom = roomOf(target);
    const size = Math.min(wanted, targetRoom);
    chunks.push({ slot, target: target.name, size });
    remaining -= size;
    budgetLeft -= size;
    left.set(target.name, targetRoom - size);
  }
  return {
    chunks,
    covered: shortfall === Infinity ? chunks.reduce((sum, c) => sum + c.size, 0) : shortfall - remaining,
  };
}

/**
 * Covers `shortfall` by growing active clusters first (slot order, each within its slot, the budget
 * and its target's room), then with new clusters in free slots (`allocate`).
 */
function allocateWithGrowth(
  shortfall: number,
  growable: readonly Growable[],
  freeSlots: readonly BurstSlot[],
  budget: number,
  room: ReadonlyMap<string, number>,
  targets: readonly BurstTarget[],
): { growths: Growth[]; chunks: Chunk[]; covered: number } {
  const left = new Map(room);
  const growths: Growth[] = [];
  let remaining = shortfall;
  let budgetLeft = budget;
  for (const { cluster, headroom } of growable) {
    if (remaining <= 0 || budgetLeft <= 0) break;
    const add = Math.min(headroom, remaining, budgetLeft, left.get(cluster.target) ?? 0);
    if (add <= 0) continue;
    growths.push({ cluster, add });
    remaining -= add;
    budgetLeft -= add;
    left.set(cluster.target, (left.get(cluster.target) ?? 0) - add);
  }
  const grown = growths.reduce((total, growth) => total + growth.add, 0);
  const rest = allocate(remaining, freeSlots, budgetLeft, left, targets);
  return { growths, chunks: rest.chunks, covered: grown + rest.covered };
}

function targetRoom(targets: readonly BurstTarget[], clusters: readonly BurstCluster[]): Map<string, number> {
  return new Map(
    targets.map((target) => {
      const used = clusters
        .filter((cluster) => cluster.target === target.name)
        .reduce((sum, c) => sum + c.size, 0);
      return [target.name, Math.max(0, (target.maxNodes ?? Infinity) - used)];
    }),
  );
}

/** Why a burstable job can never run with these slots and this policy, or undefined if it can. */
export function neverFits(
  job: Pick<FluxJob, 'id' | 'nnodes'>,
  localSize: number,
  slots: readonly BurstSlot[],
  policy: BurstPolicy,
): JobVerdict<UnsatisfiableReason> | undefined {
  const need = job.nnodes;
  const verdict = (reason: UnsatisfiableReason, message: string) => ({ jobId: job.id, reason, message });
  if (need < 1) {
    return verdict(
      'NodeCountUnknown',
      `job ${job.id} asks for no node count (nnodes ${need}); bursts are sized in nodes: submit it with -N`,
    );
  }
  if (need <= localSize) return undefined;
  if (slots.length === 0) {
    return verdict(
      'NoBurstSlots',
      `job ${job.id} needs ${nodes(need)}; this MiniCluster has ${brokers(localSize)} and declares no burst clusters; declare them in spec.flux.bursting.clusters`,
    );
  }
  const declared = slots.reduce((sum, slot) => sum + slot.size, 0);
  if (need > localSize + declared) {
    return verdict(
      'ExceedsDeclaredHosts',
      `job ${job.id} needs ${nodes(need)}; this MiniCluster lists ${localSize} local + ${declared} burst hosts (${listSlots(slots)}); declare a bigger slot in spec.flux.bursting.clusters`,
    );
  }
  if (need > localSize + policy.maxBurstNodes) {
    return verdict(
      'ExceedsMaxBurstNodes',
      `job ${job.id} needs ${nodes(need)}; ${brokers(localSize)} + maxBurstNodes ${policy.maxBurstNodes} make ${localSize + policy.maxBurstNodes}; raise the policy's maxBurstNodes to at least ${need - localSize}`,
    );
  }
  if (policy.targets.length === 0) {
    return verdict(
      'NoBurstTarget',
      `job ${job.id} needs ${nodes(need)}, more than the ${brokers(localSize)}, and the burst policy lists no target; add one to the policy's targets`,
    );
  }
  const targets = targetsByCost(policy.targets);
  const reachable = allocate(Infinity, slots, policy.maxBurstNodes, targetRoom(targets, []), targets).covered;
  if (need > localSize + reachable) {
    const caps = targets.map((target) => `${target.name}: ${target.maxNodes ?? 'unlimited'}`).join(', ');
    return verdict(
      'ExceedsTargetCapacity',
      `job ${job.id} needs ${nodes(need)}; the targets' maxNodes (${caps}) hold ${reachable} of the ${declared} burst hosts (one slot goes to one target), so ${localSize} local + ${reachable} burst; raise a target's maxNodes`,
    );
  }
  return undefined;
}

function jobsPhrase(jobs: readonly FluxJob[]): string {
  const need = Math.max(...jobs.map((job) => job.nnodes));
  return jobs.length === 1
    ? `job ${jobs[0]?.id} needs ${nodes(need)}`
    : `jobs ${jobs.map((job) => job.id).join(', ')} need up to ${nodes(need)}`;
}

/** Whether a cluster is busy now, and why. */
function busyReason(
  cluster: BurstCluster,
  running: readonly FluxJob[],
  served: readonly FluxJob[],
  capacityAfter: number,
): string | undefined {
  if (running.length > 0) {
    return `burstable ${running.length === 1 ? 'job' : 'jobs'} ${running.map((job) => job.id).join(', ')} running (placement unknown, so possibly on its nodes)`;
  }
  const needing = served.filter((job) => job.nnodes > capacityAfter - cluster.size);
  if (needing.length > 0) {
    return `${jobsPhrase(needing)}, which ${capacityAfter - cluster.size} without it cannot hold`;
  }
  return undefined;
}

function idleDecision(
  cluster: BurstCluster,
  policy: BurstPolicy,
  now: Date,
): { kind: 'delete'; message: string } | { kind: 'keep'; message: string; idleSince: Date } {
  const since = cluster.idleSince ?? now;
  const idleSeconds = Math.max(0, Math.floor((now.getTime() - since.getTime()) / 1000));
  const what = 'since a queue read first found it idle';
  if (idleSeconds >= policy.idleSeconds) {
    return {
      kind: 'delete',
      message: `no burstable job needs slot ${cluster.slot} on ${cluster.target}; idle ${idleSeconds}s ${what}, idleSeconds is ${policy.idleSeconds}`,
    };
  }
  return {
    kind: 'keep',
    message: `no burstable job needs slot ${cluster.slot} on ${cluster.target}; idle ${idleSeconds}s ${what}, removed after ${policy.idleSeconds}s`,
    idleSince: since,
  };
}

export function planBursts(input: PlannerInput): BurstPlan {
  const { localSize, slots, policy, now } = input;
  const slotIndex = new Map(slots.map((slot, index) => [slot.name, index]));
  const clusters = [...input.clusters].sort(
    (a, b) =>
      (slotIndex.get(a.slot) ?? Infinity) - (slotIndex.get(b.slot) ?? Infinity) ||
      compareIds(a.slot, b.slot) ||
      a.createdAt.getTime() - b.createdAt.getTime() ||
      compareIds(a.target, b.target) ||
      a.size - b.size,
  );

  const deletes: DeleteAction[] = [];
  const active: BurstCluster[] = [];
  for (const cluster of clusters) {
    if (!slotIndex.has(cluster.slot)) {
      deletes.push({
        kind: 'delete',
        slot: cluster.slot,
        target: cluster.target,
        reason: 'SlotNotDeclared',
        message: `slot ${cluster.slot} is no longer declared in spec.flux.bursting.clusters; its hosts cannot join`,
      });
    } else if (active.some((other) => other.slot === cluster.slot)) {
      deletes.push({
        kind: 'delete',
        slot: cluster.slot,
        target: cluster.target,
        reason: 'DuplicateSlot',
        message: `slot ${cluster.slot} already holds an older burst cluster; a slot's hosts can join from one cluster only`,
      });
    } else active.push(cluster);
  }

  const burst = active.reduce((sum, cluster) => sum + cluster.size, 0);
  const capacity = localSize + burst;
  const targets = targetsByCost(policy.targets);
  const existing = clusters.reduce((sum, cluster) => sum + cluster.size, 0);
  const budget = Math.max(0, policy.maxBurstNodes - existing);
  const room = targetRoom(targets, clusters);
  const taken = new Set(clusters.map((cluster) => cluster.slot));
  const freeSlots = slots.filter((slot) => !taken.has(slot.name));

  const byId = (a: FluxJob, b: FluxJob) => compareIds(a.id, b.id);
  const burstable = input.queue.jobs.filter((job) => job.burstable);
  const waitingJobs = burstable.filter((job) => job.state === 'SCHED').sort(byId);
  const running = burstable.filter((job) => job.state === 'RUN').sort(byId);

  const unsatisfiable: JobVerdict<UnsatisfiableReason>[] = [];
  const satisfiable: FluxJob[] = [];
  for (const job of waitingJobs) {
    const verdict = neverFits(job, localSize, slots, policy);
    if (verdict) unsatisfiable.push(verdict);
    else if (job.nnodes > localSize) satisfiable.push(job);
  }

  // The largest short job that growing clusters and filling free slots can cover now.
  const growable: Growable[] = active.flatMap((cluster) => {
    const slot = slots[slotIndex.get(cluster.slot) ?? -1];
    return slot && slot.size > cluster.size ? [{ cluster, headroom: slot.size - cluster.size }] : [];
  });
  const short = satisfiable
    .filter((job) => job.nnodes > capacity)
    .sort((a, b) => b.nnodes - a.nnodes || compareIds(a.id, b.id));
  let chunks: Chunk[] = [];
  let growths: Growth[] = [];
  for (const job of short) {
    const allocation = allocateWithGrowth(job.nnodes - capacity, growable, freeSlots, budget, room, targets);
    if (allocation.covered === job.nnodes - capacity) {
      ({ chunks, growths } = allocation);
      break;
    }
  }
  const planned =
    chunks.reduce((sum, chunk) => sum + chunk.size, 0) + growths.reduce((sum, growth) => sum + growth.add, 0);
  const capacityAfter = capacity + planned;
  const served = satisfiable.filter((job) => job.nnodes <= capacityAfter);
  const newlyServed = served.filter((job) => job.nnodes > capacity);
  const sizeAfter = (cluster: BurstCluster) =>
    cluster.size + (growths.find((growth) => growth.cluster === cluster)?.add ?? 0);

  const creates: CreateAction[] = chunks.map((chunk) => ({
    kind: 'create',
    slot: chunk.slot.name,
    target: chunk.target,
    size: chunk.size,
    reason: 'BurstNeeded',
    message: `${jobsPhrase(newlyServed)}; ${capacity} are up or on their way (${localSize} local + ${burst} burst); creating ${nodes(chunk.size)} (of ${chunk.slot.size} hosts) in slot ${chunk.slot.name} on ${chunk.target}`,
    jobs: newlyServed.map((job) => job.id),
  }));

  const scales: ScaleAction[] = growths.map(({ cluster, add }) => ({
    kind: 'scale',
    slot: cluster.slot,
    target: cluster.target,
    from: cluster.size,
    size: cluster.size + add,
    reason: 'BurstNeeded',
    message: `${jobsPhrase(newlyServed)}; ${capacity} are up or on their way (${localSize} local + ${burst} burst); growing the burst cluster in slot ${cluster.slot} on ${cluster.target} from ${cluster.size} to ${nodes(cluster.size + add)}`,
    jobs: newlyServed.map((job) => job.id),
  }));

  const more = allocateWithGrowth(Infinity, growable, freeSlots, budget, room, targets).covered;
  const waiting: JobVerdict<'NoFreeCapacity'>[] = satisfiable
    .filter((job) => job.nnodes > capacityAfter)
    .map((job) => ({
      jobId: job.id,
      reason: 'NoFreeCapacity',
      message: `job ${job.id} needs ${nodes(job.nnodes)}; ${capacity} are up or on their way and the free slots, room to grow within slots, maxBurstNodes and targets allow ${more} more now; it waits until idle burst clusters are removed`,
    }));

  const others: (KeepAction | DeleteAction)[] = [];
  for (const cluster of active) {
    const busy = busyReason({ ...cluster, size: sizeAfter(cluster) }, running, served, capacityAfter);
    if (busy !== undefined) {
      others.push({
        kind: 'keep',
        slot: cluster.slot,
        target: cluster.target,
        reason: 'Busy',
        message: `slot ${cluster.slot} on ${cluster.target} is busy: ${busy}`,
        busy: true,
      });
      continue;
    }
    const idle = idleDecision(cluster, policy, now);
    others.push(
      idle.kind === 'delete'
        ? {
            kind: 'delete',
            slot: cluster.slot,
            target: cluster.target,
            reason: 'Idle',
            message: idle.message,
          }
        : {
            kind: 'keep',
            slot: cluster.slot,
            target: cluster.target,
            reason: 'IdleWithinGrace',
            message: idle.message,
            busy: false,
            idleSince: idle.idleSince,
          },
    );
  }

  return {
    actions: [...creates, ...scales, ...others, ...deletes],
    unsatisfiable,
    waiting,
    capacity: { local: localSize, burst, planned },
  };
}
