// Real Flux, end to end: MiniClusters made by the operator through the API server, their pods on the
// real node running flux-core 0.88 built from source. What Flux does is read from the pods themselves
// (logs, `flux` run through `kubectl exec` as a user would). Every scenario here failed before its
// fix (see the closing notes of the real-Flux issue).
import assert from 'node:assert/strict';
import { before, describe, it, type TestContext } from 'node:test';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { stateDir, up } from '../../src/localcluster/index.ts';
import { realNodeDown, realNodeFootprint, savedHostSettings } from '../../src/localcluster/real-node/node.ts';
import type { SavedHost } from '../../src/localcluster/real-node/host.ts';
import type { KubeClients } from '../../src/controller/kube-clients.ts';
import { cluster, waitFor, withNamespace } from '../harness/cluster.ts';
import {
  applyMiniCluster,
  podsOf,
  readStatus,
  scaleMiniCluster,
  startOperator,
  waitForCondition,
} from '../harness/operator.ts';
import {
  AWKWARD_FLUX_IMAGE,
  ON_REAL_NODE,
  explainOnFailure,
  fluxInLead,
  podAt,
  podLog,
  realMiniCluster,
} from '../harness/real-node.ts';

/** A namespace of its own, the operator watching it, and the cluster's story printed if the test fails. */
async function scenario(t: TestContext, prefix: string) {
  // Registered first so that it runs first, before the namespace is deleted.
  const story = explainOnFailure(t);
  const namespace = await withNamespace(t, prefix);
  const operator = await startOperator(namespace);
  t.after(() => operator.stop());
  story.watch(operator.clients, namespace);
  return { namespace, clients: operator.clients };
}

/** `flux resource list` rows as state -> nodes. */
async function resourceStates(namespace: string, pod: string): Promise<Record<string, number>> {
  const { stdout } = await fluxInLead(namespace, pod, [
    'resource',
    'list',
    '--no-header',
    '-o',
    '{state}:{nnodes}',
  ]);
  const states: Record<string, number> = {};
  for (const line of stdout.trim().split('\n')) {
    const [state, nodes] = line.trim().split(':');
    if (state) states[state] = (states[state] ?? 0) + Number(nodes);
  }
  return states;
}

/** Waits until `up` brokers are up (free or allocated) in the instance of the lead pod. */
async function waitForNodesUp(namespace: string, pod: string, up: number, timeoutMs = 120_000) {
  return waitFor(
    async () => {
      const states = await resourceStates(namespace, pod);
      return (states.free ?? 0) + (states.allocated ?? 0) === up ? states : false;
    },
    { what: `${up} Flux nodes up in ${namespace}/${pod}`, timeoutMs, intervalMs: 1_000 },
  );
}

async function hostnamesFromJob(namespace: string, pod: string, nodes: number): Promise<string[]> {
  const { stdout } = await fluxInLead(namespace, pod, [
    'run',
    '-N',
    String(nodes),
    '-n',
    String(nodes),
    'hostname',
  ]);
  return stdout.trim().split('\n').sort();
}

async function leadLog(clients: KubeClients, namespace: string, name: string): Promise<string> {
  const pods = await podsOf(clients, namespace, name);
  const lead = pods.find((pod) => pod.metadata?.labels?.['batch.kubernetes.io/job-completion-index'] === '0');
  assert.ok(lead?.metadata?.name, `the lead pod of ${name} exists`);
  return podLog(clients, namespace, lead.metadata.name);
}

let saved: SavedHost | undefined;
before(async () => {
  // The global setup has brought it up; a run of this file alone brings it up here.
  await up({ realNode: true });
  saved = savedHostSettings(stateDir());
  assert.ok(saved, 'the real node saved the host settings from before it started');
});

