/**
 * `npm run bench [-- --count N --size S] [-- --scale] [-- --operator-heap-mib M] [-- --cluster NAME]
 * [-- --cpu-prof DIR]`: the
 * operator against a direct apply of the same objects, on the local control plane (the default cluster,
 * or the named one, started if needed and left running), in one run. Prints one JSON line:
 *   direct_seconds / operator_seconds: from the first write to every pod Running;
 *   operator_settled_seconds: to the operator's last write (the Ready status of every MiniCluster);
 *   ratio: operator / direct (1.0 means the operator adds nothing);
 *   writes_per_minicluster: API writes the operator made per MiniCluster until all were Ready;
 *   steady_state_writes_30s: writes in the 30 s after that (should be 0), and
 *   steady_state_writes_by_resource: the resources they went to;
 *   operator_cpu_seconds / api_requests: the operator's CPU time (user + system) and its API
 *   requests (rest_client_requests_total, every request as client-go counts them) from its start until every
 *   MiniCluster was Ready; operator_start_cpu_seconds: the part spent starting (imports, first
 *   lists), before any MiniCluster existed; operator_cpu_ms_per_minicluster: the rest per MiniCluster;
 *   steady_state_requests_30s: requests in the 30 s after that (should be 0);
 *   operator_rss_mib / operator_peak_rss_mib / operator_heap_used_mib: memory of the operator process.
 * `--burst` measures bursting instead (see burst.ts); `--against-go` runs our operator and the upstream
 * Go operator side by side (see against-go.ts); `--conversion` what the conversion webhook adds to reads
 * (see conversion.ts); `--view [--rounds N]` the start-up cost of the Flux view: the Go operator's
 * hello-world on the real node, Flux from the view against Flux in the image, alternating, with the
 * ratio of their medians (see view.ts); `--autoscale` the steady requests of 50 autoscaled idle
 * MiniClusters (see autoscale.ts); `--outage [--rounds N]` how soon the operator reconciles after a 40 s
 * API server outage, against the same work on the healthy cluster (see outage.ts); `--mpi [--size N]
 * [--rounds N]` LAMMPS and NetPIPE in a MiniCluster on the real node against the same ranks by `mpirun` in
 * one pod and against Flux's binding off, and its apply-to-done against that pod's (see mpi.ts);
 * `--webhook-flood [--rounds N]` the API server's conversions and a reconcile with the conversion
 * webhook flooded by 20 senders of 60 MiB and 1,000 small ones, against the same calm, and the
 * operator's memory against its Deployment's limit (see webhook-flood.ts).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { defaultedToV1alpha2, validateMiniClusterV1alpha1 } from '../../src/api/index.ts';
import { serverSideApply } from '../../src/kube/apply.ts';
import { apiClientsFor, loadKubeConfig } from '../../src/kube/clients.ts';
import type { ApiClients } from '../../src/kube/api-clients.ts';
import { FIELD_MANAGER } from '../../src/deploy/index.ts';
import { up } from '../../workbench/src/localcluster/index.ts';
import { generateMiniClusterKeys, renderMiniCluster, type KubeObject } from '../../src/render/index.ts';
import { installCommand } from '../../src/cli/install-command.ts';
import { againstGoBench } from './against-go.ts';
import { autoscaleBench } from './autoscale.ts';
import { benchMiniCluster } from './bench-minicluster.ts';
import { burstBench } from './burst.ts';
import { conversionBench } from './conversion.ts';
import { mpiBench } from './mpi.ts';
import { outageBench } from './outage.ts';
import { viewBench } from './view.ts';
import { webhookFloodBench } from './webhook-flood.ts';
import {
  createNamespace,
  deleteNamespace,
  ensureCapacity,
  pool,
  waitAllRunning,
  waitGone,
} from './cluster-objects.ts';
import { oursCommand } from './operator-commands.ts';
import {
  cpuSeconds,
  loggedNumber,
  metricsByLabel,
  metricsTotal,
  round,
  rssMiB,
  settled,
} from './process-metrics.ts';

// The operator as deployed (the image runs the compiled CLI): `npm run bench` builds it first.
const MAIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

interface Options {
  count: number;
  size: number;
  steadySeconds: number;
  /** V8 old-space limit of the operator (MiB), e.g. what a container memory limit leads Node to pick. */
  operatorHeapMiB: number | undefined;
  /** A named local cluster to run on instead of the default one (which tests may be using). */
  cluster: string | undefined;
  /** Where the operator writes a CPU profile of its run (`--cpu-prof DIR`). */
  cpuProfileDir: string | undefined;
}

