/**
 * `npm run bench -- --autoscale [--count N] [--size S] [--poll-seconds P] [--steady-seconds T]`: the
 * steady cost of autoscaled MiniClusters that are idle. N (50) MiniClusters of S (1) brokers with
 * `autoscale` (pollSeconds P, 10) on kwok nodes, made Ready, then T (60) seconds measured. kwok pods
 * run nothing, so each read of the queue is an exec that fails ("no exec found") and costs the same
 * round trip a real read does. Prints one JSON line:
 *   requests_per_minute: the operator's API requests (rest_client_requests_total) per minute;
 *   writes_per_minute: its writes (flux_operator_api_writes_total) per minute;
 *   exec_per_minute: exec connections the API server served (apiserver_request_total, subresource
 *     exec; only the operator execs here) per minute, and per MiniCluster per poll;
 *   requests_by_method: the operator's requests of the window by HTTP method.
 * The exec client of @kubernetes/client-node is not the operator's transport: its execs (and the pod
 * read that explains a failed one) are not in rest_client_requests_total, hence the API server's count.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { serverSideApply } from '../../src/kube/apply.ts';
import { apiClientsFor, loadKubeConfig } from '../../src/kube/clients.ts';
import { FIELD_MANAGER } from '../../src/deploy/index.ts';
import { binDir, readVersions, up } from '../../workbench/src/localcluster/index.ts';
import { installCommand } from '../../src/cli/install-command.ts';
import { benchMiniCluster } from './bench-minicluster.ts';
import { createNamespace, deleteNamespace, ensureCapacity, pool, waitAllRunning } from './cluster-objects.ts';
import { oursCommand } from './operator-commands.ts';
import { loggedNumber, metricsByLabel, metricsTotal, round, settled } from './process-metrics.ts';

const MAIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const run = promisify(execFile);

function option(argv: readonly string[], flag: string, fallback: number): number {
  const index = argv.indexOf(flag);
  return index >= 0 ? Number(argv[index + 1]) : fallback;
}

/** Exec connections the API server counted (apiserver_request_total, subresource="exec"). */
async function apiServerExecs(kubeconfig: string): Promise<number> {
  const { stdout } = await run(
    `${binDir(readVersions())}/kubectl`,
    ['--kubeconfig', kubeconfig, 'get', '--raw', '/metrics'],
    { maxBuffer: 256 * 1024 * 1024, timeout: 30_000 },
  );
  let total = 0;
  for (const line of stdout.split('\n')) {
    if (line.startsWith('apiserver_request_total{') && line.includes('subresource="exec"'))
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

export async function autoscaleBench(argv: readonly string[]): Promise<void> {
  const count = option(argv, '--count', 50);
  const size = option(argv, '--size', 1);
  const pollSeconds = option(argv, '--poll-seconds', 10);
  const steadySeconds = option(argv, '--steady-seconds', 60);
  const { kubeconfig } = await up({ progress: (line) => process.stderr.write(`[bench] ${line}\n`) });
  await installCommand({ kubeconfig, log: () => undefined });
  const clients = apiClientsFor(loadKubeConfig(kubeconfig));
  const nodes = await ensureCapacity(clients, count * size);
  const namespace = `bench-autoscale-${Date.now().toString(36)}`;
  await createNamespace(clients, namespace);
  const command = oursCommand({ main: MAIN, kubeconfig, metricsAddr: '127.0.0.1:0', namespace });
  const child = spawn(command.command, command.args, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...command.env },
  });
  try {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const port = await loggedNumber(
      () => output,
      'flux-operator starting',
      'metricsPort',
      'the operator did not start',
    );
    await sleep(1000);
    process.stderr.write(`[bench] ${count} autoscaled MiniClusters x ${size}, pollSeconds ${pollSeconds}\n`);
    const miniClusters = Array.from({ length: count }, (_, index) => {
      const object = benchMiniCluster(namespace, index, size);
      return {
        ...object,
        spec: { ...object.spec, maxSize: size + 1, autoscale: { pollSeconds, idleSeconds: 3600 } },
      };
    });
    await pool(miniClusters, 16, (object) => serverSideApply(clients.objects, object, FIELD_MANAGER));
    await waitAllRunning(clients, namespace, count * size);
    // Each MiniCluster's first failed read is written once (status.autoscale.readError): settle first.
    await settled(() => metricsTotal(port, 'flux_operator_api_writes_total'), 3 * pollSeconds * 1000);

    const requests = await metricsTotal(port, 'rest_client_requests_total');
    const writes = await metricsTotal(port, 'flux_operator_api_writes_total');
    const byMethod = await metricsByLabel(port, 'rest_client_requests_total', 'method');
    const execs = await apiServerExecs(kubeconfig);
    await sleep(steadySeconds * 1000);
    const minutes = steadySeconds / 60;
    const execsAfter = await apiServerExecs(kubeconfig);
    const byMethodAfter = await metricsByLabel(port, 'rest_client_requests_total', 'method');
    const requestsByMethod = Object.fromEntries(
      Object.entries(byMethodAfter).map(([method, value]) => [method, value - (byMethod[method] ?? 0)]),
    );
    const execPerMinute = (execsAfter - execs) / minutes;
    process.stdout.write(
      `${JSON.stringify({
        miniclusters: count,
        size,
        poll_seconds: pollSeconds,
        window_seconds: steadySeconds,
        requests_per_minute: round(
          ((await metricsTotal(port, 'rest_client_requests_total')) - requests) / minutes,
        ),
        writes_per_minute: round(
          ((await metricsTotal(port, 'flux_operator_api_writes_total')) - writes) / minutes,
        ),
        exec_per_minute: round(execPerMinute),
        exec_per_minicluster_per_poll: round(execPerMinute / count / (60 / pollSeconds)),
        requests_by_method: requestsByMethod,
      })}\n`,
    );
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    await deleteNamespace(clients, namespace);
    for (const name of nodes) await clients.core.deleteNode({ name }).catch(() => undefined);
  }
}
