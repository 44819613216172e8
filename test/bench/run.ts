/**
 * `npm run bench [-- --count N --size S] [-- --scale] [-- --operator-heap-mib M] [-- --cluster NAME]`: the operator against a direct apply of the
 * same objects, on the local control plane, in one run. Prints one JSON line:
 *   direct_seconds / operator_seconds: from the first write to every pod Running;
 *   operator_settled_seconds: to the operator's last write (the Ready status of every MiniCluster);
 *   ratio: operator / direct (1.0 means the operator adds nothing);
 *   writes_per_minicluster: API writes the operator made per MiniCluster until all were Ready;
 *   steady_state_writes_30s: writes in the 30 s after that (should be 0);
 *   operator_cpu_seconds / api_requests: the operator's CPU time (user + system) and its API writes
 *   (rest_client_requests_total: the operator counts writes there) from its start until every
 *   MiniCluster was Ready; operator_start_cpu_seconds: the part spent starting (imports, first
 *   lists), before any MiniCluster existed; operator_cpu_ms_per_minicluster: the rest per MiniCluster;
 *   steady_state_requests_30s: requests in the 30 s after that (should be 0);
 *   operator_rss_mib / operator_peak_rss_mib / operator_heap_used_mib: memory of the operator process.
 * `--burst` measures bursting instead (see burst.ts).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { V1Node } from '@kubernetes/client-node';
import { API_VERSION, KIND, validateMiniCluster } from '../../src/api/index.ts';
import { serverSideApply } from '../../src/kube/apply.ts';
import { kubeClients, loadKubeConfig, type KubeClients } from '../../src/kube/clients.ts';
import { FIELD_MANAGER, OPERATOR_NODE_OPTIONS } from '../../src/deploy/index.ts';
import { up } from '../../src/localcluster/index.ts';
import { generateMiniClusterKeys, renderMiniCluster, type KubeObject } from '../../src/render/index.ts';
import { installCommand } from '../../src/cli/install-command.ts';
import { burstBench } from './burst.ts';

// The operator as deployed (the image runs the compiled CLI): `npm run bench` builds it first.
const MAIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const PODS_PER_NODE = 110;

interface Options {
  count: number;
  size: number;
  steadySeconds: number;
  /** V8 old-space limit of the operator (MiB), e.g. what a container memory limit leads Node to pick. */
  operatorHeapMiB: number | undefined;
  /** A named local cluster of its own (`--cluster NAME`), away from the shared default one. */
  cluster: string | undefined;
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
  };
}

function miniClusterSpec(namespace: string, index: number, size: number) {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: { name: `bench-${index}`, namespace },
    spec: {
      size,
      interactive: true,
      containers: [{ image: 'ghcr.io/flux-framework/flux-restful-api:latest', cores: 4 }],
    },
  };
}

/** Runs `work` over `items` with at most `limit` in flight. */
async function pool<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

async function waitAllRunning(clients: KubeClients, namespace: string, expected: number): Promise<void> {
  for (;;) {
    const pods = await clients.core.listNamespacedPod({ namespace });
    const running = pods.items.filter((pod) => pod.status?.phase === 'Running').length;
    if (running >= expected) return;
    await sleep(250);
  }
}

async function createNamespace(clients: KubeClients, name: string): Promise<void> {
  await clients.core.createNamespace({ body: { metadata: { name } } });
  for (;;) {
    try {
      await clients.core.readNamespacedServiceAccount({ name: 'default', namespace: name });
      return;
    } catch {
      await sleep(100);
    }
  }
}

async function deleteNamespace(clients: KubeClients, name: string): Promise<void> {
  try {
    await clients.core.deleteNamespace({ name });
  } catch {
    // already gone
  }
}

async function waitGone(clients: KubeClients, name: string): Promise<void> {
  for (;;) {
    try {
      await clients.core.readNamespace({ name });
    } catch {
      return;
    }
    await sleep(1000);
  }
}

/** Enough simulated nodes for every pod of both phases (kwok manages every node it sees). */
async function ensureCapacity(clients: KubeClients, pods: number): Promise<string[]> {
  const existing = (await clients.core.listNode()).items.length;
  const wanted = Math.ceil(pods / PODS_PER_NODE) - existing + 1;
  const names: string[] = [];
  for (let i = 0; i < wanted; i++) {
    const name = `bench-node-${i}`;
    const resources = { cpu: '64', memory: '256Gi', pods: String(PODS_PER_NODE) };
    const node: V1Node = {
      metadata: {
        name,
        labels: { type: 'kwok', 'kubernetes.io/hostname': name },
        annotations: { 'kwok.x-k8s.io/node': 'fake' },
      },
      status: {
        capacity: resources,
        allocatable: resources,
        addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
      },
    };
    try {
      await clients.core.createNode({ body: node });
    } catch {
      // left from an earlier run
    }
    names.push(name);
  }
  return names;
}

async function metricsTotal(port: number, metric: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(metric))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

