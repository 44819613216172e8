import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  planBursts,
  type BurstCluster,
  type BurstPlan,
  type CreateAction,
  type PlannerInput,
  type ScaleAction,
} from '../../../src/burst/planner.ts';
import type { BurstPolicy } from '../../../src/burst/policy.ts';
import { FLUX_JOB_STATES, type FluxJob } from '../../../src/burst/queue.ts';
import { NOW } from './fixtures.ts';

const TARGET_NAMES = ['in-cluster', 'gke', 'eks'] as const;

const policyArbitrary: fc.Arbitrary<BurstPolicy> = fc.record({
  maxBurstNodes: fc.oneof(fc.integer({ min: 0, max: 24 }), fc.constant(100)),
  idleSeconds: fc.integer({ min: 0, max: 900 }),
  targets: fc.subarray([...TARGET_NAMES]).chain((names) =>
    fc.tuple(
      ...names.map((name) =>
        fc.record(
          {
            name: fc.constant(name),
            costPerNodeHour: fc.integer({ min: 0, max: 3 }),
            maxNodes: fc.nat(12),
          },
          { requiredKeys: ['name'] },
        ),
      ),
    ),
  ),
});

const jobsArbitrary: fc.Arbitrary<FluxJob[]> = fc.uniqueArray(fc.nat(40), { maxLength: 8 }).chain((ids) =>
  fc.tuple(
    ...ids.map((id) =>
      fc.record({
        id: fc.constant(`ƒ${id}`),
        state: fc.oneof(
          { weight: 3, arbitrary: fc.constant('SCHED' as const) },
          fc.constantFrom(...FLUX_JOB_STATES),
        ),
        nnodes: fc.oneof(fc.nat(10), fc.nat(24)),
        ntasks: fc.constant(1),
        ncores: fc.constant(1),
        burstable: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, fc.boolean()),
      }),
    ),
  ),
);

/** A consistent world: burst clusters only in declared slots, at most one per slot, within its size. */
const inputArbitrary: fc.Arbitrary<PlannerInput> = fc
  .record({
    localSize: fc.integer({ min: 1, max: 4 }),
    slotSizes: fc.array(fc.integer({ min: 1, max: 6 }), { maxLength: 4 }),
    policy: policyArbitrary,
    jobs: jobsArbitrary,
  })
  .chain(({ localSize, slotSizes, policy, jobs }) => {
    const slots = slotSizes.map((size, index) => ({ name: `burst-${index}`, size }));
    const clusterFor = (slot: { name: string; size: number }) =>
      fc.oneof(
        { weight: 2, arbitrary: fc.constant(undefined) },
        fc.record(
          {
            slot: fc.constant(slot.name),
            target: fc.constantFrom<string>(...TARGET_NAMES),
            size: fc.integer({ min: 1, max: slot.size }),
            state: fc.constantFrom('Pending' as const, 'Ready' as const),
            createdAt: fc.integer({ min: 0, max: 3600 }).map((s) => new Date(NOW.getTime() - s * 1000)),
            idleSince: fc.integer({ min: 0, max: 3600 }).map((s) => new Date(NOW.getTime() - s * 1000)),
          },
          { requiredKeys: ['slot', 'target', 'size', 'state', 'createdAt'] },
        ),
      );
    return fc.tuple(...slots.map(clusterFor)).map((maybe): PlannerInput => ({
      localSize,
      slots,
      policy,
      now: NOW,
      clusters: maybe.filter((c): c is BurstCluster => c !== undefined),
      queue: { takenAt: NOW, jobs, nodes: { up: localSize, free: 0 } },
    }));
  });

const creates = (plan: BurstPlan): CreateAction[] =>
  plan.actions.filter((action): action is CreateAction => action.kind === 'create');
const scales = (plan: BurstPlan): ScaleAction[] =>
  plan.actions.filter((action): action is ScaleAction => action.kind === 'scale');
/** The clusters after the plan's growths (same order as given). */
const grown = (input: PlannerInput, plan: BurstPlan): BurstCluster[] =>
  input.clusters.map((cluster) => {
    const scale = scales(plan).find(
      (s) => s.slot === cluster.slot && s.target === cluster.target && s.from === cluster.size,
    );
    return scale ? { ...cluster, size: scale.size } : cluster;
  });
const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
const RUNS = { numRuns: 400 };

