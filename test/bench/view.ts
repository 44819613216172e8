/**
 * `npm run bench -- --view [--rounds N] [--timeout-seconds N]`: the start-up cost of the Flux view
 * (issue 22). The Go operator's hello-world (examples/tests/hello-world in its archive: size 4, `echo
 * hello world`, quiet) runs on the local cluster's real node through our operator, the three kinds
 * taking turns in one run (`--rounds` of each, default 3; order in view-options.ts):
 *   view:   image localhost/plain:bookworm (no Flux), Flux from the view the init container copies
 *           into the shared volume on the node's disk (the default);
 *   memory: the same with `flux.container.medium: Memory` (the view in a memory volume of its own);
 *   baked:  image localhost/flux:0.88.0 with `flux.container.disable: true` (Flux in the image).
 * For each: seconds from the apply to the MiniCluster Succeeded, to all its pods' containers started,
 * and each init container's duration from pod status (the view's copy). Prints one JSON line
 * (view-result.ts): per-kind medians, every sample, `ratio` = median(view) / median(baked) of the
 * seconds to Succeeded, `memory_ratio` the same for memory, `target_ratio` 1.3, `within_target` and
 * `memory_within_target`. Nothing asserts a ratio.
 *
 * The operator runs compiled, out of cluster, in a process of its own (view-operator-process.ts) with
 * its Flux view image set to this tree's view, loaded into the real node under a tag of the run's own
 * (view-image.ts: the node is shared, and another checkout may load its own view under the usual tag).
 * Everything runs in one namespace of its own, which is deleted at the end, failure and Ctrl-C
 * included, as is each MiniCluster before the next one starts; the run's tag goes too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism, constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { ApiClients } from '../../src/kube/api-clients.ts';
import { deleteNamespace, waitFor } from '../harness/cluster.ts';
import { goTestMiniCluster } from '../harness/go-v1alpha2-cases.ts';
import { FLUX_IMAGE } from '../harness/real-node.ts';
import {
  VIEW_USAGE,
  parseViewOptions,
  viewRunOrder,
  type ViewKind,
  type ViewOptions,
} from './view-options.ts';
import { startRealNodeBench } from './real-node-bench.ts';
import { viewLine, type ViewSample } from './view-result.ts';
import { deleteMiniCluster, measureMiniCluster, within, type SampleTarget } from './view-sample.ts';

const CASE = 'hello-world';
/** The case's MiniCluster name and size (its manifest's). */
const NAME = 'flux-sample';
const SIZE = 4;
const IMAGES: Record<ViewKind, string> = {
  view: 'localhost/plain:bookworm',
  memory: 'localhost/plain:bookworm',
  baked: FLUX_IMAGE,
};
const OPERATOR = fileURLToPath(new URL('./view-operator-process.ts', import.meta.url));
const OPERATOR_START_MS = 60_000;
const OPERATOR_STOP_MS = 15_000;
const NAMESPACE_GONE_MS = 120_000;

const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`);

/** The case's MiniCluster as the kind runs it (v1alpha2, as the API server serves it). */
async function caseMiniCluster(kind: ViewKind, namespace: string): Promise<Record<string, unknown>> {
  const miniCluster = await goTestMiniCluster(CASE, namespace, IMAGES[kind]);
  const spec = miniCluster.spec as { flux?: { container?: Record<string, unknown> } };
  if (kind === 'baked') {
    spec.flux = { ...spec.flux, container: { ...spec.flux?.container, disable: true } };
  } else if (kind === 'memory') {
    spec.flux = { ...spec.flux, container: { ...spec.flux?.container, medium: 'Memory' } };
  }
  return miniCluster;
}

interface OperatorRun {
  child: ChildProcess;
  /** Its log lines so far. */
  lines: string[];
}

async function startOperator(kubeconfig: string, namespace: string, image: string): Promise<OperatorRun> {
  const child = spawn(process.execPath, [OPERATOR, kubeconfig, namespace, image], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  let partial = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString('utf8')).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts.filter((line) => line !== ''));
  });
  const run = { child, lines };
  try {
    await waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`the operator exited with ${child.exitCode}`);
        return lines.some((line) => line.includes('"msg":"leading: reconciling'));
      },
      { what: 'the operator to reconcile', timeoutMs: OPERATOR_START_MS, intervalMs: 100 },
    );
  } catch (error) {
    await stopOperator(run);
    throw new Error(`${(error as Error).message}\n${lines.join('\n')}`, { cause: error });
  }
  return run;
}

async function stopOperator({ child }: OperatorRun): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  try {
    await within(OPERATOR_STOP_MS, 'the operator stopping', exited);
  } catch {
    child.kill('SIGKILL');
    await exited;
  }
}

/** The operator's warnings and errors, for a failed run. */
function complaints(run: OperatorRun | undefined): string {
  return (run?.lines ?? [])
    .filter((line) => /"level":"(warn|error)"/.test(line))
    .slice(-20)
    .join('\n');
}

async function createNamespace(clients: ApiClients, name: string): Promise<void> {
  await clients.core.createNamespace({ body: { metadata: { name } } });
  // Pods can be created once its default ServiceAccount exists.
  await waitFor(() => clients.core.readNamespacedServiceAccount({ name: 'default', namespace: name }), {
    what: `namespace ${name}'s default ServiceAccount`,
    timeoutMs: 60_000,
  });
}

