// An API server outage under a running operator, on a cluster of its own (the other tests keep theirs):
// the API server is killed for longer than the watches' backoff cap and the components' leader leases,
// started again the way a user would (`cluster:up` repairs the cluster), and then MiniClusters are
// created, scaled and deleted. Everything is reconciled soon after the server's readiness (bounded at
// 15 s here; the 5 s target is `npm run bench -- --outage`'s), with no error-level log line, nothing
// left behind, the keys unchanged, and every control-plane component running (none of them exited).
// The outage and the work are test/harness/outage.ts, which the bench shares.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { ApiClients } from '../../src/kube/api-clients.ts';
import { status } from '../../workbench/src/localcluster/index.ts';
import { kwokClusterDir } from '../../workbench/src/localcluster/paths.ts';
import { waitFor } from '../harness/cluster.ts';
import { readStatus, waitForCondition } from '../harness/operator.ts';
import {
  OUTAGE_MS,
  OWNED,
  apiServerAway,
  pidOf,
  prepareMiniClusters,
  restartApiServer,
  startOutageCluster,
  stopOutageCluster,
  survivors,
  timeWork,
  workNames,
  type OutageCluster,
} from '../harness/outage.ts';

const CLUSTER = 'outage';
const NAMESPACE = 'outage';
/**
 * The operator's part, timed from readiness. Its target is 5 s (issue 15), which `npm run bench --
 * --outage` reports (docs/performance.md) and this test only prints; under a full CI run on 2 cores it measured 5.0 and 5.4 s, the API server
 * itself slow after its restart. What this bound guards is the old failure: a watch left to its 30 s
 * backoff timer.
 */
const RECONCILED_WITHIN_MS = 15_000;
/**
 * The simulated cluster's own recovery (new pods scheduled and started by the restarted scheduler and
 * kwok) is mostly done within a second of the operator's part, but under a full test run it has
 * stalled for over a minute (new pods Pending); kwok takes over nodes whose lease was not released
 * after 200 s. The operator's part is what RECONCILED_WITHIN_MS bounds.
 */
const CLUSTER_RECOVERED_WITHIN_MS = 300_000;
const started = Date.now();
const progress = (line: string) =>
  process.stderr.write(`[outage +${((Date.now() - started) / 1000).toFixed(1)} s] ${line}\n`);

/** `node hack/cluster.ts status --name outage`, as `npm run cluster:status` runs it. */
function statusCommand(): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [fileURLToPath(new URL('../../hack/cluster.ts', import.meta.url)), 'status', '--name', CLUSTER],
      (error, _stdout, stderr) => {
        if (error && typeof error.code !== 'number') reject(error);
        else resolve({ code: error ? (error.code as number) : 0, stderr });
      },
    );
  });
}

async function secretsData(api: ApiClients): Promise<Map<string, string>> {
  const list = await api.core.listNamespacedSecret({ namespace: NAMESPACE, labelSelector: OWNED });
  return new Map(list.items.map((s) => [s.metadata?.name ?? '', JSON.stringify(s.data)]));
}

/** The last lines of a log file, or why there are none. */
function tailOf(file: string, lines: number): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch (error) {
    return `(${String(error)})`;
  }
}