describe('planBursts: properties', () => {
  it('never plans beyond the declared slots: one create per free declared slot, within its size', () => {
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        const planned = creates(planBursts(input));
        const used = new Set(input.clusters.map((cluster) => cluster.slot));
        assert.equal(new Set(planned.map((create) => create.slot)).size, planned.length);
        for (const create of planned) {
          const slot = input.slots.find((candidate) => candidate.name === create.slot);
          assert.ok(slot, `${create.slot} is declared`);
          assert.ok(!used.has(create.slot), `${create.slot} holds no cluster yet`);
          assert.ok(create.size >= 1 && create.size <= slot.size);
        }
      }),
      RUNS,
    );
  });

  it('grows only existing clusters of declared slots, each once, within its slot', () => {
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        const plan = planBursts(input);
        const grownSlots = scales(plan).map((scale) => scale.slot);
        assert.equal(new Set(grownSlots).size, grownSlots.length);
        for (const scale of scales(plan)) {
          const slot = input.slots.find((candidate) => candidate.name === scale.slot);
          assert.ok(slot, `${scale.slot} is declared`);
          const existing = input.clusters.filter((c) => c.slot === scale.slot && c.target === scale.target);
          assert.ok(
            existing.some((c) => c.size === scale.from),
            `a cluster of ${scale.from} in ${scale.slot}`,
          );
          assert.ok(scale.from < scale.size && scale.size <= slot.size, `${scale.from} -> ${scale.size}`);
          const deleted = plan.actions.some(
            (a) => a.kind === 'delete' && a.slot === scale.slot && a.target === scale.target,
          );
          assert.ok(!deleted, `${scale.slot} is grown and deleted`);
        }
      }),
      RUNS,
    );
  });

  it('never exceeds maxBurstNodes across existing and planned clusters, nor a target maxNodes', () => {
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        const plan = planBursts(input);
        const planned = creates(plan);
        if (planned.length === 0 && scales(plan).length === 0) return;
        const all = [...grown(input, plan), ...planned];
        assert.ok(sum(all.map((c) => c.size)) <= input.policy.maxBurstNodes);
        for (const target of input.policy.targets) {
          if (target.maxNodes === undefined) continue;
          const onTarget = sum(all.filter((c) => c.target === target.name).map((c) => c.size));
          const before = sum(input.clusters.filter((c) => c.target === target.name).map((c) => c.size));
          assert.ok(onTarget <= Math.max(target.maxNodes, before), `${target.name} holds ${onTarget}`);
        }
        const names = new Set(input.policy.targets.map((target) => target.name));
        for (const create of planned) assert.ok(names.has(create.target));
      }),
      RUNS,
    );
  });

  it('every burstable waiting job fits what is up or planned, or is reported (waiting or unsatisfiable)', () => {
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        const plan = planBursts(input);
        const capacity = input.localSize + sum(input.clusters.map((c) => c.size)) + plan.capacity.planned;
        const reported = new Set([...plan.unsatisfiable, ...plan.waiting].map((verdict) => verdict.jobId));
        for (const job of input.queue.jobs) {
          if (!job.burstable || job.state !== 'SCHED') {
            assert.ok(!reported.has(job.id), `${job.id} is not burstable work waiting`);
            continue;
          }
          if (!reported.has(job.id))
            assert.ok(job.nnodes <= capacity, `${job.id} needs ${job.nnodes} > ${capacity}`);
        }
      }),
      RUNS,
    );
  });

  it('with no burst cluster yet, up + planned nodes cover the largest satisfiable waiting job', () => {
    fc.assert(
      fc.property(inputArbitrary, (generated) => {
        const input = { ...generated, clusters: [] };
        const plan = planBursts(input);
        assert.deepEqual(plan.waiting, [], 'nothing waits for capacity in use');
        const never = new Set(plan.unsatisfiable.map((verdict) => verdict.jobId));
        const needs = input.queue.jobs
          .filter((job) => job.burstable && job.state === 'SCHED' && !never.has(job.id))
          .map((job) => job.nnodes);
        const largest = Math.max(0, ...needs);
        const planned = plan.capacity.planned;
        assert.ok(
          input.queue.nodes.up + planned >= largest,
          `${input.queue.nodes.up} + ${planned} < ${largest}`,
        );
        // Sized to the largest job, not more.
        if (planned > 0) assert.equal(input.queue.nodes.up + planned, largest);
      }),
      RUNS,
    );
  });

  it('is idempotent: with its creates and growths applied, the next plan creates and grows nothing', () => {
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        const first = planBursts(input);
        const pending: BurstCluster[] = creates(first).map((create) => ({
          slot: create.slot,
          target: create.target,
          size: create.size,
          state: 'Pending',
          createdAt: input.now,
        }));
        const second = planBursts({ ...input, clusters: [...grown(input, first), ...pending] });
        assert.deepEqual(creates(second), []);
        assert.deepEqual(scales(second), []);
        for (const cluster of pending) {
          const action = second.actions.find((a) => a.slot === cluster.slot && a.target === cluster.target);
          assert.equal(action?.kind, 'keep', `new cluster in ${cluster.slot} is kept`);
          assert.ok(action.kind === 'keep' && action.busy, `new cluster in ${cluster.slot} is needed`);
        }
      }),
      RUNS,
    );
  });

  it('deletes a cluster as idle only idleSeconds after a plan first found it idle, and records when that was', () => {
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        const plan = planBursts(input);
        for (const cluster of input.clusters) {
          const action = plan.actions.find((a) => a.slot === cluster.slot && a.target === cluster.target);
          if (action?.kind === 'delete' && action.reason === 'Idle') {
            const since = cluster.idleSince ?? input.now;
            assert.ok(
              input.now.getTime() - since.getTime() >= input.policy.idleSeconds * 1000,
              action.message,
            );
          }
          if (action?.kind === 'keep' && !action.busy) {
            assert.deepEqual(action.idleSince, cluster.idleSince ?? input.now);
          }
          if (action?.kind === 'keep' && action.busy) assert.equal(action.idleSince, undefined);
        }
      }),
      RUNS,
    );
  });

  it('never creates and deletes in the same slot in one plan', () => {
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        const plan = planBursts(input);
        const created = new Set(creates(plan).map((create) => create.slot));
        for (const action of plan.actions) {
          if (action.kind === 'delete') assert.ok(!created.has(action.slot), action.slot);
        }
      }),
      RUNS,
    );
  });

  it('acts once on every existing cluster: keep or delete', () => {
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        const plan = planBursts(input);
        const acted = plan.actions
          .filter((action) => action.kind === 'keep' || action.kind === 'delete')
          .map((a) => `${a.slot}/${a.target}`);
        assert.deepEqual(acted.sort(), input.clusters.map((c) => `${c.slot}/${c.target}`).sort());
      }),
      RUNS,
    );
  });

  it('is deterministic: permuting the jobs or the clusters gives the same plan', () => {
    fc.assert(
      fc.property(
        inputArbitrary.chain((input) =>
          fc.tuple(
            fc.constant(input),
            fc.shuffledSubarray([...input.queue.jobs], { minLength: input.queue.jobs.length }),
            fc.shuffledSubarray([...input.clusters], { minLength: input.clusters.length }),
          ),
        ),
        ([input, jobs, clusters]) => {
          const permuted = { ...input, clusters, queue: { ...input.queue, jobs } };
          assert.deepEqual(planBursts(permuted), planBursts(input));
        },
      ),
      RUNS,
    );
  });
});

describe('planBursts: the generated inputs exercise every outcome', () => {
  it('a sample holds creates, multi-slot creates, keeps, deletes, waiting and unsatisfiable jobs', () => {
    const plans = fc.sample(inputArbitrary, { numRuns: 1000, seed: 42 }).map(planBursts);
    const share = (predicate: (plan: BurstPlan) => boolean) => plans.filter(predicate).length / plans.length;
    assert.ok(share((plan) => creates(plan).length > 0) > 0.1);
    assert.ok(share((plan) => creates(plan).length > 1) > 0.03);
    assert.ok(share((plan) => scales(plan).length > 0) > 0.015);
    assert.ok(share((plan) => plan.actions.some((action) => action.kind === 'keep')) > 0.1);
    assert.ok(share((plan) => plan.actions.some((action) => action.kind === 'delete')) > 0.1);
    assert.ok(share((plan) => plan.waiting.length > 0) > 0.002); // rare since clusters grow: target room blocks
    assert.ok(share((plan) => plan.unsatisfiable.length > 0) > 0.1);
  });
});
