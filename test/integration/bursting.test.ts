// Bursting end to end on the local control plane, through the real exec path: the lead pod's queue is
// a scripted one (kwok runs the snapshot script locally with a fake `flux` first on PATH), the target
// is this cluster ("in-cluster"), so the burst MiniCluster appears next to the local one.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PLURAL, SECRET_DATA_KEYS } from '../../src/api/index.ts';
import { listCustomObjects } from '../../src/kube/custom-objects.ts';
import { apiClientsFor, loadKubeConfig } from '../../src/kube/clients.ts';
import { apiClients, type ApiClients } from '../../src/kube/api-clients.ts';
import { Operator } from '../../src/controllers/operator.ts';
import { up } from '../../workbench/src/localcluster/index.ts';
import { createLogger } from '../../src/observability/logger.ts';
import {
  createSecret,
  createTarget,
  inlineKubeconfig,
  installBurstTargetCrd,
  installMiniClusterCrd,
} from '../harness/burst-target.ts';
import { burstStatusCommand } from '../../src/cli/burst-status-command.ts';
import { readMiniClusterStatus } from '../../src/controllers/minicluster/minicluster-client.ts';
import { cluster, waitFor, withNamespace } from '../harness/cluster.ts';
import { usesNamespace } from '../harness/namespace-users.ts';
import {
  applyMiniCluster,
  kubectl,
  miniClusterObject,
  podsOf,
  readStatus,
  startOperator,
} from '../harness/operator.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/flux-queue/', import.meta.url));
/** The fixture's burstable job asking for 4 nodes, and its jobspec. */
const JOB = {
  id: 67108864000002,
  jobid: 'ƒXPqVWUVP',
  state: 'SCHED',
  nnodes: 4,
  ntasks: 4,
  name: 'burst-job',
  t_submit: 1767229600.0,
};
/** The fixture's burstable mpi-app job, asking for more nodes than the MiniCluster lists (2 + 4). */
const TOO_BIG = {
  // The fixture's id ends in ...0005, beyond 2^53: as JSON numbers do, it arrives rounded; jobid is exact.
  id: 11744051200000004,
  jobid: 'ƒ2ahuK1vwXS',
  state: 'SCHED',
  nnodes: 9,
  ntasks: 9,
  name: 'mpi-app',
  t_submit: 1767925600.0,
};

interface Queue {
  dir: string;
  /** A job waiting for 4 nodes while 2 are up (and any other jobs given). */
  waiting(...others: (typeof TOO_BIG)[]): void;
  /** Exactly these jobs (each with the fixture jobspecs' ids). */
  jobs(jobs: readonly (typeof TOO_BIG)[]): void;
  /** Nothing queued. */
  empty(): void;
  /** Whether every flux command fails, as with the broker down. */
  unavailable(down: boolean): void;
}

function writeJobs(dir: string, jobs: readonly (typeof TOO_BIG)[]): void {
  writeFileSync(join(dir, 'jobs.out'), `${JSON.stringify({ jobs })}\n`);
  writeFileSync(join(dir, 'ids.txt'), jobs.map((job) => `${job.jobid.replace('ƒ', 'f')}\n`).join(''));
}