function parseOptions(argv: readonly string[]): Options {
  const value = (flag: string, fallback: number) => {
    const index = argv.indexOf(flag);
    return index >= 0 ? Number(argv[index + 1]) : fallback;
  };
  const scale = argv.includes('--scale');
  return {
    count: value('--count', scale ? 1000 : 100),
    size: value('--size', 8),
    steadySeconds: value('--steady-seconds', 30),
    operatorHeapMiB: argv.includes('--operator-heap-mib') ? value('--operator-heap-mib', 0) : undefined,
    cluster: argv.includes('--cluster') ? argv[argv.indexOf('--cluster') + 1] : undefined,
    cpuProfileDir: argv.includes('--cpu-prof') ? argv[argv.indexOf('--cpu-prof') + 1] : undefined,
  };
}

async function direct(clients: ApiClients, namespace: string, options: Options): Promise<number> {
  // Rendering (and key generation) is done before the clock starts: the figure is the apply path.
  const objects: KubeObject[] = [];
  for (let index = 0; index < options.count; index++) {
    const result = validateMiniClusterV1alpha1(benchMiniCluster(namespace, index, options.size));
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    const model = defaultedToV1alpha2(result.value);
    objects.push(...renderMiniCluster(model, generateMiniClusterKeys(model.metadata.name)));
  }
  const started = performance.now();
  await pool(objects, 16, (object) => serverSideApply(clients.objects, object, 'bench-direct'));
  await waitAllRunning(clients, namespace, options.count * options.size);
  return (performance.now() - started) / 1000;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const { kubeconfig } = await up({
    ...(options.cluster === undefined ? {} : { name: options.cluster }),
    progress: (line) => process.stderr.write(`[bench] ${line}\n`),
  });
  await installCommand({ kubeconfig, log: () => undefined });
  const clients = apiClientsFor(loadKubeConfig(kubeconfig));
  const nodes = await ensureCapacity(clients, 2 * options.count * options.size);
  const suffix = Date.now().toString(36);
  const directNamespace = `bench-direct-${suffix}`;
  const operatorNamespace = `bench-operator-${suffix}`;
  await createNamespace(clients, directNamespace);
  await createNamespace(clients, operatorNamespace);

  try {
    process.stderr.write(`[bench] direct apply of ${options.count} x ${options.size}\n`);
    const directSeconds = await direct(clients, directNamespace, options);
    // The operator phase gets the machine to itself: the direct phase's pods are gone first.
    await deleteNamespace(clients, directNamespace);
    await waitGone(clients, directNamespace);

    const command = oursCommand({
      main: MAIN,
      kubeconfig,
      metricsAddr: '127.0.0.1:0',
      namespace: operatorNamespace,
      ...(options.operatorHeapMiB === undefined ? {} : { heapMiB: options.operatorHeapMiB }),
      ...(options.cpuProfileDir === undefined ? {} : { cpuProfileDir: options.cpuProfileDir }),
    });
    // As deployed: the Deployment's V8 flags (heap sizing, young generation).
    const child = spawn(command.command, command.args, {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...command.env },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const metricsPort = await loggedNumber(
      () => output,
      'flux-operator starting',
      'metricsPort',
      'the operator did not start',
    );
    // Ready: its caches synced and the CRD converting through its webhook, so v1alpha1 applies (a
    // fixed second was too short on a fresh cluster: 'no kind MiniCluster in .../v1alpha1').
    await loggedNumber(
      () => output,
      'flux-operator ready',
      'secondsSinceStart',
      'the operator did not become ready',
      120_000,
    );

    const startCpu = cpuSeconds(child.pid ?? 0);
    process.stderr.write(`[bench] operator: ${options.count} MiniClusters x ${options.size}\n`);
    const started = performance.now();
    const miniClusters = Array.from({ length: options.count }, (_, index) =>
      benchMiniCluster(operatorNamespace, index, options.size),
    );
    await pool(miniClusters, 16, (object) => serverSideApply(clients.objects, object, FIELD_MANAGER));
    await waitAllRunning(clients, operatorNamespace, options.count * options.size);
    const operatorSeconds = (performance.now() - started) / 1000;

    // The last status writes (Ready) trail the pods: count once no write came for 3 s.
    const writesSettled = await settled(
      () => metricsTotal(metricsPort, 'flux_operator_api_writes_total'),
      3000,
    );
    const writes = writesSettled.total;
    const cpu = cpuSeconds(child.pid ?? 0);
    const writesByVerb = await metricsByLabel(metricsPort, 'flux_operator_api_writes_total', 'verb');
    const byResource = () => metricsByLabel(metricsPort, 'flux_operator_api_writes_total', 'resource');
    const writesByResource = await byResource();
    const requests = await metricsTotal(metricsPort, 'rest_client_requests_total');
    await sleep(options.steadySeconds * 1000);
    const steadyWrites = (await metricsTotal(metricsPort, 'flux_operator_api_writes_total')) - writes;
    // Which resources a steady-state write went to (there should be none).
    const steadyWritesByResource = Object.fromEntries(
      Object.entries(await byResource())
        .map(([resource, count]) => [resource, count - (writesByResource[resource] ?? 0)] as const)
        .filter(([, count]) => count > 0),
    );
    const steadyRequests = (await metricsTotal(metricsPort, 'rest_client_requests_total')) - requests;
    const memory = rssMiB(child.pid ?? 0);
    // V8's live heap as the operator's default metrics report it (RSS also holds freed pages).
    const heapUsed = await metricsTotal(metricsPort, 'nodejs_heap_size_used_bytes');
    child.kill('SIGTERM');
    await once(child, 'exit');

    process.stdout.write(
      `${JSON.stringify({
        miniclusters: options.count,
        size: options.size,
        pods: options.count * options.size,
        direct_seconds: round(directSeconds),
        operator_seconds: round(operatorSeconds),
        operator_settled_seconds: round(operatorSeconds + writesSettled.afterMs / 1000),
        ratio: round(operatorSeconds / directSeconds),
        writes_per_minicluster: round(writes / options.count),
        writes_by_verb: writesByVerb,
        steady_state_writes_30s: steadyWrites,
        steady_state_writes_by_resource: steadyWritesByResource,
        operator_cpu_seconds: round(cpu),
        operator_start_cpu_seconds: round(startCpu),
        operator_cpu_ms_per_minicluster: round(((cpu - startCpu) * 1000) / options.count),
        api_requests: requests,
        steady_state_requests_30s: steadyRequests,
        operator_rss_mib: round(memory.rss),
        operator_peak_rss_mib: round(memory.peak),
        operator_heap_used_mib: round(heapUsed / 2 ** 20),
        ...(options.operatorHeapMiB === undefined
          ? {}
          : { operator_heap_limit_mib: options.operatorHeapMiB }),
      })}\n`,
    );
  } finally {
    await deleteNamespace(clients, directNamespace);
    await deleteNamespace(clients, operatorNamespace);
    for (const name of nodes) await clients.core.deleteNode({ name }).catch(() => undefined);
  }
}

const argv = process.argv.slice(2);
if (argv.includes('--burst')) await burstBench(argv);
else if (argv.includes('--conversion')) await conversionBench(argv);
else if (argv.includes('--against-go')) await againstGoBench(argv);
else if (argv.includes('--view')) await viewBench(argv);
else if (argv.includes('--autoscale')) await autoscaleBench(argv);
else if (argv.includes('--outage')) await outageBench(argv);
else if (argv.includes('--mpi')) await mpiBench(argv);
else if (argv.includes('--webhook-flood')) await webhookFloodBench(argv);
else await main();
