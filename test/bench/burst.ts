/**
 * `npm run bench -- --burst`: how long from a burstable job appearing in a MiniCluster's queue to its
 * burst MiniCluster's pods Running (in-cluster target, local control plane), and the API writes per
 * burst poll cycle once everything is steady (a busy burst refreshes lastBusyAt once a minute, so
 * about poll/60). `--poll-seconds N` sets the policy's pollSeconds (default 10), `--cycles N` (3),
 * `--second` bursts to the second local cluster through a kubeconfig BurstTarget instead.
 * One JSON line.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { API_VERSION_V1ALPHA1, KIND, PLURAL } from '../../src/api/index.ts';
import { installCommand } from '../../src/cli/install-command.ts';
import { OPERATOR_NAMESPACE, WEBHOOK_CERT_SECRET } from '../../src/deploy/index.ts';
import { serverSideApply } from '../../src/kube/apply.ts';
import { listCustomObjects } from '../../src/kube/custom-objects.ts';
import { BURST_POLL_MS } from '../../src/controllers/minicluster/burst-step.ts';
import { apiClientsFor, loadKubeConfig } from '../../src/kube/clients.ts';
import { apiClients, type ApiClients } from '../../src/kube/api-clients.ts';
import { writeOf } from '../../src/kube/request-write.ts';
import type { AnsweredRequest } from '../../src/kube/transport.ts';
import { Operator } from '../../src/controllers/operator.ts';
import { up } from '../../workbench/src/localcluster/index.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { createSecret, createTarget, inlineKubeconfig } from '../harness/burst-target.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/flux-queue/', import.meta.url));
const JOB = {
  id: 67108864000002,
  jobid: 'ƒXPqVWUVP',
  state: 'SCHED',
  nnodes: 6,
  ntasks: 6,
  name: 'burst-job',
  t_submit: 1767229600.0,
};

const STEADY_IDLE_SECONDS = 600;

/** An in-process operator for one namespace, counting the API writes it makes. */
async function countingOperator(clients: ApiClients, namespace: string) {
  let writes = 0;
  const countWrites = (request: AnsweredRequest) => {
    if (request.code !== undefined && writeOf(request)) writes += 1;
  };
  const manager = new Operator({
    clients: apiClients(clients.transport.access, { onRequest: countWrites }),
    log: createLogger({ level: 'warn', destination: process.stderr }),
    namespaces: [namespace],
    concurrency: 4,
    onTargetRequest: countWrites,
    // Each cluster's CRD stores v1alpha2: its operator serves the conversions, as `flux-operator run` does.
    conversionWebhook: {
      address: { host: '127.0.0.1', port: 0 },
      secret: { namespace: OPERATOR_NAMESPACE, name: WEBHOOK_CERT_SECRET },
    },
  });
  await manager.start();
  return { manager, writes: () => writes };
}

/**
 * The second local cluster as a burst target: the operator's install there (CRDs, RBAC) and an
 * operator (in-process) rendering what lands in `namespace`, counting its writes.
 */
async function secondCluster(namespace: string, progress: (line: string) => void) {
  const second = await up({ name: 'second', progress });
  await installCommand({ kubeconfig: second.kubeconfig, log: () => undefined });
  const clients = apiClientsFor(loadKubeConfig(second.kubeconfig));
  await clients.core.createNamespace({ body: { metadata: { name: namespace } } });
  const { manager, writes } = await countingOperator(clients, namespace);
  return {
    clients,
    kubeconfig: second.kubeconfig,
    writes,
    stop: async () => {
      await manager.stop();
      await clients.core.deleteNamespace({ name: namespace }).catch(() => undefined);
    },
  };
}