function scriptedQueue(t: TestContext): Queue {
  const dir = mkdtempSync(join(tmpdir(), 'burst-queue-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'jobspec'));
  for (const id of ['fXPqVWUVP', 'f2ahuK1vwXS'])
    cpSync(join(FIXTURES, `queue/jobspec/${id}.out`), join(dir, `jobspec/${id}.out`));
  writeFileSync(join(dir, 'resources.txt'), 'up 2 0-1\nallocated 0 \n');
  return {
    dir,
    jobs: (jobs) => writeJobs(dir, jobs),
    waiting: (...others) => writeJobs(dir, [JOB, ...others]),
    empty: () => {
      writeFileSync(join(dir, 'jobs.out'), '{"jobs": []}\n');
      writeFileSync(join(dir, 'ids.txt'), '');
    },
    unavailable: (down) =>
      down ? writeFileSync(join(dir, 'unavailable'), '') : rmSync(join(dir, 'unavailable'), { force: true }),
  };
}

/** Makes `exec` into the lead pod run the snapshot script here, against the scripted queue. */
async function serveQueue(namespace: string, pod: string, container: string, queue: Queue): Promise<void> {
  const { objects } = await cluster();
  await objects.create({
    apiVersion: 'kwok.x-k8s.io/v1alpha1',
    kind: 'Exec',
    metadata: { name: pod, namespace },
    spec: {
      execs: [
        {
          containers: [container],
          local: {
            workDir: queue.dir,
            envs: [
              { name: 'PATH', value: `${join(FIXTURES, 'bin')}:/usr/local/bin:/usr/bin:/bin` },
              { name: 'FAKE_FLUX_DIR', value: queue.dir },
            ],
          },
        },
      ],
    },
  } as never);
}

/** Waits for the lead pod of `burst-local` and serves the scripted queue to exec into it. */
async function serveQueueOnLead(clients: ApiClients, namespace: string, queue: Queue): Promise<void> {
  const lead = await waitFor(
    async () =>
      (await podsOf(clients, namespace, 'burst-local')).find(
        (pod) => pod.spec?.hostname === 'burst-local-0' && pod.status?.phase === 'Running',
      ),
    { what: 'the lead pod running' },
  );
  await serveQueue(namespace, lead.metadata?.name ?? '', 'burst-local', queue);
}

/** Names of the burst MiniClusters in a namespace (of this cluster unless `clients` says otherwise). */
async function burstMiniClusters(
  namespace: string,
  clients?: ApiClients,
  labelSelector = 'flux-framework.org/burst-slot',
): Promise<string[]> {
  const custom = (clients ?? apiClientsFor((await cluster()).kc)).custom;
  const list = await listCustomObjects(custom, PLURAL, namespace, labelSelector);
  return list.items.map((item) => item.metadata?.name ?? '');
}

/** The lead MiniCluster's containers where a job's cores matter (4 per broker). */
const FOUR_CORES = [{ image: 'ghcr.io/flux-framework/flux-restful-api:latest', cores: 4 }];

/** A namespace watched by an in-process operator, and a scripted queue for its lead pod. */
async function burstSetup(t: TestContext, prefix: string) {
  const namespace = await withNamespace(t, prefix);
  const operator = await startOperator(namespace);
  t.after(() => operator.stop());
  return { namespace, operator, clients: operator.clients, queue: scriptedQueue(t) };
}

/** `burst-local`: 2 brokers with these bursting settings, its lead pod serving `queue`. */
async function applyBurstLocal(
  clients: ApiClients,
  namespace: string,
  queue: Queue,
  bursting: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await applyMiniCluster(
    clients,
    miniClusterObject(namespace, 'burst-local', { size: 2, interactive: true, ...extra, flux: { bursting } }),
  );
  await serveQueueOnLead(clients, namespace, queue);
}

/** Waits for one burst MiniCluster in the namespace and its record in status. */
async function oneBurstRecorded(clients: ApiClients, namespace: string): Promise<void> {
  await waitFor(async () => (await burstMiniClusters(namespace)).length === 1, {
    what: 'a burst MiniCluster',
    timeoutMs: 60_000,
  });
  await waitFor(
    async () => ((await readStatus(clients, namespace, 'burst-local')).bursts ?? []).length === 1,
    { what: 'the burst recorded in status' },
  );
}

describe('bursting to this cluster', () => {
  it('creates a burst MiniCluster for a waiting burstable job, and removes it when idle', async (t) => {
    const { namespace, clients, queue } = await burstSetup(t, 'burst');
    queue.waiting(TOO_BIG);
    await applyBurstLocal(
      clients,
      namespace,
      queue,
      { clusters: [{ name: 'burst-0', size: 4 }], policy: { idleSeconds: 3, pollSeconds: 2 } },
      { containers: FOUR_CORES },
    );

    // The job needs 4 nodes, 2 are up: a burst cluster of 2 brokers fills slot burst-0 (pods burst-0-<i>).
    const [name] = await waitFor(
      async () => {
        const names = await burstMiniClusters(namespace);
        return names.length === 1 ? names : false;
      },
      { what: 'a burst MiniCluster', timeoutMs: 60_000 },
    );
    assert.match(name ?? '', /^burst-local-burst-0-[0-9a-f]{10}$/);
    const burstStatus = await waitFor(
      async () => {
        const status = await readMiniClusterStatus(clients, namespace, name ?? '');
        return status?.summary === 'Ready' ? status : false;
      },
      { what: 'the burst MiniCluster Ready' },
    );
    assert.equal(burstStatus.readyPods, 2);
    const burstPods = await clients.core.listNamespacedPod({
      namespace,
      labelSelector: `flux-framework.org/minicluster=${name}`,
    });
    assert.deepEqual(burstPods.items.map((pod) => pod.spec?.hostname).sort(), ['burst-0-0', 'burst-0-1']);
    const burstConfig = await clients.core.readNamespacedConfigMap({
      name: `${name}-flux-config`,
      namespace,
    });
    assert.match(
      burstConfig.data?.['broker.toml'] ?? '',
      /host = "burst-local-0"\nconnect = "tcp:\/\/127\.0\.0\.1:\d+"/,
    );

    const local = await waitFor(
      async () => {
        const status = await readStatus(clients, namespace, 'burst-local');
        return status.bursts?.[0]?.state === 'Ready' ? status : false;
      },
      { what: 'status.bursts Ready' },
    );
    assert.deepEqual(
      local.bursts?.map((burst) => [burst.slot, burst.target, burst.name, burst.size]),
      [['burst-0', 'in-cluster', name, 2]],
    );
    assert.equal(local.conditions?.find((condition) => condition.type === 'Bursting')?.status, 'True');
    // The 9-node job can never fit: listed in status, and one warning however many passes saw it.
    assert.deepEqual(
      local.burstJobs?.map((job) => [job.id, job.reason]),
      [['f2ahuK1vwXS', 'ExceedsDeclaredHosts']],
    );
    const cannotFit = (await clients.events.listNamespacedEvent({ namespace })).items.filter(
      (event) => event.reason === 'JobCannotFit',
    );
    assert.equal(cannotFit.length, 1, JSON.stringify(cannotFit.map((event) => event.note)));
    assert.match(
      cannotFit[0]?.note ?? '',
      /^job f2ahuK1vwXS needs 9 nodes; this MiniCluster lists 2 local \+ 4 burst hosts/,
    );
    const report = await burstStatusCommand({ kubeconfig: (await cluster()).kubeconfig, namespace });
    assert.match(report, new RegExp(`burst-0 +in-cluster +${namespace}/${name ?? ''} +2 +Ready +fXPqVWUVP`));
    const { stdout } = await kubectl(
      'get',
      'mc',
      'burst-local',
      '-n',
      namespace,
      '-o',
      'jsonpath={.metadata.finalizers}',
    );
    assert.match(stdout, /flux-framework\.org\/burst-cleanup/);

    // The work is done: after idleSeconds the burst cluster goes.
    queue.empty();
    await waitFor(async () => (await burstMiniClusters(namespace)).length === 0, {
      what: 'the idle burst MiniCluster to be removed',
      timeoutMs: 60_000,
    });
    const idle = await waitFor(
      async () => {
        const status = await readStatus(clients, namespace, 'burst-local');
        return (status.bursts ?? []).length === 0 ? status : false;
      },
      { what: 'status.bursts empty' },
    );
    assert.equal(idle.conditions?.find((condition) => condition.type === 'Bursting')?.reason, 'Idle');
    await waitFor(
      async () => {
        const events = (await clients.events.listNamespacedEvent({ namespace })).items;
        return (
          events.some((event) => event.reason === 'BurstCreated') &&
          events.some((event) => event.reason === 'BurstRemoved')
        );
      },
      { what: 'the BurstCreated and BurstRemoved events' },
    );
  });

  it('counts a burst idle from the first queue read that shows it so: its job may come and go while the queue cannot be read', async (t) => {
    const { namespace, clients, queue, operator } = await burstSetup(t, 'burstblind');
    const idleSeconds = 6;
    queue.waiting();
    await applyBurstLocal(clients, namespace, queue, {
      clusters: [{ name: 'burst-0', size: 4 }],
      policy: { idleSeconds, pollSeconds: 1 },
    });
    await oneBurstRecorded(clients, namespace);
    const bursting = async () =>
      (await readStatus(clients, namespace, 'burst-local')).conditions?.find((c) => c.type === 'Bursting');

    // The queue cannot be read for longer than idleSeconds; meanwhile the job runs and ends, unseen.
    queue.unavailable(true);
    await waitFor(async () => (await bursting())?.reason === 'FluxUnavailable', {
      what: 'the Bursting condition saying the queue cannot be read',
      timeoutMs: 30_000,
    });
    const [name] = await burstMiniClusters(namespace);
    await new Promise((resolve) => setTimeout(resolve, (idleSeconds + 2) * 1000));
    // The operator says so once, not at every poll of the outage.
    const waits = operator.logLines.filter(
      (line) => line.includes('bursting waits') && line.includes('"reason":"FluxUnavailable"'),
    );
    assert.equal(waits.length, 1, waits.join('\n'));
    assert.match(waits[0] ?? '', /Unable to connect to Flux/);
    queue.empty();
    const readableAt = Date.now();
    queue.unavailable(false);

    // Read again, the burst is idle from then on: kept, with the time its idle time began.
    const kept = await waitFor(
      async () => {
        const status = await readStatus(clients, namespace, 'burst-local');
        const burst = status.bursts?.[0];
        if (burst === undefined) return { removedBeforeSeenIdle: true };
        return burst.idleSince ? burst : false;
      },
      { what: 'the burst recorded idle', timeoutMs: 30_000, intervalMs: 200 },
    );
    assert.ok(!('removedBeforeSeenIdle' in kept), 'the burst was removed at the first read after the outage');
    // Status times are whole seconds.
    assert.ok(Date.parse(kept.idleSince ?? '') >= readableAt - 1000, `idle since ${kept.idleSince}`);
    assert.deepEqual(await burstMiniClusters(namespace), [name]);
    await waitFor(async () => (await burstMiniClusters(namespace)).length === 0, {
      what: 'the idle burst MiniCluster to be removed',
      timeoutMs: 60_000,
    });
    const removedAfterMs = Date.now() - Date.parse(kept.idleSince ?? '');
    assert.ok(removedAfterMs >= idleSeconds * 1000, `removed ${removedAfterMs} ms after it was found idle`);
  });

  it('grows a burst cluster within its slot when a bigger job waits', async (t) => {
    const { namespace, clients, queue } = await burstSetup(t, 'burstgrow');
    queue.jobs([{ ...JOB, nnodes: 3, ntasks: 3 }]);
    await applyBurstLocal(clients, namespace, queue, {
      clusters: [{ name: 'burst-0', size: 4 }],
      policy: { pollSeconds: 2 },
    });
    const first = await waitFor(
      async () => {
        const bursts = (await readStatus(clients, namespace, 'burst-local')).bursts ?? [];
        return bursts.length === 1 && bursts[0]?.state === 'Ready' ? bursts[0] : false;
      },
      { what: 'a burst of 1 Ready', timeoutMs: 60_000 },
    );
    assert.equal(first.size, 1);

    // Now it needs 6: the same burst MiniCluster grows to the slot's 4, no second one is made.
    queue.jobs([{ ...JOB, nnodes: 6, ntasks: 6 }]);
    const grown = await waitFor(
      async () => {
        const bursts = (await readStatus(clients, namespace, 'burst-local')).bursts ?? [];
        return bursts.length === 1 && bursts[0]?.size === 4 && bursts[0].state === 'Ready'
          ? bursts[0]
          : false;
      },
      { what: 'the burst grown to 4 and Ready', timeoutMs: 60_000 },
    );
    assert.equal(grown.name, first.name);
    assert.deepEqual(await burstMiniClusters(namespace), [first.name]);
    const pods = await clients.core.listNamespacedPod({
      namespace,
      labelSelector: `flux-framework.org/minicluster=${first.name}`,
    });
    assert.deepEqual(
      pods.items
        .filter((pod) => pod.status?.phase === 'Running')
        .map((pod) => pod.spec?.hostname)
        .sort(),
      ['burst-0-0', 'burst-0-1', 'burst-0-2', 'burst-0-3'],
    );
    const scaled = (await clients.events.listNamespacedEvent({ namespace })).items.filter(
      (event) => event.reason === 'BurstScaled',
    );
    assert.equal(scaled.length, 1);
    assert.match(
      scaled[0]?.note ?? '',
      /growing the burst cluster in slot burst-0 on in-cluster from 1 to 4 nodes$/,
    );
  });

  it('removes burst clusters when the MiniCluster stops declaring burst slots', async (t) => {
    const { namespace, clients, queue } = await burstSetup(t, 'burstundecl');
    queue.waiting();
    await applyBurstLocal(clients, namespace, queue, {
      clusters: [{ name: 'burst-0', size: 2 }],
      policy: { pollSeconds: 2 },
    });
    await oneBurstRecorded(clients, namespace);
    // The job still waits, but no slot is declared any more: the burst goes, and is not made again.
    await kubectl(
      'patch',
      'mc',
      'burst-local',
      '-n',
      namespace,
      '--type=json',
      '-p',
      '[{"op":"remove","path":"/spec/flux/bursting"}]',
    );
    await waitFor(async () => (await burstMiniClusters(namespace)).length === 0, {
      what: 'the burst MiniCluster removed',
      timeoutMs: 60_000,
    });
    const status = await waitFor(
      async () => {
        const current = await readStatus(clients, namespace, 'burst-local');
        return current.bursts === undefined ? current : false;
      },
      { what: 'status.bursts gone' },
    );
    // NotDeclared for the pass that removed it; later passes of a MiniCluster without slots drop it.
    assert.notEqual(status.conditions?.find((condition) => condition.type === 'Bursting')?.status, 'True');
    // The event follows the status write that shows the removal.
    const removed = await waitFor(
      async () => {
        const events = (await clients.events.listNamespacedEvent({ namespace })).items;
        const found = events.filter((event) => event.reason === 'BurstRemoved');
        return found.length > 0 ? found : false;
      },
      { what: 'the BurstRemoved event' },
    );
    assert.match(
      removed[0]?.note ?? '',
      /^slot burst-0 on in-cluster: spec\.flux\.bursting\.clusters no longer declares burst slots$/,
    );
  });

  it('removes burst clusters when the local MiniCluster is deleted', async (t) => {
    const { namespace, clients, queue } = await burstSetup(t, 'burstdel');
    queue.waiting();
    await applyBurstLocal(clients, namespace, queue, { clusters: [{ name: 'burst-0', size: 2 }] });
    await oneBurstRecorded(clients, namespace);
    await kubectl('delete', 'mc', 'burst-local', '-n', namespace, '--wait=false');
    await waitFor(async () => (await burstMiniClusters(namespace)).length === 0, {
      what: 'the burst MiniCluster removed',
      timeoutMs: 60_000,
    });
    await waitFor(
      async () => (await readMiniClusterStatus(clients, namespace, 'burst-local')) === undefined,
      {
        what: 'the local MiniCluster deleted (finalizer released)',
        timeoutMs: 60_000,
      },
    );
  });
});

describe('bursting to a second cluster', () => {
  it('bursts through a kubeconfig BurstTarget with the same ranks and copied keys, and removes it when idle', async (t) => {
    const namespace = await withNamespace(t, 'burst2');
    const second = await up({
      name: 'second',
      progress: (line) => process.stderr.write(`[second] ${line}\n`),
    });
    const remote = apiClientsFor(loadKubeConfig(second.kubeconfig));
    await installMiniClusterCrd(remote, second.kubeconfig);
    await installBurstTargetCrd(remote);
    await remote.core.createNamespace({ body: { metadata: { name: namespace } } });
    t.after(() => remote.core.deleteNamespace({ name: namespace }).then(() => undefined));
    // The operator of the second cluster renders what lands there.
    const remoteOperator = new Operator({
      clients: apiClients(remote.transport.access),
      log: createLogger({ level: 'warn' }),
      namespaces: [namespace],
      concurrency: 2,
    });
    await remoteOperator.start();
    // Stopped even if the local namespace's deletion (an earlier hook) fails: see namespace-users.ts.
    t.after(usesNamespace(namespace, () => remoteOperator.stop()));

    const operator = await startOperator(namespace);
    t.after(() => operator.stop());
    const { clients } = operator;
    await createSecret(
      clients,
      namespace,
      'second-kubeconfig',
      inlineKubeconfig(second.kubeconfig, 'files').text,
    );
    await createTarget(clients, namespace, 'second', 'second-kubeconfig');
    const queue = scriptedQueue(t);
    queue.waiting();
    await applyBurstLocal(
      clients,
      namespace,
      queue,
      {
        clusters: [{ name: 'burst-0', size: 4 }],
        policy: { idleSeconds: 3, pollSeconds: 2, targets: [{ name: 'second' }] },
      },
      { containers: FOUR_CORES },
    );

    const remoteNames = () => burstMiniClusters(namespace, remote, 'flux-framework.org/burst-slot=burst-0');
    const [name] = await waitFor(async () => ((await remoteNames()).length === 1 ? remoteNames() : false), {
      what: 'the burst MiniCluster on the second cluster',
      timeoutMs: 60_000,
    });
    assert.match(name ?? '', /^burst-local-burst-0-[0-9a-f]{10}$/);

    // Keys copied as they are.
    for (const secret of ['burst-local-curve-cert', 'burst-local-munge-key']) {
      const local = await clients.core.readNamespacedSecret({ name: secret, namespace });
      const copy = await remote.core.readNamespacedSecret({ name: secret, namespace });
      assert.deepEqual(copy.data, local.data, `${secret} differs on the second cluster`);
    }
    // Same ranks, the lead under its exposed address.
    // The pass that made the burst writes the address to status after the remote apply, so wait for it.
    const leadBroker = await waitFor(
      async () => {
        const current = (await readStatus(clients, namespace, 'burst-local')).leadBroker;
        return current?.address ? current : false;
      },
      { what: 'status.leadBroker.address' },
    );
    const config = await waitFor(
      async () =>
        (await remote.core.readNamespacedConfigMap({ name: `${name}-flux-config`, namespace })).data?.[
          'broker.toml'
        ],
      { what: 'the burst MiniCluster rendered on the second cluster' },
    );
    assert.deepEqual(
      [...config.matchAll(/host = "([^"]+)"(?:\nconnect = "([^"]+)")?/g)].map((match) => [
        match[1],
        match[2],
      ]),
      [
        ['burst-local-0', `tcp://${leadBroker.address}:${leadBroker.port}`],
        ['burst-local-1', undefined],
        ['burst-0-[0-3]', undefined],
      ],
    );
    await waitFor(
      async () =>
        (await readStatus(clients, namespace, 'burst-local')).bursts?.[0]?.state === 'Ready' ? true : false,
      { what: 'the burst Ready on the second cluster', timeoutMs: 60_000 },
    );
    const remotePods = await remote.core.listNamespacedPod({
      namespace,
      labelSelector: `flux-framework.org/minicluster=${name}`,
    });
    assert.deepEqual(remotePods.items.map((pod) => pod.spec?.hostname).sort(), ['burst-0-0', 'burst-0-1']);

    queue.empty();
    await waitFor(async () => (await remoteNames()).length === 0, {
      what: 'the idle burst removed from the second cluster',
      timeoutMs: 60_000,
    });

    // Work again, then the local MiniCluster is deleted: its finalizer removes what it made there.
    const copiedKeys = async () =>
      (
        await remote.core.listNamespacedSecret({
          namespace,
          labelSelector: 'flux-framework.org/burst-origin-uid',
        })
      ).items.map((secret) => secret.metadata?.name);
    queue.waiting();
    await waitFor(async () => (await remoteNames()).length === 1, {
      what: 'a burst on the second cluster again',
      timeoutMs: 60_000,
    });
    await waitFor(
      async () => ((await readStatus(clients, namespace, 'burst-local')).bursts ?? []).length === 1,
      { what: 'the new burst recorded in status' },
    );
    assert.deepEqual((await copiedKeys()).sort(), ['burst-local-curve-cert', 'burst-local-munge-key']);
    await kubectl('delete', 'mc', 'burst-local', '-n', namespace, '--wait=false');
    await waitFor(async () => (await remoteNames()).length === 0, {
      what: 'the burst MiniCluster removed from the second cluster',
      timeoutMs: 60_000,
    });
    await waitFor(async () => (await copiedKeys()).length === 0, {
      what: 'the copied key Secrets removed from the second cluster',
    });
    await waitFor(
      async () => (await readMiniClusterStatus(clients, namespace, 'burst-local')) === undefined,
      { what: 'the local MiniCluster deleted (finalizer released)', timeoutMs: 60_000 },
    );
  });
});

describe('the orphan collector', () => {
  it('removes burst objects of this cluster whose MiniCluster is gone, and nothing else', async (t) => {
    const namespace = await withNamespace(t, 'orphans');
    const operator = await startOperator(namespace);
    t.after(() => operator.stop());
    const { clients } = operator;
    const clusterId = (await clients.core.readNamespace({ name: 'kube-system' })).metadata?.uid ?? '';
    assert.ok(clusterId);
    const burstObject = (name: string, originCluster: string) => ({
      ...miniClusterObject(namespace, name, { size: 1, interactive: true }),
      metadata: {
        name,
        namespace,
        labels: {
          'flux-framework.org/burst-origin-uid': 'uid-of-a-deleted-minicluster',
          'flux-framework.org/burst-origin-cluster': originCluster,
        },
      },
    });
    await applyMiniCluster(clients, burstObject('orphan', clusterId));
    await applyMiniCluster(clients, burstObject('foreign', 'another-cluster'));
    await clients.core.createNamespacedSecret({
      namespace,
      body: {
        metadata: {
          name: 'orphan-key',
          labels: {
            'flux-framework.org/burst-origin-uid': 'uid-of-a-deleted-minicluster',
            'flux-framework.org/burst-origin-cluster': clusterId,
          },
        },
        data: { [SECRET_DATA_KEYS.mungeKey]: 'a2V5' },
      },
    });
    await waitFor(async () => (await readMiniClusterStatus(clients, namespace, 'foreign')) !== undefined, {
      what: 'the objects seen',
    });
    const sweeps = await waitFor(
      async () => {
        const result = await operator.manager.collectOrphans();
        return result.length > 0 ? result : false;
      },
      { what: 'a sweep (the operator leads and its caches synced)' },
    );
    assert.deepEqual(sweeps, [
      { miniClusters: [`${namespace}/orphan`], secrets: [`${namespace}/orphan-key`] },
    ]);
    await waitFor(async () => (await readMiniClusterStatus(clients, namespace, 'orphan')) === undefined, {
      what: 'the orphan gone',
    });
    assert.notEqual(await readMiniClusterStatus(clients, namespace, 'foreign'), undefined);
  });
});