async function measureAll(options: ViewOptions, target: SampleTarget): Promise<ViewSample[]> {
  const samples: ViewSample[] = [];
  const order = viewRunOrder(options.rounds);
  for (const [index, kind] of order.entries()) {
    const miniCluster = await caseMiniCluster(kind, target.namespace);
    const sample = await measureMiniCluster(target, kind, miniCluster);
    samples.push(sample);
    progress(
      `${index + 1}/${order.length} ${kind} (${IMAGES[kind]}): Succeeded in ${sample.succeededSeconds.toFixed(2)} s, ` +
        `pods started in ${sample.podsStartedSeconds.toFixed(2)} s` +
        (sample.initSeconds.length > 0 ? `, init containers ${sample.initSeconds.join(', ')} s` : ''),
    );
    // The next MiniCluster gets the node to itself.
    await deleteMiniCluster(target);
  }
  return samples;
}

export async function viewBench(argv: readonly string[]): Promise<void> {
  // This tree's view, under a tag of the run's own: not the shared tag another checkout may reload.
  const start = await startRealNodeBench(argv, parseViewOptions, VIEW_USAGE, progress);
  if (!start) return;
  const { options, kubeconfig, clients, pinned } = start;
  const fluxViewImage = pinned.reference;
  const namespace = `bench-view-${Date.now().toString(36)}`;
  // Ctrl-C or SIGTERM ends the measurement; the cleanup below still runs.
  const abort = new AbortController();
  let interruptedBy: NodeJS.Signals | undefined;
  const interrupt = (signal: NodeJS.Signals) => {
    interruptedBy = signal;
    abort.abort(new Error(`interrupted (${signal})`));
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  let operator: OperatorRun | undefined;
  let succeeded = false;
  const target: SampleTarget = {
    clients,
    namespace,
    name: NAME,
    size: SIZE,
    timeoutMs: options.timeoutSeconds * 1000,
    signal: abort.signal,
  };
  try {
    await createNamespace(clients, namespace);
    operator = await startOperator(kubeconfig, namespace, fluxViewImage);
    progress(
      `${options.rounds} rounds of ${CASE} (size ${SIZE}) in ${namespace}, ` +
        `the view from ${fluxViewImage} (${pinned.imageId})`,
    );
    const samples = await measureAll(options, target);
    process.stdout.write(
      viewLine(samples, {
        images: IMAGES,
        fluxViewImage,
        size: SIZE,
        rounds: options.rounds,
        machineCpus: availableParallelism(),
      }),
    );
    succeeded = true;
  } catch (error) {
    if (interruptedBy === undefined) throw error;
    // Said in one line, with the shell's status for the signal; the cleanup below still runs.
    progress(`interrupted (${interruptedBy}): no result; cleaning up`);
    process.exitCode = 128 + constants.signals[interruptedBy];
  } finally {
    if (!succeeded && operator) {
      const said = complaints(operator);
      if (said !== '') progress(`the operator's warnings and errors:\n${said}`);
    }
    await deleteMiniCluster(target).catch((error: unknown) => progress(`cleanup: ${String(error)}`));
    if (operator) await stopOperator(operator);
    await deleteNamespace(namespace, NAMESPACE_GONE_MS).catch((error: unknown) =>
      progress(`cleanup: ${String(error)}`),
    );
    await pinned.unpin().catch((error: unknown) => progress(`cleanup: ${String(error)}`));
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
}
