import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { neverFits, planBursts, type BurstPlan, type PlannerInput } from '../../../src/burst/planner.ts';
import { NOW, POLICY, cluster, input, job, secondsAgo, slots } from './fixtures.ts';

interface Case {
  readonly name: string;
  readonly input: PlannerInput;
  readonly expected: Partial<BurstPlan>;
}

const none = { actions: [], unsatisfiable: [], waiting: [] };

const cases: Case[] = [
  { name: 'an empty queue plans nothing', input: input(), expected: none },
  {
    name: 'a job not submitted burstable never triggers a burst',
    input: input({ jobs: [job('ƒa', 6, 'SCHED', false)] }),
    expected: none,
  },
  {
    name: 'only SCHED counts: burstable jobs in other states do not trigger a burst',
    input: input({
      jobs: [job('ƒa', 6, 'DEPEND'), job('ƒb', 6, 'PRIORITY'), job('ƒc', 6, 'NEW'), job('ƒd', 6, 'INACTIVE')],
    }),
    expected: none,
  },
  {
    name: 'a job that fits the local brokers waits for them, not for a burst',
    input: input({ jobs: [job('ƒa', 2)], free: 0 }),
    expected: none,
  },
  {
    name: 'a job needing more nodes than are up bursts into the first slot',
    input: input({ jobs: [job('ƒa', 6)] }),
    expected: {
      actions: [
        {
          kind: 'create',
          slot: 'burst-0',
          target: 'in-cluster',
          size: 4,
          reason: 'BurstNeeded',
          message:
            'job ƒa needs 6 nodes; 2 are up or on their way (2 local + 0 burst); creating 4 nodes (of 4 hosts) in slot burst-0 on in-cluster',
          jobs: ['ƒa'],
        },
      ],
      unsatisfiable: [],
      waiting: [],
      capacity: { local: 2, burst: 0, planned: 4 },
    },
  },
  {
    name: 'a burst covers the shortfall only, leaving the rest of the slot down',
    input: input({ jobs: [job('ƒa', 3)] }),
    expected: {
      actions: [
        {
          kind: 'create',
          slot: 'burst-0',
          target: 'in-cluster',
          size: 1,
          reason: 'BurstNeeded',
          message:
            'job ƒa needs 3 nodes; 2 are up or on their way (2 local + 0 burst); creating 1 node (of 4 hosts) in slot burst-0 on in-cluster',
          jobs: ['ƒa'],
        },
      ],
    },
  },
  {
    name: 'several waiting jobs: sized to the largest, not the sum (FCFS runs them in turn)',
    input: input({ jobs: [job('ƒc', 5), job('ƒa', 4), job('ƒb', 3)], slots: slots(8) }),
    expected: {
      actions: [
        {
          kind: 'create',
          slot: 'burst-0',
          target: 'in-cluster',
          size: 3,
          reason: 'BurstNeeded',
          message:
            'jobs ƒa, ƒb, ƒc need up to 5 nodes; 2 are up or on their way (2 local + 0 burst); creating 3 nodes (of 8 hosts) in slot burst-0 on in-cluster',
          jobs: ['ƒa', 'ƒb', 'ƒc'],
        },
      ],
    },
  },
  {
    name: 'a shortfall larger than a slot spans slots in declared order',
    input: input({ jobs: [job('ƒa', 8)], slots: slots(4, 4, 4) }),
    expected: {
      actions: [
        {
          kind: 'create',
          slot: 'burst-0',
          target: 'in-cluster',
          size: 4,
          reason: 'BurstNeeded',
          message:
            'job ƒa needs 8 nodes; 2 are up or on their way (2 local + 0 burst); creating 4 nodes (of 4 hosts) in slot burst-0 on in-cluster',
          jobs: ['ƒa'],
        },
        {
          kind: 'create',
          slot: 'burst-1',
          target: 'in-cluster',
          size: 2,
          reason: 'BurstNeeded',
          message:
            'job ƒa needs 8 nodes; 2 are up or on their way (2 local + 0 burst); creating 2 nodes (of 4 hosts) in slot burst-1 on in-cluster',
          jobs: ['ƒa'],
        },
      ],
    },
  },
  {
    name: 'a Pending burst for the same shortfall is not doubled',
    input: input({
      jobs: [job('ƒa', 6)],
      clusters: [cluster('burst-0', 4, { state: 'Pending', createdAt: secondsAgo(30) })],
    }),
    expected: {
      actions: [
        {
          kind: 'keep',
          slot: 'burst-0',
          target: 'in-cluster',
          reason: 'Busy',
          message: 'slot burst-0 on in-cluster is busy: job ƒa needs 6 nodes, which 2 without it cannot hold',
          busy: true,
        },
      ],
      unsatisfiable: [],
      waiting: [],
      capacity: { local: 2, burst: 4, planned: 0 },
    },
  },
  {
    name: 'a larger job while a burst is Pending bursts only the difference, into the next free slot',
    input: input({
      jobs: [job('ƒa', 6), job('ƒb', 9)],
      slots: slots(4, 4),
      clusters: [cluster('burst-0', 4, { state: 'Pending', createdAt: secondsAgo(30) })],
    }),
    expected: {
      actions: [
        {
          kind: 'create',
          slot: 'burst-1',
          target: 'in-cluster',
          size: 3,
          reason: 'BurstNeeded',
          message:
            'job ƒb needs 9 nodes; 6 are up or on their way (2 local + 4 burst); creating 3 nodes (of 4 hosts) in slot burst-1 on in-cluster',
          jobs: ['ƒb'],
        },
        {
          kind: 'keep',
          slot: 'burst-0',
          target: 'in-cluster',
          reason: 'Busy',
          message:
            'slot burst-0 on in-cluster is busy: jobs ƒa, ƒb need up to 9 nodes, which 5 without it cannot hold',
          busy: true,
        },
      ],
    },
  },
  {
    name: 'targets: cheapest first (no cost = free) with room for the whole cluster, ties in declared order',
    input: input({
      jobs: [job('ƒa', 5)],
      slots: slots(2, 4),
      policy: {
        ...POLICY,
        targets: [
          { name: 'gke', costPerNodeHour: 2 },
          { name: 'eks', costPerNodeHour: 1 },
          { name: 'onprem', maxNodes: 2 },
          { name: 'eks-b', costPerNodeHour: 1 },
        ],
      },
    }),
    expected: {
      actions: [
        {
          kind: 'create',
          slot: 'burst-0',
          target: 'onprem',
          size: 2,
          reason: 'BurstNeeded',
          message:
            'job ƒa needs 5 nodes; 2 are up or on their way (2 local + 0 burst); creating 2 nodes (of 2 hosts) in slot burst-0 on onprem',
          jobs: ['ƒa'],
        },
        {
          kind: 'create',
          slot: 'burst-1',
          target: 'eks',
          size: 1,
          reason: 'BurstNeeded',
          message:
            'job ƒa needs 5 nodes; 2 are up or on their way (2 local + 0 burst); creating 1 node (of 4 hosts) in slot burst-1 on eks',
          jobs: ['ƒa'],
        },
      ],
    },
  },
  {
    name: 'a cheap target too small for a whole cluster is skipped for one that holds it',
    input: input({
      jobs: [job('ƒa', 10)],
      slots: slots(4, 4),
      policy: {
        ...POLICY,
        targets: [
          { name: 'onprem', maxNodes: 2 },
          { name: 'gke', costPerNodeHour: 1 },
        ],
      },
    }),
    expected: {
      actions: [
        {
          kind: 'create',
          slot: 'burst-0',
          target: 'gke',
          size: 4,
          reason: 'BurstNeeded',
          message:
            'job ƒa needs 10 nodes; 2 are up or on their way (2 local + 0 burst); creating 4 nodes (of 4 hosts) in slot burst-0 on gke',
          jobs: ['ƒa'],
        },
        {
          kind: 'create',
          slot: 'burst-1',
          target: 'gke',
          size: 4,
          reason: 'BurstNeeded',
          message:
            'job ƒa needs 10 nodes; 2 are up or on their way (2 local + 0 burst); creating 4 nodes (of 4 hosts) in slot burst-1 on gke',
          jobs: ['ƒa'],
        },
      ],
    },
  },
  {
    name: 'maxNodes counts what a target already holds',
    input: input({
      jobs: [job('ƒa', 5)],
      slots: slots(2, 4),
      policy: {
        ...POLICY,
        targets: [
          { name: 'onprem', maxNodes: 3 },
          { name: 'gke', costPerNodeHour: 1 },
        ],
      },
      clusters: [cluster('burst-0', 2, { target: 'onprem', state: 'Pending', createdAt: secondsAgo(10) })],
    }),
    expected: {
      actions: [
        {
          kind: 'create',
          slot: 'burst-1',
          target: 'onprem',
          size: 1,
          reason: 'BurstNeeded',
          message:
            'job ƒa needs 5 nodes; 4 are up or on their way (2 local + 2 burst); creating 1 node (of 4 hosts) in slot burst-1 on onprem',
          jobs: ['ƒa'],
        },
        {
          kind: 'keep',
          slot: 'burst-0',
          target: 'onprem',
          reason: 'Busy',
          message: 'slot burst-0 on onprem is busy: job ƒa needs 5 nodes, which 3 without it cannot hold',
          busy: true,
        },
      ],
    },
  },
  {
    name: 'maxBurstNodes counts every burst cluster that exists, even one being deleted',
    input: input({
      jobs: [job('ƒa', 8)],
      slots: slots(4, 4),
      policy: { ...POLICY, maxBurstNodes: 6 },
      clusters: [cluster('old-slot', 3)],
    }),
    expected: {
      actions: [
        {
          kind: 'delete',
          slot: 'old-slot',
          target: 'in-cluster',
          reason: 'SlotNotDeclared',
          message:
            'slot old-slot is no longer declared in spec.flux.bursting.clusters; its hosts cannot join',
        },
      ],
      unsatisfiable: [],
      waiting: [
        {
          jobId: 'ƒa',
          reason: 'NoFreeCapacity',
          message:
            'job ƒa needs 8 nodes; 2 are up or on their way and the free slots, room to grow within slots, maxBurstNodes and targets allow 3 more now; it waits until idle burst clusters are removed',
        },
      ],
    },
  },
  {
    name: 'a burst cluster smaller than its slot grows before a new one is made',
    input: input({
      jobs: [job('ƒbig', 10), job('ƒsmall', 5)],
      slots: slots(4, 4),
      clusters: [cluster('burst-0', 2, { idleSince: secondsAgo(60) })],
    }),
    expected: {
      actions: [
        {
          kind: 'create',
          slot: 'burst-1',
          target: 'in-cluster',
          size: 4,
          reason: 'BurstNeeded',
          message:
            'jobs ƒbig, ƒsmall need up to 10 nodes; 4 are up or on their way (2 local + 2 burst); creating 4 nodes (of 4 hosts) in slot burst-1 on in-cluster',
          jobs: ['ƒbig', 'ƒsmall'],
        },
        {
          kind: 'scale',
          slot: 'burst-0',
          target: 'in-cluster',
          from: 2,
          size: 4,
          reason: 'BurstNeeded',
          message:
            'jobs ƒbig, ƒsmall need up to 10 nodes; 4 are up or on their way (2 local + 2 burst); growing the burst cluster in slot burst-0 on in-cluster from 2 to 4 nodes',
          jobs: ['ƒbig', 'ƒsmall'],
        },
        {
          kind: 'keep',
          slot: 'burst-0',
          target: 'in-cluster',
          reason: 'Busy',
          message:
            'slot burst-0 on in-cluster is busy: job ƒbig needs 10 nodes, which 6 without it cannot hold',
          busy: true,
        },
      ],
    },
  },
  {
    name: 'a cluster grows only within its target: a job it cannot cover now waits, holding nothing new',
    input: input({
      jobs: [job('ƒbig', 7)],
      slots: slots(4, 1),
      clusters: [cluster('burst-0', 1, { target: 'b', idleSince: secondsAgo(60) })],
      policy: {
        maxBurstNodes: 100,
        idleSeconds: 300,
        targets: [
          { name: 'a', maxNodes: 4 },
          { name: 'b', maxNodes: 1 },
        ],
      },
    }),
    expected: {
      actions: [
        {
          kind: 'keep',
          slot: 'burst-0',
          target: 'b',
          reason: 'IdleWithinGrace',
          message:
            'no burstable job needs slot burst-0 on b; idle 60s since a queue read first found it idle, removed after 300s',
          busy: false,
          idleSince: secondsAgo(60),
        },
      ],
      waiting: [
        {
          jobId: 'ƒbig',
          reason: 'NoFreeCapacity',
          message:
            'job ƒbig needs 7 nodes; 3 are up or on their way and the free slots, room to grow within slots, maxBurstNodes and targets allow 1 more now; it waits until idle burst clusters are removed',
        },
      ],
    },
  },
  {
    name: 'a burst cluster no job needs is kept until idleSeconds since a plan first found it idle',
    input: input({ clusters: [cluster('burst-0', 4, { idleSince: secondsAgo(299) })] }),
    expected: {
      actions: [
        {
          kind: 'keep',
          slot: 'burst-0',
          target: 'in-cluster',
          reason: 'IdleWithinGrace',
          message:
            'no burstable job needs slot burst-0 on in-cluster; idle 299s since a queue read first found it idle, removed after 300s',
          busy: false,
          idleSince: secondsAgo(299),
        },
      ],
    },
  },
  {
    name: 'a burst cluster idle for idleSeconds is deleted',
    input: input({ clusters: [cluster('burst-0', 4, { idleSince: secondsAgo(300) })] }),
    expected: {
      actions: [
        {
          kind: 'delete',
          slot: 'burst-0',
          target: 'in-cluster',
          reason: 'Idle',
          message:
            'no burstable job needs slot burst-0 on in-cluster; idle 300s since a queue read first found it idle, idleSeconds is 300',
        },
      ],
    },
  },
  {
    name: 'a cluster no plan has found idle yet starts its idle time now, however old: a job may have come and gone unseen',
    input: input({
      clusters: [cluster('burst-0', 4, { state: 'Pending', createdAt: secondsAgo(400) })],
      jobs: [job('ƒa', 2, 'SCHED')],
    }),
    expected: {
      actions: [
        {
          kind: 'keep',
          slot: 'burst-0',
          target: 'in-cluster',
          reason: 'IdleWithinGrace',
          message:
            'no burstable job needs slot burst-0 on in-cluster; idle 0s since a queue read first found it idle, removed after 300s',
          busy: false,
          idleSince: NOW,
        },
      ],
    },
  },
  {
    name: 'with idleSeconds 0, a cluster found idle goes at once',
    input: input({
      clusters: [cluster('burst-0', 4, { createdAt: secondsAgo(5) })],
      policy: { ...POLICY, idleSeconds: 0 },
    }),
    expected: {
      actions: [
        {
          kind: 'delete',
          slot: 'burst-0',
          target: 'in-cluster',
          reason: 'Idle',
          message:
            'no burstable job needs slot burst-0 on in-cluster; idle 0s since a queue read first found it idle, idleSeconds is 0',
        },
      ],
    },
  },
  {
    name: 'a running burstable job keeps every burst cluster (the snapshot does not say where it runs)',
    input: input({
      clusters: [cluster('burst-0', 4, { idleSince: secondsAgo(9000) })],
      jobs: [job('ƒr', 1, 'RUN'), job('ƒs', 1, 'RUN', false)],
    }),
    expected: {
      actions: [
        {
          kind: 'keep',
          slot: 'burst-0',
          target: 'in-cluster',
          reason: 'Busy',
          message:
            'slot burst-0 on in-cluster is busy: burstable job ƒr running (placement unknown, so possibly on its nodes)',
          busy: true,
        },
      ],
    },
  },
  {
    name: 'a running job not submitted burstable does not keep a burst cluster',
    input: input({
      clusters: [cluster('burst-0', 4, { idleSince: secondsAgo(9000) })],
      jobs: [job('ƒs', 6, 'RUN', false)],
    }),
    expected: {
      actions: [
        {
          kind: 'delete',
          slot: 'burst-0',
          target: 'in-cluster',
          reason: 'Idle',
          message:
            'no burstable job needs slot burst-0 on in-cluster; idle 9000s since a queue read first found it idle, idleSeconds is 300',
        },
      ],
    },
  },
  {
    name: 'a second cluster in one slot is deleted, the older one stays; slots are never created and deleted together',
    input: input({
      jobs: [job('ƒa', 6)],
      clusters: [
        cluster('burst-0', 4, { target: 'gke', createdAt: secondsAgo(10) }),
        cluster('burst-0', 4, { createdAt: secondsAgo(20) }),
      ],
    }),
    expected: {
      actions: [
        {
          kind: 'keep',
          slot: 'burst-0',
          target: 'in-cluster',
          reason: 'Busy',
          message: 'slot burst-0 on in-cluster is busy: job ƒa needs 6 nodes, which 2 without it cannot hold',
          busy: true,
        },
        {
          kind: 'delete',
          slot: 'burst-0',
          target: 'gke',
          reason: 'DuplicateSlot',
          message:
            "slot burst-0 already holds an older burst cluster; a slot's hosts can join from one cluster only",
        },
      ],
    },
  },
];