describe('real Flux on the real node', { concurrency: 3 }, () => {
  it('hello world: size 4 with a command and no tasks succeeds, and Flux ran it', async (t) => {
    const { namespace, clients } = await scenario(t, 'hello');
    await applyMiniCluster(
      clients,
      realMiniCluster(namespace, 'hello', { size: 4 }, { command: 'flux getattr size' }),
    );
    const status = await waitForCondition(clients, namespace, 'hello', 'Succeeded', 'True', 180_000);
    assert.equal(status.summary, 'Succeeded');
    const log = await leadLog(clients, namespace, 'hello');
    // `flux getattr size` answers only inside a Flux instance: the job ran there, on 4 brokers.
    assert.match(log, /^4$/m, log);
  });

  it('hello world with tasks: 4 prints the hostnames of all four brokers', async (t) => {
    const { namespace, clients } = await scenario(t, 'tasks');
    await applyMiniCluster(
      clients,
      realMiniCluster(namespace, 'tasks', { size: 4, tasks: 4 }, { command: 'hostname' }),
    );
    await waitForCondition(clients, namespace, 'tasks', 'Succeeded', 'True', 180_000);
    const log = await leadLog(clients, namespace, 'tasks');
    const hosts = log.split('\n').filter((line) => /^tasks-\d$/.test(line));
    assert.deepEqual(hosts.sort(), ['tasks-0', 'tasks-1', 'tasks-2', 'tasks-3'], log);
  });

  it('a failing command fails the MiniCluster with its exit status', async (t) => {
    const { namespace, clients } = await scenario(t, 'fails');
    await applyMiniCluster(
      clients,
      realMiniCluster(namespace, 'fails', { size: 2 }, { command: 'bash -c "exit 3"' }),
    );
    const status = await waitForCondition(clients, namespace, 'fails', 'Failed', 'True', 180_000);
    const failed = status.conditions?.find((condition) => condition.type === 'Failed');
    assert.equal(failed?.reason, 'CommandFailed');
    assert.match(failed?.message ?? '', /exited with status 3 /);
  });

  it('runs on an awkward image: uid 1000 taken, munge installed the Debian way', async (t) => {
    const { namespace, clients } = await scenario(t, 'awkward');
    await applyMiniCluster(
      clients,
      realMiniCluster(
        namespace,
        'awkward',
        { size: 4, tasks: 4 },
        { image: AWKWARD_FLUX_IMAGE, command: 'hostname' },
      ),
    );
    await waitForCondition(clients, namespace, 'awkward', 'Succeeded', 'True', 180_000);
    const log = await leadLog(clients, namespace, 'awkward');
    assert.deepEqual(log.split('\n').filter((line) => /^awkward-\d$/.test(line)).length, 4, log);
    assert.match(log, /munged/, 'munge started');
  });

  it('interactive: stays up; flux resource list and a 4-node flux run work through kubectl exec', async (t) => {
    const { namespace, clients } = await scenario(t, 'interactive');
    await applyMiniCluster(clients, realMiniCluster(namespace, 'inter', { size: 4, interactive: true }));
    await waitForCondition(clients, namespace, 'inter', 'Ready', 'True', 180_000);
    const lead = (await podAt(clients, namespace, 'inter')).metadata?.name ?? '';
    await waitForNodesUp(namespace, lead, 4);
    assert.deepEqual(await hostnamesFromJob(namespace, lead, 4), [
      'inter-0',
      'inter-1',
      'inter-2',
      'inter-3',
    ]);
    assert.equal((await readStatus(clients, namespace, 'inter')).summary, 'Ready');
  });

  it('interactive with a command: the command runs, then the instance stays up', async (t) => {
    const { namespace, clients } = await scenario(t, 'intercmd');
    await applyMiniCluster(
      clients,
      realMiniCluster(
        namespace,
        'intercmd',
        { size: 2, interactive: true },
        { command: 'echo command-ran-here' },
      ),
    );
    const lead = (await podAt(clients, namespace, 'intercmd')).metadata?.name ?? '';
    await waitFor(async () => /^command-ran-here$/m.test(await podLog(clients, namespace, lead)), {
      what: "the command's output in the lead's log",
      timeoutMs: 120_000,
    });
    await waitForNodesUp(namespace, lead, 2);
    assert.deepEqual(await hostnamesFromJob(namespace, lead, 2), ['intercmd-0', 'intercmd-1']);
    const status = await readStatus(clients, namespace, 'intercmd');
    assert.equal(status.summary, 'Ready');
  });

  it('elastic: scaling 2 -> 4 brings 4 nodes up for a 4-node job; scaling down leaves it healthy', async (t) => {
    const { namespace, clients } = await scenario(t, 'elastic');
    await applyMiniCluster(
      clients,
      realMiniCluster(namespace, 'elastic', { size: 2, maxSize: 4, interactive: true }),
    );
    await waitForCondition(clients, namespace, 'elastic', 'Ready', 'True', 180_000);
    const lead = (await podAt(clients, namespace, 'elastic')).metadata?.name ?? '';
    const before = await waitForNodesUp(namespace, lead, 2);
    assert.deepEqual([before.free, before.down], [2, 2]);

    await scaleMiniCluster(clients, namespace, 'elastic', 4);
    await waitForNodesUp(namespace, lead, 4);
    assert.deepEqual(await hostnamesFromJob(namespace, lead, 4), [
      'elastic-0',
      'elastic-1',
      'elastic-2',
      'elastic-3',
    ]);

    await scaleMiniCluster(clients, namespace, 'elastic', 2);
    await waitForCondition(clients, namespace, 'elastic', 'Scaling', 'False', 120_000);
    await waitForNodesUp(namespace, lead, 2);
    assert.deepEqual(await hostnamesFromJob(namespace, lead, 2), ['elastic-0', 'elastic-1']);
    assert.equal((await readStatus(clients, namespace, 'elastic')).summary, 'Ready');
  });

  it('connected: the two MiniClusters of examples/connected.yaml form one instance', async (t) => {
    const { namespace, clients } = await scenario(t, 'connected');
    const docs = parseAllDocuments(readFileSync('examples/connected.yaml', 'utf8')).map(
      (doc) => doc.toJS() as { metadata: Record<string, unknown>; spec: Record<string, unknown> },
    );
    for (const doc of docs) {
      const containers = doc.spec.containers as Record<string, unknown>[];
      doc.metadata.namespace = namespace;
      doc.spec.containers = containers.map((c) => ({ ...c, image: 'localhost/flux:0.88.0' }));
      doc.spec.pod = ON_REAL_NODE;
      await applyMiniCluster(clients, doc as unknown as Record<string, unknown>);
    }
    const lead = (await podAt(clients, namespace, 'first')).metadata?.name ?? '';
    await waitForNodesUp(namespace, lead, 4, 180_000);
    assert.deepEqual(await hostnamesFromJob(namespace, lead, 4), [
      'first-0',
      'first-1',
      'second-0',
      'second-1',
    ]);
  });
});

// Last, once every scenario is done: removing the real node (what `cluster:down` does first) leaves
// nothing of it on the machine.
it('removing the real node leaves no process, mount, link, rule, cgroup, folder or sysctl behind', async () => {
  assert.ok(saved);
  const problems = await realNodeDown({ stateDir: stateDir(), kubeconfig: (await cluster()).kubeconfig });
  assert.deepEqual(problems, []);
  assert.deepEqual(realNodeFootprint(stateDir(), saved), {
    processes: [],
    mounts: [],
    networkNamespaces: [],
    links: [],
    cgroups: [],
    folders: [],
    nftTables: [],
    iptablesRules: [],
    sysctls: [],
  });
});
