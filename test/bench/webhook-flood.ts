// `npm run bench -- --webhook-flood [--rounds N]`: the conversion webhook flooded by strangers, on a
// local cluster of its own (`flood-bench`, stopped at the end). The operator runs as the Deployment
// runs it (the compiled CLI, its heap sized as under the Deployment's memory limit); 20 strangers post
// 60 MiB bodies and 1,000 small ones post a review a second, each from a loopback address of its own
// (test/harness/webhook-flood.ts: nothing leaves this machine). Measured calm, then flooded, in one
// run: the API server's conversions through the webhook (a get of a stored v1alpha2 object as
// v1alpha1), the time to reconcile a MiniCluster written as v1alpha1, and the operator's memory.
// Prints one JSON line; `within_target` says whether every flooded conversion took under 1 s and the
// operator's peak RSS stayed under the Deployment's limit.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { GROUP, PLURAL, VERSION_V1ALPHA1 } from '../../src/api/index.ts';
import { API_VERSION } from '../../src/api/index.ts';
import { installCommand } from '../../src/cli/install-command.ts';
import { FIELD_MANAGER, OPERATOR_NODE_OPTIONS, OPERATOR_RESOURCES } from '../../src/deploy/index.ts';
import { serverSideApply } from '../../src/kube/apply.ts';
import { apiClientsFor, loadKubeConfig } from '../../src/kube/clients.ts';
import type { ApiClients } from '../../src/kube/api-clients.ts';
import { down, up } from '../../workbench/src/localcluster/index.ts';
import { floodWebhook } from '../harness/webhook-flood.ts';
import { loggedNumber, rssMiB, round } from './process-metrics.ts';

const CLUSTER = 'flood-bench';
const NAMESPACE = 'flood-bench';
const MAIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const BIG_CLIENTS = 20;
const BIG_BODY_MIB = 60;
const SMALL_CLIENTS = 1000;
const TARGET_MS = 1000;

/** The Deployment's memory limit in MiB, and the old space Node gives itself under it. */
export function deploymentMemory(): { limitMiB: number; heapMiB: number } {
  const limit = /^(\d+)Mi$/.exec(OPERATOR_RESOURCES.limits.memory);
  const percentage = /--max-old-space-size-percentage=(\d+)/.exec(OPERATOR_NODE_OPTIONS);
  if (!limit || !percentage)
    throw new Error('the Deployment has no memory limit in Mi or no heap percentage');
  const limitMiB = Number(limit[1]);
  return { limitMiB, heapMiB: Math.floor((limitMiB * Number(percentage[1])) / 100) };
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN);
}

function minicluster(name: string, apiVersion: string): Record<string, unknown> {
  return {
    apiVersion,
    kind: 'MiniCluster',
    metadata: { name, namespace: NAMESPACE },
    spec: { size: 1, containers: [{ image: 'localhost/flux:0.88.0', command: 'hostname' }] },
  };
}

/** Conversions the API server asks the webhook for, one after another: their times in ms. */
async function conversions(clients: ApiClients, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await clients.custom.getNamespacedCustomObject({
      group: GROUP,
      version: VERSION_V1ALPHA1,
      namespace: NAMESPACE,
      plural: PLURAL,
      name: 'stored',
    });
    times.push(performance.now() - start);
  }
  return times;
}

/** Seconds from writing a v1alpha1 MiniCluster (converted on its way in) to its first status. */
async function reconcileSeconds(clients: ApiClients, name: string): Promise<number> {
  const start = performance.now();
  await serverSideApply(
    clients.objects,
    minicluster(name, `${GROUP}/${VERSION_V1ALPHA1}`) as never,
    FIELD_MANAGER,
  );
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const object = (await clients.custom.getNamespacedCustomObject({
      group: GROUP,
      version: 'v1alpha2',
      namespace: NAMESPACE,
      plural: PLURAL,
      name,
    })) as { status?: { observedGeneration?: number } };
    if (object.status?.observedGeneration === 1) return round((performance.now() - start) / 1000);
    await sleep(50);
  }
  throw new Error(`${name} was not reconciled within 60 s`);
}