describe('an API server outage', () => {
  let outage: OutageCluster | undefined;
  let api: ApiClients;

  before(async () => {
    outage = await startOutageCluster(CLUSTER, NAMESPACE, progress);
    api = outage.api;
  });

  after(async () => {
    await stopOutageCluster(outage, CLUSTER, progress);
  });

  it('leaves the operator and the local cluster in step soon after its readiness (bounded at 15 s, target 5 s in the bench; no watch left to its backoff timer)', async () => {
    const cluster = outage as OutageCluster;
    const operator = cluster.operator;
    const names = workNames();
    await prepareMiniClusters(api, NAMESPACE, names, 60_000);
    progress('every MiniCluster Ready');
    const keysBefore = await secretsData(api);
    assert.equal(keysBefore.size, names.existing.length * 2, 'a curve cert and a munge key per MiniCluster');
    const controllerManager = pidOf(CLUSTER, 'kube-controller-manager');
    const scheduler = pidOf(CLUSTER, 'kube-scheduler');

    // A healthy start, the CRD just created (its storage answers 429 for a moment): not a warning.
    const startLines = operator.lines.filter((line) => /"level":"(warn|error|fatal)"/.test(line));
    assert.deepEqual(startLines, [], 'a quiet start');

    progress(`killing kube-apiserver for ${OUTAGE_MS / 1000} s`);
    await apiServerAway(cluster, OUTAGE_MS, async () => {
      // What a user asking meanwhile is told: a non-zero exit and the component that is down.
      const asked = await statusCommand();
      assert.equal(asked.code, 3);
      assert.match(asked.stderr, /cluster outage: not running: kube-apiserver \(`npm run cluster:up` starts/);
    });
    // Outliving their lease, they would have exited under leader election (nothing restarted them).
    assert.equal(
      pidOf(CLUSTER, 'kube-controller-manager'),
      controllerManager,
      'kube-controller-manager kept running',
    );
    assert.equal(pidOf(CLUSTER, 'kube-scheduler'), scheduler, 'kube-scheduler kept running');
    const { repairing, readyAt, apiServerReadyMs } = await restartApiServer(cluster, progress);
    progress(
      `the API server is ready (${apiServerReadyMs} ms after cluster:up): creating, scaling and deleting`,
    );

    // The operator's part, timed from readiness: new Jobs, the scaled Job, the deleted Job made again.
    const reconciledMs = await timeWork(api, NAMESPACE, names, readyAt);
    progress(`reconciled ${reconciledMs} ms after the API server was ready`);
    assert.ok(
      reconciledMs <= RECONCILED_WITHIN_MS,
      `reconciled ${reconciledMs} ms after readiness (want <= ${RECONCILED_WITHIN_MS})`,
    );
    const repaired = await repairing;
    assert.deepEqual(
      repaired.repaired,
      ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok-controller'],
      'cluster:up started the API server again, and its clients afresh',
    );

    // The cluster's part: the deleted MiniCluster's children collected (kube-controller-manager's
    // garbage collector, which resyncs its graph after the restart), every MiniCluster Ready.
    const recoveredBy = Date.now() + CLUSTER_RECOVERED_WITHIN_MS;
    try {
      await waitFor(
        async () => {
          const jobs = await api.batch.listNamespacedJob({ namespace: NAMESPACE, labelSelector: OWNED });
          return !jobs.items.some((j) => j.metadata?.name === names.doomed);
        },
        { what: "the deleted MiniCluster's Job to be collected", timeoutMs: CLUSTER_RECOVERED_WITHIN_MS },
      );
    } catch (error) {
      const gcLog = tailOf(join(kwokClusterDir(CLUSTER), 'logs', 'kube-controller-manager.log'), 40);
      throw new Error(`${String(error)}\nkube-controller-manager's last lines:\n${gcLog}`, { cause: error });
    }
    progress(`the deleted MiniCluster's Job collected, ${Date.now() - readyAt} ms after readiness`);
    for (const name of survivors(names)) {
      try {
        await waitForCondition(
          api,
          NAMESPACE,
          name,
          'Ready',
          'True',
          Math.max(1_000, recoveredBy - Date.now()),
        );
      } catch (error) {
        // What the operator and the cluster were doing, for the failure's reader.
        const pods = await api.core.listNamespacedPod({ namespace: NAMESPACE });
        const state = pods.items
          .map((pod) => {
            const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
            const where =
              pod.spec?.nodeName ?? `unscheduled: ${scheduled?.reason ?? ''} ${scheduled?.message ?? ''}`;
            const ready = pod.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? '?';
            const owner = pod.metadata?.ownerReferences?.[0]?.uid?.slice(0, 8) ?? 'none';
            const going = pod.metadata?.deletionTimestamp ? ' deleting' : '';
            return `${pod.metadata?.name} ${pod.status?.phase} ready=${ready} job=${owner}${going} (${where})`;
          })
          .join(', ');
        // The MiniCluster's own account (its conditions) and the Job its pods should belong to.
        const conditions = JSON.stringify(
          (await readStatus(api, NAMESPACE, name).catch(() => undefined))?.conditions ?? [],
        );
        const job = await api.batch.readNamespacedJob({ name, namespace: NAMESPACE }).catch(() => undefined);
        const jobState = `${job?.metadata?.uid?.slice(0, 8) ?? 'none'} ${JSON.stringify(job?.status ?? {})}`;
        const said = operator.lines.filter((line) => !/"level":"(debug|trace)"/.test(line)).slice(-40);
        // Its own lines, debug ones too: which passes ran, and what each saw.
        const own = operator.lines.filter((line) => line.includes(`"name":"${name}"`)).slice(-30);
        // Pods bound to a node but Pending, and deleted pods still Running, mean kwok is not acting.
        const components = status({ name: CLUSTER })
          .components.map((c) => `${c.name} ${c.alive ? 'alive' : 'dead'}`)
          .join(', ');
        const kwokLog = tailOf(join(kwokClusterDir(CLUSTER), 'logs', 'kwok-controller.log'), 30);
        throw new Error(
          `${String(error)}\ncomponents: ${components}\n${name}: conditions ${conditions}; Job ${jobState}\npods: ${state}\noperator's last lines:\n${said.join('\n')}\n${name}'s lines:\n${own.join('\n')}\nkwok-controller's last lines:\n${kwokLog}`,
          {
            cause: error,
          },
        );
      }
    }
    progress(
      `every MiniCluster Ready again, ${Date.now() - (recoveredBy - CLUSTER_RECOVERED_WITHIN_MS)} ms after the operator's part`,
    );
    const keysAfter = await secretsData(api);
    for (const [name, data] of keysBefore) {
      if (name.startsWith(`${names.doomed}-`)) {
        await waitFor(async () => !(await secretsData(api)).has(name), { what: `${name} collected` });
        continue;
      }
      assert.equal(keysAfter.get(name), data, `${name} unchanged`);
    }

    const st = status({ name: CLUSTER });
    assert.ok(st.running, `every component running: ${JSON.stringify(st.components)}`);

    const errors = operator.lines.filter((line) => line.includes('"level":"error"'));
    assert.deepEqual(errors, [], 'no error-level log line');
    assert.ok(
      operator.logged('the API server is ready again; restarting watches and resyncing'),
      'the operator saw the outage end',
    );
  });
});