const unsatisfiableCases: {
  name: string;
  input: PlannerInput;
  reason: string;
  message: string;
}[] = [
  {
    name: 'more nodes than the local and declared burst hosts',
    input: input({ jobs: [job('ƒ2', 12)], slots: slots(4, 4) }),
    reason: 'ExceedsDeclaredHosts',
    message:
      'job ƒ2 needs 12 nodes; this MiniCluster lists 2 local + 8 burst hosts (burst-0: 4, burst-1: 4); declare a bigger slot in spec.flux.bursting.clusters',
  },
  {
    name: 'no burst slot declared',
    input: input({ jobs: [job('ƒ2', 3)], slots: [] }),
    reason: 'NoBurstSlots',
    message:
      'job ƒ2 needs 3 nodes; this MiniCluster has 2 local brokers and declares no burst clusters; declare them in spec.flux.bursting.clusters',
  },
  {
    name: 'more than maxBurstNodes allows',
    input: input({ jobs: [job('ƒ2', 7)], slots: slots(4, 4), policy: { ...POLICY, maxBurstNodes: 4 } }),
    reason: 'ExceedsMaxBurstNodes',
    message:
      "job ƒ2 needs 7 nodes; 2 local brokers + maxBurstNodes 4 make 6; raise the policy's maxBurstNodes to at least 5",
  },
  {
    name: 'no target',
    input: input({ jobs: [job('ƒ2', 3)], policy: { ...POLICY, targets: [] } }),
    reason: 'NoBurstTarget',
    message:
      "job ƒ2 needs 3 nodes, more than the 2 local brokers, and the burst policy lists no target; add one to the policy's targets",
  },
  {
    name: "more than the targets' maxNodes can hold",
    input: input({
      jobs: [job('ƒ2', 9)],
      slots: slots(4, 4),
      policy: {
        ...POLICY,
        targets: [
          { name: 'a', maxNodes: 3 },
          { name: 'b', maxNodes: 3 },
        ],
      },
    }),
    reason: 'ExceedsTargetCapacity',
    message:
      "job ƒ2 needs 9 nodes; the targets' maxNodes (a: 3, b: 3) hold 6 of the 8 burst hosts (one slot goes to one target), so 2 local + 6 burst; raise a target's maxNodes",
  },
  {
    name: 'no node count',
    input: input({ jobs: [job('ƒ2', 0)] }),
    reason: 'NodeCountUnknown',
    message: 'job ƒ2 asks for no node count (nnodes 0); bursts are sized in nodes: submit it with -N',
  },
];

