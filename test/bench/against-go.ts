/**
 * `npm run bench -- --against-go`: our operator and the upstream Go Flux Operator, one after the other,
 * on one named local cluster of their own (kwok nodes only), with the same MiniClusters (count x size,
 * ours as v1alpha1, the Go operator's as the equivalent v1alpha2). Each runs out of cluster against a
 * kubeconfig, watching all namespaces (the Go operator's only mode), in a namespace of its own. Prints
 * one JSON line (against-go-result.ts); progress goes to stderr. Flags: against-go-options.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiClientsFor, loadKubeConfig } from '../../src/kube/clients.ts';
import { down, up } from '../../workbench/src/localcluster/index.ts';
import {
  AGAINST_GO_USAGE,
  parseAgainstGoOptions,
  type AgainstGoOptions,
  type OperatorName,
} from './against-go-options.ts';
import { againstGoLine, type PhaseMeasure } from './against-go-result.ts';
import { benchMiniCluster, toV1alpha2 } from './bench-minicluster.ts';
import { createNamespace, deleteNamespace, ensureCapacity, waitGone } from './cluster-objects.ts';
import { useGoCrd, useOurCrd } from './crd-swap.ts';
import { ensureGoOperator } from './go-operator.ts';
import { goCommand, oursCommand } from './operator-commands.ts';
import { freePort, runOperatorPhase } from './operator-phase.ts';
import { round } from './process-metrics.ts';

const MAIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const LABELS: Record<OperatorName, string> = { ours: 'our operator', go: 'the Go operator' };

const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`);

export async function againstGoBench(argv: readonly string[]): Promise<void> {
  let options: AgainstGoOptions;
  try {
    options = parseAgainstGoOptions(argv);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\nusage: ${AGAINST_GO_USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  const go = await ensureGoOperator({ progress });
  const cluster = await up({ name: options.cluster, progress });
  const { kubeconfig } = cluster;
  const clients = apiClientsFor(loadKubeConfig(kubeconfig));
  const nodes = await ensureCapacity(clients, 2 * options.count * options.size);
  const logs = mkdtempSync(path.join(tmpdir(), 'flux-bench-against-go-'));
  const suffix = Date.now().toString(36);
  const namespaces: string[] = [];
  const measures: Partial<Record<OperatorName, PhaseMeasure>> = {};
  let succeeded = false;
  try {
    for (const name of options.order) {
      const namespace = `bench-${name}-${suffix}`;
      namespaces.push(namespace);
      if (name === 'ours') await useOurCrd(kubeconfig, clients, progress);
      else await useGoCrd(clients, go.crd, progress);
      await createNamespace(clients, namespace);
      const metricsPort = await freePort();
      const command =
        name === 'ours'
          ? oursCommand({ main: MAIN, kubeconfig, metricsAddr: `127.0.0.1:${metricsPort}` })
          : goCommand({ binary: go.binary, kubeconfig, metricsPort });
      const miniClusters = Array.from({ length: options.count }, (_, index) => {
        const ours = benchMiniCluster(namespace, index, options.size);
        return name === 'ours' ? ours : toV1alpha2(ours, { goAffinity: options.goAffinity });
      });
      progress(`${LABELS[name]}: ${options.count} MiniClusters x ${options.size} in ${namespace}`);
      const measure = await runOperatorPhase({
        clients,
        namespace,
        command,
        metricsPort,
        log: path.join(logs, `${name}.log`),
        miniClusters,
        pods: options.count * options.size,
        steadySeconds: options.steadySeconds,
      });
      measures[name] = measure;
      progress(
        `${LABELS[name]}: all pods Running in ${round(measure.secondsToRunning)} s, ` +
          `${round(measure.cpuSeconds)} s of CPU, ${measure.requests} API requests, ` +
          `${measure.steadyRequests} in the ${options.steadySeconds} s after, peak RSS ${round(measure.peakRssMiB)} MiB`,
      );
      // The next phase gets the cluster to itself: this one's pods are gone first.
      await deleteNamespace(clients, namespace);
      await waitGone(clients, namespace);
    }
    process.stdout.write(
      againstGoLine(options, measures as Record<OperatorName, PhaseMeasure>, {
        goCommit: go.commit,
        machineCpus: availableParallelism(),
      }),
    );
    succeeded = true;
  } finally {
    for (const namespace of namespaces) await deleteNamespace(clients, namespace);
    if (cluster.started && !options.keepCluster) {
      await down({ name: options.cluster, progress });
    } else {
      for (const name of nodes) await clients.core.deleteNode({ name }).catch(() => undefined);
    }
    if (succeeded) rmSync(logs, { recursive: true, force: true });
    else progress(`the operators' logs are in ${logs}`);
  }
}