/** A metric's values by one label (summed over the others), e.g. writes by verb. */
async function metricsByLabel(port: number, metric: string, label: string): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const totals: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${metric}{`)) continue;
    const key = new RegExp(`${label}="([^"]*)"`).exec(line)?.[1] ?? '';
    totals[key] = (totals[key] ?? 0) + Number(line.split(' ').pop());
  }
  return totals;
}

/** A metric's total once it has not changed for `quietMs`, and how long after the call that was. */
async function settledTotal(
  port: number,
  metric: string,
  quietMs: number,
): Promise<{ total: number; afterMs: number }> {
  const started = performance.now();
  let total = await metricsTotal(port, metric);
  let changedAt = started;
  while (performance.now() - changedAt < quietMs) {
    await sleep(250);
    const now = await metricsTotal(port, metric);
    if (now !== total) {
      total = now;
      changedAt = performance.now();
    }
  }
  return { total, afterMs: changedAt - started };
}

/** CPU seconds (user + system) a process has used, from /proc (clock ticks of 1/100 s on Linux). */
function cpuSeconds(pid: number): number {
  // The fields after the command name, which is in parentheses and may itself hold spaces.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function rssMiB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

async function direct(clients: KubeClients, namespace: string, options: Options): Promise<number> {
  // Rendering (and key generation) is done before the clock starts: the figure is the apply path.
  const objects: KubeObject[] = [];
  for (let index = 0; index < options.count; index++) {
    const result = validateMiniCluster(miniClusterSpec(namespace, index, options.size));
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    objects.push(...renderMiniCluster(result.value, generateMiniClusterKeys(result.value.metadata.name)));
  }
  const started = performance.now();
  await pool(objects, 16, (object) => serverSideApply(clients.objects, object, 'bench-direct'));
  await waitAllRunning(clients, namespace, options.count * options.size);
  return (performance.now() - started) / 1000;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const { kubeconfig } = await up({
    ...(options.cluster ? { name: options.cluster } : {}),
    progress: (line) => process.stderr.write(`[bench] ${line}\n`),
  });
  await installCommand({ kubeconfig, log: () => undefined });
  const clients = kubeClients(loadKubeConfig(kubeconfig));
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

    const child = spawn(
      process.execPath,
      [
        ...(options.operatorHeapMiB === undefined ? [] : [`--max-old-space-size=${options.operatorHeapMiB}`]),
        MAIN,
        'run',
        '--kubeconfig',
        kubeconfig,
        '--namespace',
        operatorNamespace,
        '--metrics-addr',
        '127.0.0.1:0',
        '--health-addr',
        '0',
        '--log-level',
        'info',
        '--concurrency',
        '8',
      ],
      // As deployed: the Deployment's V8 flags (heap sizing, young generation).
      { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, NODE_OPTIONS: OPERATOR_NODE_OPTIONS } },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const metricsPort = await startedOn(() => output);
    await sleep(1000); // caches synced

    const startCpu = cpuSeconds(child.pid ?? 0);
    process.stderr.write(`[bench] operator: ${options.count} MiniClusters x ${options.size}\n`);
    const started = performance.now();
    const miniClusters = Array.from({ length: options.count }, (_, index) =>
      miniClusterSpec(operatorNamespace, index, options.size),
    );
    await pool(miniClusters, 16, (object) => serverSideApply(clients.objects, object, FIELD_MANAGER));
    await waitAllRunning(clients, operatorNamespace, options.count * options.size);
    const operatorSeconds = (performance.now() - started) / 1000;

    // The last status writes (Ready) trail the pods: count once no write came for 3 s.
    const settled = await settledTotal(metricsPort, 'flux_operator_api_writes_total', 3000);
    const writes = settled.total;
    const cpu = cpuSeconds(child.pid ?? 0);
    const writesByVerb = await metricsByLabel(metricsPort, 'flux_operator_api_writes_total', 'verb');
    const requests = await metricsTotal(metricsPort, 'rest_client_requests_total');
    await sleep(options.steadySeconds * 1000);
    const steadyWrites = (await metricsTotal(metricsPort, 'flux_operator_api_writes_total')) - writes;
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
        operator_settled_seconds: round(operatorSeconds + settled.afterMs / 1000),
        ratio: round(operatorSeconds / directSeconds),
        writes_per_minicluster: round(writes / options.count),
        writes_by_verb: writesByVerb,
        steady_state_writes_30s: steadyWrites,
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

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/** The metrics port from the operator's start-up log line. */
async function startedOn(output: () => string): Promise<number> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const line = output()
      .split('\n')
      .find((candidate) => candidate.includes('"msg":"flux-operator starting"'));
    if (line) return (JSON.parse(line) as { metricsPort: number }).metricsPort;
    await sleep(100);
  }
  throw new Error(`the operator did not start:\n${output()}`);
}

if (process.argv.includes('--burst')) await burstBench(process.argv.slice(2));
else await main();
