/**
 * `npm run bench -- --outage [--rounds N] [--cluster NAME]`: how soon the operator has everything
 * reconciled after an API server outage (issue 15, target 5 s), on a local cluster of its own (simulated
 * nodes: no real node), made at the beginning and removed at the end (it refuses one that exists). The outage and the work are
 * the outage test's (test/harness/outage.ts). Each round (default 3):
 *   1. two sets of 5 MiniClusters (size 3 of at most 5) made and Ready;
 *   2. the baseline: on the healthy cluster, the work on the first set (2 MiniClusters created, one
 *      scaled to 5, one deleted, one's Job deleted), timed from its start until every change is in the
 *      Jobs; then its MiniClusters Ready;
 *   3. the kube-apiserver killed for 40 s (the test's outage), started again by `cluster:up`, timed to
 *      its /readyz; the same work on the second set, timed from that readiness;
 *   4. the round's MiniClusters deleted.
 * Prints one JSON line (outage-result.ts): per round and as medians `reconciled_after_ready_ms`,
 * `baseline_ms`, `api_server_ready_ms`, `ratio` (outage over baseline), `target_ms` 5000 and
 * `within_target`. Nothing asserts the target.
 *
 * The operator runs from source (as the test runs it), watching the bench's namespace only.
 */
import { availableParallelism } from 'node:os';
import { deleteCustomObject } from '../../src/kube/custom-objects.ts';
import { status } from '../../workbench/src/localcluster/index.ts';
import { waitFor } from '../harness/cluster.ts';
import { waitForCondition } from '../harness/operator.ts';
import {
  OUTAGE_MS,
  apiServerAway,
  prepareMiniClusters,
  restartApiServer,
  startOutageCluster,
  stopOutageCluster,
  survivors,
  timeWork,
  workNames,
  type OutageCluster,
  type WorkNames,
} from '../harness/outage.ts';
import { OUTAGE_USAGE, parseOutageOptions } from './outage-options.ts';
import { outageLine, type OutageRound } from './outage-result.ts';

const NAMESPACE = 'bench-outage';
/**
 * MiniClusters Ready, including after an outage: the simulated cluster's own recovery has stalled for
 * over a minute under load (see the outage test).
 */
const READY_TIMEOUT_MS = 300_000;
const GONE_TIMEOUT_MS = 120_000;

const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`);

async function waitReady(cluster: OutageCluster, names: readonly string[]): Promise<void> {
  const by = Date.now() + READY_TIMEOUT_MS;
  for (const name of names) {
    await waitForCondition(cluster.api, NAMESPACE, name, 'Ready', 'True', Math.max(1_000, by - Date.now()));
  }
}

/** Deletes the round's MiniClusters and waits until their Jobs are gone. */
async function clearRound(cluster: OutageCluster, sets: readonly WorkNames[]): Promise<void> {
  const names = sets.flatMap(survivors);
  await Promise.all(
    names.map((name) =>
      deleteCustomObject(cluster.api.custom, 'miniclusters', NAMESPACE, name).catch(() => undefined),
    ),
  );
  await waitFor(
    async () => {
      const jobs = await cluster.api.batch.listNamespacedJob({ namespace: NAMESPACE });
      return jobs.items.length === 0;
    },
    { what: "the round's Jobs to be gone", timeoutMs: GONE_TIMEOUT_MS },
  );
}

async function measureRound(cluster: OutageCluster, index: number): Promise<OutageRound> {
  const healthy = workNames(`r${index}-base-`);
  const outage = workNames(`r${index}-outage-`);
  progress(`round ${index}: making 2 x 5 MiniClusters`);
  await prepareMiniClusters(cluster.api, NAMESPACE, healthy, READY_TIMEOUT_MS);
  await prepareMiniClusters(cluster.api, NAMESPACE, outage, READY_TIMEOUT_MS);

  const baselineMs = await timeWork(cluster.api, NAMESPACE, healthy, Date.now());
  progress(`round ${index}: baseline ${baselineMs} ms on the healthy cluster`);
  await waitReady(cluster, survivors(healthy));

  progress(`round ${index}: killing kube-apiserver for ${OUTAGE_MS / 1000} s`);
  await apiServerAway(cluster, OUTAGE_MS);
  const { repairing, readyAt, apiServerReadyMs } = await restartApiServer(cluster, progress);
  const reconciledAfterReadyMs = await timeWork(cluster.api, NAMESPACE, outage, readyAt);
  progress(
    `round ${index}: API server ready ${apiServerReadyMs} ms after cluster:up; reconciled ${reconciledAfterReadyMs} ms after that`,
  );
  await repairing;
  await waitReady(cluster, survivors(outage));
  await clearRound(cluster, [healthy, outage]);
  return { baselineMs, reconciledAfterReadyMs, apiServerReadyMs };
}

export async function outageBench(argv: readonly string[]): Promise<void> {
  let options;
  try {
    options = parseOutageOptions(argv);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\nusage: ${OUTAGE_USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  // The bench removes its cluster at the end: one that exists may be another run's.
  const before = status({ name: options.cluster });
  if (before.exists || before.processes.length > 0) {
    process.stderr.write(
      `cluster ${options.cluster} exists (another run may be using it, and the bench removes its cluster at the end): ` +
        `name another with --cluster, or remove it with \`npm run cluster:down -- --name ${options.cluster}\`\n`,
    );
    process.exitCode = 2;
    return;
  }
  let cluster: OutageCluster | undefined;
  const stop = () =>
    void stopOutageCluster(cluster, options.cluster, progress).finally(() => process.exit(130));
  process.once('SIGINT', stop);
  try {
    cluster = await startOutageCluster(options.cluster, NAMESPACE, progress);
    const rounds: OutageRound[] = [];
    for (let index = 1; index <= options.rounds; index++) rounds.push(await measureRound(cluster, index));
    const errors = cluster.operator.lines.filter((line) => line.includes('"level":"error"'));
    if (errors.length > 0)
      progress(`the operator logged ${errors.length} error line(s):\n${errors.join('\n')}`);
    process.stdout.write(
      outageLine(rounds, {
        rounds: options.rounds,
        outageMs: OUTAGE_MS,
        miniClusters: workNames().existing.length,
        machineCpus: availableParallelism(),
      }),
    );
  } finally {
    process.off('SIGINT', stop);
    await stopOutageCluster(cluster, options.cluster, progress);
  }
}