describe('planBursts: jobs that can never run', () => {
  for (const testCase of unsatisfiableCases) {
    it(testCase.name, () => {
      const plan = planBursts(testCase.input);
      assert.deepEqual(plan.unsatisfiable, [
        { jobId: 'ƒ2', reason: testCase.reason, message: testCase.message },
      ]);
      assert.deepEqual(plan.actions, [], 'a job that can never run triggers no burst');
      assert.deepEqual(plan.waiting, []);
    });
  }

  it('reports every such job, sorted by id, next to the bursts for the others', () => {
    const plan = planBursts(input({ jobs: [job('ƒz', 20), job('ƒb', 5), job('ƒa', 7)] }));
    assert.deepEqual(
      plan.unsatisfiable.map((verdict) => verdict.jobId),
      ['ƒa', 'ƒz'],
    );
    assert.deepEqual(
      plan.actions.map((action) => [action.kind, action.slot, action.kind === 'create' ? action.size : 0]),
      [['create', 'burst-0', 3]],
    );
  });

  it('neverFits accepts a job the local brokers hold even with no slot or target', () => {
    assert.equal(neverFits({ id: 'ƒ1', nnodes: 2 }, 2, [], { ...POLICY, targets: [] }), undefined);
    assert.equal(neverFits({ id: 'ƒ1', nnodes: 6 }, 2, slots(4), POLICY), undefined);
    assert.equal(neverFits({ id: 'ƒ1', nnodes: 7 }, 2, slots(4), POLICY)?.reason, 'ExceedsDeclaredHosts');
  });
});

describe('planBursts: inputs', () => {
  it('does not read the clock: the same input at another now only changes idle times', () => {
    const base = input({ clusters: [cluster('burst-0', 4, { idleSince: secondsAgo(100) })] });
    assert.equal(planBursts(base).actions[0]?.kind, 'keep');
    assert.equal(planBursts({ ...base, now: new Date(NOW.getTime() + 200_000) }).actions[0]?.kind, 'delete');
  });
});

describe('planBursts: rules', () => {
  for (const testCase of cases) {
    it(testCase.name, () => {
      const plan = planBursts(testCase.input);
      for (const key of Object.keys(testCase.expected) as (keyof BurstPlan)[]) {
        assert.deepEqual(plan[key], testCase.expected[key], `plan.${key}`);
      }
    });
  }
});

describe('planBursts: message wording', () => {
  it('counts in the singular for one', () => {
    const plan = planBursts(input({ localSize: 1, slots: [], jobs: [job('ƒ1', 2)] }));
    assert.equal(
      plan.unsatisfiable[0]?.message,
      'job ƒ1 needs 2 nodes; this MiniCluster has 1 local broker and declares no burst clusters; declare them in spec.flux.bursting.clusters',
    );
  });
});
