// The core scenarios of real Flux under the operator: the simplest MiniClusters, a failing command,
// an awkward image, interactive use through `kubectl exec`, scaling, and connected MiniClusters.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { API_VERSION } from '../../../src/api/index.ts';
import { waitFor } from '../../harness/cluster.ts';
import { assertOneStepCleanup } from '../../harness/flux-log.ts';
import { applyMiniCluster, readStatus, scaleMiniCluster, waitForCondition } from '../../harness/operator.ts';
import {
  AWKWARD_FLUX_IMAGE,
  FLUX_IMAGE,
  ON_REAL_NODE,
  PLAIN_IMAGE,
  fluxInLead,
  hostnamesFromJob,
  leadLog,
  podAt,
  podLog,
  realMiniCluster,
  scenario,
  waitForNodesUp,
} from '../../harness/real-node.ts';

/** `flux overlay status` in the lead: each broker's host name -> its status (and why, when given). */
async function overlayStatus(namespace: string, lead: string): Promise<Record<string, string>> {
  const { stdout } = await fluxInLead(namespace, lead, ['overlay', 'status', '--no-pretty', '--color=never']);
  const statuses: Record<string, string> = {};
  for (const line of stdout.trim().split('\n')) {
    // "<rank> <host>: <status>[ <reason>]"
    const match = /^\d+ (\S+): (.+)$/.exec(line.trim());
    if (match?.[1] && match[2]) statuses[match[1]] = match[2].trim();
  }
  return statuses;
}

export function coreScenarios(): void {
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

  it('a job the command leaves running is cancelled by the one-step cleanup, and the MiniCluster ends', async (t) => {
    const { namespace, clients } = await scenario(t, 'leftover');
    // The command submits an hour-long job and ends: the instance's cleanup must cancel it, or the
    // brokers would wait for it (or kill it unannounced) and the MiniCluster would not succeed now.
    // v1alpha2, Flux from the view in an image without Flux.
    const object = realMiniCluster(
      namespace,
      'leftover',
      { size: 2 },
      { image: PLAIN_IMAGE, command: 'flux submit --job-name=leftover sleep 3600' },
    );
    await applyMiniCluster(clients, { ...object, apiVersion: API_VERSION });
    await waitForCondition(clients, namespace, 'leftover', 'Succeeded', 'True', 180_000);
    const log = await leadLog(clients, namespace, 'leftover');
    assertOneStepCleanup(log);
    assert.match(log, /flux-operator cleanup: cancelled 1 running job\(s\)/, log);
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
    // The brokers of the removed pods got the pod's TERM and left the instance (a goodbye to their
    // parent): Flux shows them offline by administrative shutdown, not lost as a killed broker is.
    // The drain before the scale-in already took them out of `up`, so they may still be leaving here:
    // their overlay state is waited for (a few seconds under load), then asserted.
    const overlay = await waitFor(
      async () => {
        const now = await overlayStatus(namespace, lead);
        return now['elastic-2']?.startsWith('offline') && now['elastic-3']?.startsWith('offline')
          ? now
          : undefined;
      },
      { what: 'the removed brokers offline in the overlay', timeoutMs: 60_000, intervalMs: 1_000 },
    );
    assert.equal(overlay['elastic-2'], 'offline administrative shutdown', JSON.stringify(overlay));
    assert.equal(overlay['elastic-3'], 'offline administrative shutdown', JSON.stringify(overlay));
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
      doc.spec.containers = containers.map((c) => ({ ...c, image: FLUX_IMAGE }));
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
}
