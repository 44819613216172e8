import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { burstPlanCommand } from '../../../src/cli/burst-plan-command.ts';
import { InputError } from '../../../src/cli/input-error.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;
const MINICLUSTER = join(ROOT, 'examples/burst-local.yaml');
const QUEUE = join(ROOT, 'test/fixtures/burst/queue.json');
const POLICY = join(ROOT, 'test/fixtures/burst/policy.json');

function tempFile(name: string, content: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'flux-operator-burst-plan-')), name);
  writeFileSync(path, content);
  return path;
}

async function problemsOf(promise: Promise<unknown>): Promise<readonly string[]> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof InputError, `an InputError, got ${String(error)}`);
    return error.problems;
  }
  assert.fail('expected an InputError');
}

const EXPECTED_TEXT = `MiniCluster default/burst-local: 2 local brokers; burst slots burst-0 (4)
Queue ${QUEUE} at 2026-01-01T12:00:00.000Z: 2 nodes up, 0 free; burstable jobs: 3 waiting, 0 running
Policy: maxBurstNodes 4, idleSeconds 300, targets in-cluster, gke $0.5/node-hour max 16
Capacity: 2 local + 0 burst up or on their way; 4 burst nodes planned

Actions:
  ACTION  SLOT     TARGET      SIZE  REASON
  create  burst-0  in-cluster  4     BurstNeeded
      jobs ƒ2, ƒ5 need up to 6 nodes; 2 are up or on their way (2 local + 0 burst); creating 4 nodes (of 4 hosts) in slot burst-0 on in-cluster

Jobs that can never run:
  ƒ3  ExceedsDeclaredHosts
      job ƒ3 needs 12 nodes; this MiniCluster lists 2 local + 4 burst hosts (burst-0: 4); declare a bigger slot in spec.flux.bursting.clusters
`;