export async function burstBench(argv: readonly string[]): Promise<void> {
  const option = (name: string, fallback: number) =>
    argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) || fallback : fallback;
  const cycles = option('--cycles', 3);
  const pollMs = option('--poll-seconds', BURST_POLL_MS / 1000) * 1000;
  const toSecond = argv.includes('--second');
  const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`);
  const { kubeconfig } = await up({ progress });
  await installCommand({ kubeconfig, log: () => undefined });
  const clients = apiClientsFor(loadKubeConfig(kubeconfig));
  const namespace = `bench-burst-${Date.now().toString(36)}`;
  await clients.core.createNamespace({ body: { metadata: { name: namespace } } });
  const remote = toSecond ? await secondCluster(namespace, progress) : undefined;
  /** Where the burst pods run: the second cluster, or this one (in-cluster target). */
  const targetClients = remote?.clients ?? clients;
  const queueDir = mkdtempSync(join(tmpdir(), 'bench-queue-'));
  mkdirSync(join(queueDir, 'jobspec'));
  cpSync(join(FIXTURES, 'queue/jobspec/fXPqVWUVP.out'), join(queueDir, 'jobspec/fXPqVWUVP.out'));
  writeFileSync(join(queueDir, 'resources.txt'), 'up 2 0-1\nallocated 0 \n');
  writeFileSync(join(queueDir, 'jobs.out'), '{"jobs": []}\n');
  writeFileSync(join(queueDir, 'ids.txt'), '');
  // One line per flux call in the lead pod: a queue snapshot is the line running `flux jobs ... --json`.
  const fluxLog = join(queueDir, 'flux.log');
  writeFileSync(fluxLog, '');
  const snapshots = () =>
    readFileSync(fluxLog, 'utf8')
      .split('\n')
      .filter((line) => / jobs .*--json/.test(line)).length;
  const nextSnapshot = async (after: number) => {
    while (snapshots() <= after) await sleep(20);
    return performance.now();
  };

  const { manager, writes: operatorWrites } = await countingOperator(clients, namespace);
  try {
    if (remote) {
      await createSecret(
        clients,
        namespace,
        'second-kubeconfig',
        inlineKubeconfig(remote.kubeconfig, 'files').text,
      );
      await createTarget(clients, namespace, 'second', 'second-kubeconfig');
    }
    for (;;) {
      try {
        await clients.core.readNamespacedServiceAccount({ name: 'default', namespace });
        break;
      } catch {
        await sleep(100);
      }
    }
    // A realistic idle time while steady (lastBusyAt refreshed once a minute); 1 s to remove the burst.
    const applyMiniCluster = (idleSeconds: number) =>
      serverSideApply(
        clients.objects,
        {
          apiVersion: API_VERSION_V1ALPHA1,
          kind: KIND,
          metadata: { name: 'burst-local', namespace },
          spec: {
            size: 2,
            interactive: true,
            containers: [{ image: 'ghcr.io/flux-framework/flux-restful-api:latest', cores: 4 }],
            flux: {
              bursting: {
                clusters: [{ name: 'burst-0', size: 4 }],
                policy: {
                  idleSeconds,
                  pollSeconds: pollMs / 1000,
                  ...(remote ? { targets: [{ name: 'second' }] } : {}),
                },
              },
            },
          },
        } as never,
        'bench',
      );
    await applyMiniCluster(STEADY_IDLE_SECONDS);
    let lead: string | undefined;
    while (!lead) {
      const pods = await clients.core.listNamespacedPod({
        namespace,
        labelSelector: 'flux-framework.org/minicluster=burst-local',
      });
      lead = pods.items.find(
        (pod) => pod.spec?.hostname === 'burst-local-0' && pod.status?.phase === 'Running',
      )?.metadata?.name;
      if (!lead) await sleep(100);
    }
    await clients.objects.create({
      apiVersion: 'kwok.x-k8s.io/v1alpha1',
      kind: 'Exec',
      metadata: { name: lead, namespace },
      spec: {
        execs: [
          {
            containers: ['burst-local'],
            local: {
              workDir: queueDir,
              envs: [
                { name: 'PATH', value: `${join(FIXTURES, 'bin')}:/usr/local/bin:/usr/bin:/bin` },
                { name: 'FAKE_FLUX_DIR', value: queueDir },
                { name: 'FAKE_FLUX_LOG', value: fluxLog },
              ],
            },
          },
        ],
      },
    } as never);
    await sleep(pollMs); // the first polls see an empty queue: the steady state before bursting

    const total: number[] = [];
    const pollWait: number[] = [];
    const readToCreated: number[] = [];
    const createdToRunning: number[] = [];
    let steadyWrites = 0;
    let remoteSteadyWrites = 0;
    let steadySnapshots = 0;
    const burstExists = async () =>
      (await listCustomObjects(targetClients.custom, PLURAL, namespace, 'flux-framework.org/burst-slot'))
        .items.length > 0;
    for (let cycle = 0; cycle < cycles; cycle++) {
      // The job appears at a known phase of the poll: 1/6, 1/2, 5/6 ... of the interval after a read.
      await nextSnapshot(snapshots());
      await sleep((pollMs * (cycle + 0.5)) / cycles);
      const seen = snapshots();
      const started = performance.now();
      writeFileSync(join(queueDir, 'jobs.out'), `${JSON.stringify({ jobs: [JOB] })}\n`);
      writeFileSync(join(queueDir, 'ids.txt'), 'fXPqVWUVP\n');
      const readAt = nextSnapshot(seen);
      let createdAt: number | undefined;
      for (;;) {
        if (createdAt === undefined && (await burstExists())) createdAt = performance.now();
        const pods = await targetClients.core.listNamespacedPod({ namespace });
        const running = pods.items.filter(
          (pod) => pod.spec?.hostname?.startsWith('burst-0-') && pod.status?.phase === 'Running',
        );
        if (running.length === 4) break;
        await sleep(50);
      }
      const runningAt = performance.now();
      const read = await readAt;
      const created = createdAt ?? runningAt;
      total.push(runningAt - started);
      pollWait.push(read - started);
      readToCreated.push(created - read);
      createdToRunning.push(runningAt - created);
      // Steady: the burst runs, the queue does not change; count writes over three poll cycles.
      await sleep(pollMs);
      const before = operatorWrites();
      const remoteBefore = remote?.writes() ?? 0;
      const snapshotsBefore = snapshots();
      await sleep(3 * pollMs);
      steadyWrites += operatorWrites() - before;
      remoteSteadyWrites += (remote?.writes() ?? 0) - remoteBefore;
      steadySnapshots += snapshots() - snapshotsBefore;
      // Done: empty queue, wait for the burst to be removed before the next cycle.
      writeFileSync(join(queueDir, 'jobs.out'), '{"jobs": []}\n');
      writeFileSync(join(queueDir, 'ids.txt'), '');
      await applyMiniCluster(1);
      for (;;) {
        const pods = await targetClients.core.listNamespacedPod({ namespace });
        if (!pods.items.some((pod) => pod.spec?.hostname?.startsWith('burst-0-'))) break;
        await sleep(200);
      }
      await applyMiniCluster(STEADY_IDLE_SECONDS);
    }
    const seconds = (values: number[]) => values.map((ms) => Math.round(ms / 10) / 100);
    const median = (values: number[]) =>
      Math.round(([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0) / 10) / 100;
    const perCycle = (count: number) => Math.round((count / (3 * cycles)) * 100) / 100;
    process.stdout.write(
      `${JSON.stringify({
        mode: 'burst',
        target: remote ? 'second cluster (kubeconfig BurstTarget, its own operator)' : 'in-cluster',
        cycles,
        poll_seconds: pollMs / 1000,
        job_to_burst_pods_running_seconds: seconds(total),
        median_seconds: median(total),
        median_parts_seconds: {
          waiting_for_the_next_queue_read: median(pollWait),
          queue_read_to_burst_minicluster_created: median(readToCreated),
          created_to_pods_running: median(createdToRunning),
        },
        steady_state_per_poll_cycle: {
          queue_reads: perCycle(steadySnapshots),
          operator_writes: perCycle(steadyWrites),
          ...(remote ? { target_operator_writes: perCycle(remoteSteadyWrites) } : {}),
          other_reads: '1 status read of each burst MiniCluster',
        },
      })}\n`,
    );
  } finally {
    await manager.stop();
    await remote?.stop();
    await clients.core.deleteNamespace({ name: namespace }).catch(() => undefined);
    rmSync(queueDir, { recursive: true, force: true });
  }
}
