/**
 * `npm run bench -- --burst`: how long from a burstable job appearing in a MiniCluster's queue to its
 * burst MiniCluster's pods Running (in-cluster target, local control plane), and the API writes per
 * burst poll cycle once everything is steady (a busy burst refreshes lastBusyAt once a minute, so
 * about poll/60). `--poll-seconds N` sets the policy's pollSeconds (default 10), `--cycles N` (3).
 * One JSON line.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { API_VERSION, KIND } from '../../src/api/index.ts';
import { installCommand } from '../../src/cli/install-command.ts';
import { serverSideApply } from '../../src/controller/apply.ts';
import { BURST_POLL_MS } from '../../src/controller/burst-step.ts';
import { kubeClients, loadKubeConfig } from '../../src/controller/kube-clients.ts';
import { Manager } from '../../src/controller/manager.ts';
import { up } from '../../src/localcluster/index.ts';
import { createLogger } from '../../src/observability/logger.ts';

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

export async function burstBench(argv: readonly string[]): Promise<void> {
  const option = (name: string, fallback: number) =>
    argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) || fallback : fallback;
  const cycles = option('--cycles', 3);
  const pollMs = option('--poll-seconds', BURST_POLL_MS / 1000) * 1000;
  const { kubeconfig } = await up({ progress: (line) => process.stderr.write(`[bench] ${line}\n`) });
  await installCommand({ kubeconfig, log: () => undefined });
  const clients = kubeClients(loadKubeConfig(kubeconfig));
  const namespace = `bench-burst-${Date.now().toString(36)}`;
  await clients.core.createNamespace({ body: { metadata: { name: namespace } } });
  const queueDir = mkdtempSync(join(tmpdir(), 'bench-queue-'));
  mkdirSync(join(queueDir, 'jobspec'));
  cpSync(join(FIXTURES, 'queue/jobspec/fXPqVWUVP.out'), join(queueDir, 'jobspec/fXPqVWUVP.out'));
  writeFileSync(join(queueDir, 'resources.txt'), 'up 2 0-1\nallocated 0 \n');
  writeFileSync(join(queueDir, 'jobs.out'), '{"jobs": []}\n');
  writeFileSync(join(queueDir, 'ids.txt'), '');

  let writes = 0;
  const manager = new Manager({
    clients,
    log: createLogger({ level: 'warn', destination: process.stderr }),
    namespaces: [namespace],
    concurrency: 4,
    onWrite: () => (writes += 1),
  });
  await manager.start();
  try {
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
          apiVersion: API_VERSION,
          kind: KIND,
          metadata: { name: 'burst-local', namespace },
          spec: {
            size: 2,
            interactive: true,
            containers: [{ image: 'ghcr.io/flux-framework/flux-restful-api:latest', cores: 4 }],
            flux: {
              bursting: {
                clusters: [{ name: 'burst-0', size: 4 }],
                policy: { idleSeconds, pollSeconds: pollMs / 1000 },
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
              ],
            },
          },
        ],
      },
    } as never);
    await sleep(pollMs); // the first polls see an empty queue: the steady state before bursting

    const burstSeconds: number[] = [];
    let steadyWrites = 0;
    for (let cycle = 0; cycle < cycles; cycle++) {
      const started = performance.now();
      writeFileSync(join(queueDir, 'jobs.out'), `${JSON.stringify({ jobs: [JOB] })}\n`);
      writeFileSync(join(queueDir, 'ids.txt'), 'fXPqVWUVP\n');
      for (;;) {
        const pods = await clients.core.listNamespacedPod({ namespace });
        const running = pods.items.filter(
          (pod) => pod.spec?.hostname?.startsWith('burst-0-') && pod.status?.phase === 'Running',
        );
        if (running.length === 4) break;
        await sleep(50);
      }
      burstSeconds.push((performance.now() - started) / 1000);
      // Steady: the burst runs, the queue does not change; count writes over three poll cycles.
      await sleep(pollMs);
      const before = writes;
      await sleep(3 * pollMs);
      steadyWrites += writes - before;
      // Done: empty queue, wait for the burst to be removed before the next cycle.
      writeFileSync(join(queueDir, 'jobs.out'), '{"jobs": []}\n');
      writeFileSync(join(queueDir, 'ids.txt'), '');
      await applyMiniCluster(1);
      for (;;) {
        const pods = await clients.core.listNamespacedPod({ namespace });
        if (!pods.items.some((pod) => pod.spec?.hostname?.startsWith('burst-0-'))) break;
        await sleep(200);
      }
      await applyMiniCluster(STEADY_IDLE_SECONDS);
    }
    const sorted = [...burstSeconds].sort((a, b) => a - b);
    process.stdout.write(
      `${JSON.stringify({
        mode: 'burst',
        cycles,
        poll_seconds: pollMs / 1000,
        job_to_burst_pods_running_seconds: sorted.map((value) => Math.round(value * 100) / 100),
        median_seconds: Math.round((sorted[Math.floor(sorted.length / 2)] ?? 0) * 100) / 100,
        steady_state_writes_per_poll_cycle: Math.round((steadyWrites / (3 * cycles)) * 100) / 100,
        reads_per_poll_cycle: '1 exec into the lead pod + 1 status read per burst cluster',
      })}\n`,
    );
  } finally {
    await manager.stop();
    await clients.core.deleteNamespace({ name: namespace }).catch(() => undefined);
    rmSync(queueDir, { recursive: true, force: true });
  }
}