describe('burstPlanCommand', () => {
  it('prints the plan for the example MiniCluster, queue and policy as text', async () => {
    const text = await burstPlanCommand({
      file: MINICLUSTER,
      queueFile: QUEUE,
      policyFile: POLICY,
      format: 'text',
    });
    assert.equal(text, EXPECTED_TEXT);
  });

  it('prints the plan as JSON with the default policy', async () => {
    const output = await burstPlanCommand({ file: MINICLUSTER, queueFile: QUEUE, format: 'json' });
    const parsed = JSON.parse(output) as Record<string, unknown>;
    assert.deepEqual(Object.keys(parsed), ['miniCluster', 'localSize', 'slots', 'policy', 'plan']);
    assert.equal(parsed.miniCluster, 'default/burst-local');
    assert.equal(parsed.localSize, 2);
    assert.deepEqual(parsed.slots, [{ name: 'burst-0', size: 4 }]);
    assert.deepEqual(parsed.policy, {
      maxBurstNodes: 10000,
      idleSeconds: 600,
      targets: [{ name: 'in-cluster' }],
    });
    const plan = parsed.plan as Record<string, unknown>;
    assert.deepEqual(plan.actions, [
      {
        kind: 'create',
        slot: 'burst-0',
        target: 'in-cluster',
        size: 4,
        reason: 'BurstNeeded',
        message:
          'jobs ƒ2, ƒ5 need up to 6 nodes; 2 are up or on their way (2 local + 0 burst); creating 4 nodes (of 4 hosts) in slot burst-0 on in-cluster',
        jobs: ['ƒ2', 'ƒ5'],
      },
    ]);
    assert.deepEqual(
      (plan.unsatisfiable as { jobId: string; reason: string }[]).map(({ jobId, reason }) => [jobId, reason]),
      [['ƒ3', 'ExceedsDeclaredHosts']],
    );
    assert.deepEqual(plan.waiting, []);
    assert.deepEqual(plan.capacity, { local: 2, burst: 0, planned: 4 });
  });

  it('reads flux jobs --json ids (integers) and attributes.system.burstable; takenAt defaults to now', async () => {
    const queue = tempFile(
      'queue.json',
      JSON.stringify({
        nodes: { up: 2, free: 2 },
        jobs: [
          {
            id: 1234,
            state: 'SCHED',
            nnodes: 5,
            ntasks: 5,
            ncores: 5,
            attributes: { system: { burstable: 1 } },
          },
          { id: 99, state: 'SCHED', nnodes: 6, ntasks: 6, ncores: 6, userid: 1000, urgency: 16 },
        ],
      }),
    );
    const output = await burstPlanCommand({
      file: MINICLUSTER,
      queueFile: queue,
      format: 'json',
      now: new Date('2026-02-02T00:00:00Z'),
    });
    const plan = (JSON.parse(output) as { plan: { actions: { jobs: string[]; size: number }[] } }).plan;
    assert.deepEqual(
      plan.actions.map((action) => [action.size, action.jobs]),
      [[3, ['1234']]],
    );
    const text = await burstPlanCommand({
      file: MINICLUSTER,
      queueFile: queue,
      format: 'text',
      now: new Date('2026-02-02T00:00:00Z'),
    });
    assert.match(
      text,
      /at 2026-02-02T00:00:00\.000Z: 2 nodes up, 2 free; burstable jobs: 1 waiting, 0 running/,
    );
  });

  it('says so when there is nothing to do', async () => {
    const queue = tempFile('queue.json', '{"nodes":{"up":2,"free":2},"jobs":[]}');
    const text = await burstPlanCommand({ file: MINICLUSTER, queueFile: queue, format: 'text' });
    assert.match(text, /\n\nActions: none\n$/);
  });

  it('names the file and the field of every problem in a bad queue file, all at once', async () => {
    const queue = tempFile(
      'queue.json',
      JSON.stringify({
        takenAt: 'yesterday',
        nodes: { up: 2, free: 3 },
        jobs: [
          { id: 'ƒ1', state: 'WAITING', nnodes: -1, ntasks: 1, ncores: 1, burstable: 'yes' },
          { id: 'ƒ2', state: 'SCHED', nnodes: 2, ntasks: 2, ncores: 2 },
          { id: 'ƒ2', state: 'RUN', nnodes: 2, ntasks: 2, ncores: 2 },
          { state: 'SCHED', nnodes: 1, ntasks: 1 },
        ],
        extra: true,
      }),
    );
    assert.deepEqual(
      await problemsOf(burstPlanCommand({ file: MINICLUSTER, queueFile: queue, format: 'text' })),
      [
        `${queue}: unknown field extra; known fields are takenAt, nodes, jobs`,
        `${queue}: takenAt: must be an ISO 8601 time, got "yesterday"`,
        `${queue}: nodes.free: 3 free nodes but only 2 up`,
        `${queue}: jobs[0].state: must be one of NEW, DEPEND, PRIORITY, SCHED, RUN, CLEANUP, INACTIVE, got "WAITING"`,
        `${queue}: jobs[0].nnodes: must be an integer >= 0, got -1`,
        `${queue}: jobs[0].burstable: must be true or false, got "yes"`,
        `${queue}: jobs[2].id: job ƒ2 is listed twice`,
        `${queue}: jobs[3].id: must be a non-empty string or an integer >= 0, got nothing`,
        `${queue}: jobs[3].ncores: must be an integer >= 0, got nothing`,
      ],
    );
  });

  it('rejects a queue file that is not a snapshot object, or not JSON, or missing', async () => {
    const list = tempFile('queue.json', '[]');
    assert.deepEqual(
      await problemsOf(burstPlanCommand({ file: MINICLUSTER, queueFile: list, format: 'text' })),
      [`${list}: must be a JSON object {takenAt?, nodes: {up, free}, jobs: [...]}`],
    );
    const noFields = tempFile('queue.json', '{}');
    assert.deepEqual(
      await problemsOf(burstPlanCommand({ file: MINICLUSTER, queueFile: noFields, format: 'text' })),
      [
        `${noFields}: nodes: must be an object {up, free} (brokers online, and online with no job)`,
        `${noFields}: jobs: must be a list of jobs (the "jobs" of flux jobs -a --json)`,
      ],
    );
    const notJson = tempFile('queue.json', '{"jobs": [');
    const [problem] = await problemsOf(
      burstPlanCommand({ file: MINICLUSTER, queueFile: notJson, format: 'text' }),
    );
    assert.match(problem ?? '', new RegExp(`^--queue ${notJson}: not JSON \\(`));
    const missing = join(tmpdir(), 'no-such-queue.json');
    assert.deepEqual(
      await problemsOf(burstPlanCommand({ file: MINICLUSTER, queueFile: missing, format: 'text' })),
      [`--queue ${missing}: cannot read the file (ENOENT)`],
    );
  });

  it('reports a bad policy file next to a bad queue file', async () => {
    const queue = tempFile('queue.json', '{"nodes":{"up":2,"free":0},"jobs":[{"id":"ƒ1"}]}');
    const policy = tempFile(
      'policy.json',
      JSON.stringify({
        maxBurstNodes: 2.5,
        idleSecs: 5,
        targets: [{ name: 'GKE' }, { name: 'a', costPerNodeHour: -1 }],
      }),
    );
    assert.deepEqual(
      await problemsOf(
        burstPlanCommand({ file: MINICLUSTER, queueFile: queue, policyFile: policy, format: 'text' }),
      ),
      [
        `${queue}: jobs[0].state: must be one of NEW, DEPEND, PRIORITY, SCHED, RUN, CLEANUP, INACTIVE, got nothing`,
        `${queue}: jobs[0].nnodes: must be an integer >= 0, got nothing`,
        `${queue}: jobs[0].ntasks: must be an integer >= 0, got nothing`,
        `${queue}: jobs[0].ncores: must be an integer >= 0, got nothing`,
        `${policy}.idleSecs: unknown field; known fields are maxBurstNodes, idleSeconds, pollSeconds, targets`,
        `${policy}.maxBurstNodes: must be an integer >= 0, got 2.5`,
        `${policy}.targets[0].name: must be a DNS label (lower case, digits, '-'), got "GKE"`,
        `${policy}.targets[1].costPerNodeHour: must be a number >= 0, got -1`,
      ],
    );
  });

  it('needs exactly one MiniCluster with burst slots, not a hostlist', async () => {
    const two = tempFile(
      'two.yaml',
      `apiVersion: flux-framework.org/v1alpha1
kind: MiniCluster
metadata: {name: one}
spec: {size: 2, containers: [{image: busybox}]}
---
apiVersion: flux-framework.org/v1alpha1
kind: MiniCluster
metadata: {name: two}
spec: {size: 2, containers: [{image: busybox}]}
`,
    );
    assert.deepEqual(await problemsOf(burstPlanCommand({ file: two, queueFile: QUEUE, format: 'text' })), [
      `-f ${two}: holds 2 MiniClusters; give exactly one`,
    ]);
    const hostlist = tempFile(
      'hostlist.yaml',
      `apiVersion: flux-framework.org/v1alpha1
kind: MiniCluster
metadata: {name: one}
spec: {size: 2, containers: [{image: busybox}], flux: {bursting: {hostlist: "one-[0-1],other-[0-3]"}}}
`,
    );
    assert.deepEqual(
      await problemsOf(burstPlanCommand({ file: hostlist, queueFile: QUEUE, format: 'text' })),
      [
        `-f ${hostlist}: spec.flux.bursting.hostlist replaces the burst slots; the planner needs spec.flux.bursting.clusters`,
      ],
    );
  });

  it('a MiniCluster without burst slots reports burstable jobs it cannot hold', async () => {
    const text = await burstPlanCommand({
      file: join(ROOT, 'examples/hello-world.yaml'),
      queueFile: QUEUE,
      format: 'text',
    });
    assert.match(text, /burst slots none\n/);
    assert.match(text, /ƒ2 {2}NoBurstSlots\n/);
  });
});

describe('burst plan with the policy of the MiniCluster', () => {
  it('uses spec.flux.bursting.policy, defaulted, when --policy is not given', async () => {
    const file = tempFile(
      'policy-in-spec.yaml',
      `apiVersion: flux-framework.org/v1alpha1
kind: MiniCluster
metadata:
  name: burst-local
spec:
  size: 2
  interactive: true
  containers:
    - image: ghcr.io/flux-framework/flux-restful-api:latest
  flux:
    bursting:
      clusters:
        - name: burst-0
          size: 4
      policy:
        maxBurstNodes: 3
        targets:
          - name: cloud
            costPerNodeHour: 2
          - name: onprem
`,
    );
    const text = await burstPlanCommand({ file, queueFile: QUEUE, format: 'text' });
    assert.match(text, /^Policy: maxBurstNodes 3, idleSeconds 600, targets onprem, cloud \$2\/node-hour$/m);
  });
});