export async function webhookFloodBench(argv: readonly string[]): Promise<void> {
  const rounds = argv.includes('--rounds') ? Number(argv[argv.indexOf('--rounds') + 1]) : 30;
  const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`);
  const memory = deploymentMemory();
  const { kubeconfig } = await up({ name: CLUSTER, progress });
  let output = '';
  const operator = spawn(
    process.execPath,
    [
      `--max-old-space-size=${memory.heapMiB}`,
      '--max-semi-space-size=2',
      MAIN,
      'run',
      '--kubeconfig',
      kubeconfig,
      '--namespace',
      NAMESPACE,
      '--metrics-addr',
      '0',
      '--health-addr',
      '0',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  operator.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  operator.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  let stopFlood: () => Promise<void> = () => Promise.resolve();
  try {
    await installCommand({ kubeconfig, log: () => undefined });
    const clients = apiClientsFor(loadKubeConfig(kubeconfig));
    await clients.core.createNamespace({ body: { metadata: { name: NAMESPACE } } }).catch(() => undefined);
    const port = await loggedNumber(
      () => output,
      'serving the conversion webhook',
      'port',
      'the operator did not serve its webhook',
      60_000,
    );
    await serverSideApply(clients.objects, minicluster('stored', API_VERSION) as never, FIELD_MANAGER);
    // Through the webhook once it is the CRD's (the operator points it at itself after it serves).
    const ready = Date.now() + 60_000;
    while ((await conversions(clients, 1).catch(() => undefined)) === undefined) {
      if (Date.now() > ready) throw new Error(`conversions never went through the webhook:\n${output}`);
      await sleep(200);
    }
    const pid = operator.pid ?? 0;
    progress(`calm: ${rounds} conversions and a reconcile`);
    await conversions(clients, 5);
    const calm = await conversions(clients, rounds);
    const calmReconcile = await reconcileSeconds(clients, 'calm');
    const calmRss = rssMiB(pid).rss;
    progress(
      `flood: ${BIG_CLIENTS} x ${BIG_BODY_MIB} MiB and ${SMALL_CLIENTS} small clients on port ${port}`,
    );
    const running = floodWebhook(port, BIG_CLIENTS, SMALL_CLIENTS, BIG_BODY_MIB * 1024 * 1024);
    stopFlood = () => running.stop();
    // The small ones arrive over two seconds, the big ones hold their bodies: let it build up.
    await sleep(3_000);
    const flooded = await conversions(clients, rounds);
    const floodedReconcile = await reconcileSeconds(clients, 'flooded');
    const memoryNow = rssMiB(pid);
    await stopFlood();
    const answered = running.answered;
    const cut = running.cut;
    const result = {
      big_clients: BIG_CLIENTS,
      big_body_mib: BIG_BODY_MIB,
      small_clients: SMALL_CLIENTS,
      conversions: rounds,
      conversion_ms: {
        calm: { median: quantile(calm, 0.5), max: quantile(calm, 1) },
        flood: { median: quantile(flooded, 0.5), p90: quantile(flooded, 0.9), max: quantile(flooded, 1) },
      },
      conversion_flood_ratio: round(quantile(flooded, 0.5) / quantile(calm, 0.5)),
      reconcile_seconds: { calm: calmReconcile, flood: floodedReconcile },
      reconcile_flood_ratio: round(floodedReconcile / calmReconcile),
      operator_rss_mib: {
        calm: round(calmRss),
        peak: round(memoryNow.peak),
        limit: memory.limitMiB,
        heap_limit: memory.heapMiB,
      },
      flood_requests: { answered, refused_or_cut: cut },
      within_target: {
        conversions_under_1s: quantile(flooded, 1) < TARGET_MS,
        rss_under_limit: memoryNow.peak < memory.limitMiB,
      },
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await stopFlood();
    operator.kill('SIGTERM');
    await Promise.race([once(operator, 'exit'), sleep(15_000)]);
    await down({ name: CLUSTER, progress });
  }
}
