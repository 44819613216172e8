// Autoscaling and scale-in against the real API server (docs/elastic.md): kwok pods, whose `exec` runs
// the operator's real snapshot script here against a scripted Flux (test/fixtures/flux-queue/bin/flux),
// through the real exec path. What Flux itself does is the e2e suite's (test/e2e/scenarios/autoscale.ts).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ApiClients } from '../../src/kube/api-clients.ts';
import { cluster, waitFor, withNamespace } from '../harness/cluster.ts';
import { applyMiniCluster, miniClusterObject, podsOf, startOperator } from '../harness/operator.ts';
import {
  asV1alpha2,
  readStatusV1alpha2 as readStatus,
  scaleV1alpha2 as scaleMiniCluster,
  specSizeV1alpha2 as specSize,
} from '../harness/minicluster-v1alpha2.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/flux-queue/', import.meta.url));

interface ListedJob {
  id: number;
  state: string;
  nnodes: number;
  ranks?: string;
}

/** A scripted Flux instance: its jobs, its resources, and a log of every flux command run. */
class ScriptedFlux {
  readonly dir: string;
  readonly log: string;
  constructor(t: TestContext) {
    const root = mkdtempSync(join(tmpdir(), 'autoscale-queue-'));
    t.after(() => rmSync(root, { recursive: true, force: true }));
    this.dir = join(root, 'queue');
    this.log = join(root, 'calls');
    mkdirSync(join(this.dir, 'jobspec'), { recursive: true });
    this.set([], { up: '0', down: '', allocated: '' });
  }
  /** The queue: jobs (no jobspecs: none is burstable) and ranks per state, as idsets. */
  set(jobs: ListedJob[], ranks: { up: string; down: string; allocated: string }): void {
    const count = (idset: string) =>
      idset === ''
        ? 0
        : idset.split(',').reduce((sum, term) => {
            const [lo, hi] = term.split('-').map(Number);
            return sum + (hi === undefined ? 1 : hi - (lo ?? 0) + 1);
          }, 0);
    writeFileSync(join(this.dir, 'jobs.out'), `${JSON.stringify({ jobs })}\n`);
    writeFileSync(join(this.dir, 'ids.txt'), '');
    writeFileSync(
      join(this.dir, 'resources.txt'),
      ['up', 'down', 'allocated']
        .map((state) => {
          const idset = ranks[state as keyof typeof ranks];
          return `${state} ${count(idset)} ${idset}\n`;
        })
        .join(''),
    );
  }
  calls(): string[] {
    return existsSync(this.log) ? readFileSync(this.log, 'utf8').trim().split('\n') : [];
  }
}

/** Makes `exec` into `pod` run here, with the scripted flux first on PATH. */
async function serve(namespace: string, pod: string, container: string, flux: ScriptedFlux): Promise<void> {
  const { objects } = await cluster();
  await objects.create({
    apiVersion: 'kwok.x-k8s.io/v1alpha1',
    kind: 'Exec',
    metadata: { name: pod, namespace },
    spec: {
      execs: [
        {
          containers: [container],
          local: {
            workDir: flux.dir,
            envs: [
              { name: 'PATH', value: `${join(FIXTURES, 'bin')}:/usr/local/bin:/usr/bin:/bin` },
              { name: 'FAKE_FLUX_DIR', value: flux.dir },
              { name: 'FAKE_FLUX_LOG', value: flux.log },
            ],
          },
        },
      ],
    },
  } as never);
}

async function leadPod(clients: ApiClients, namespace: string, name: string): Promise<string> {
  const pod = await waitFor(
    async () =>
      (await podsOf(clients, namespace, name)).find(
        (candidate) => candidate.spec?.hostname === `${name}-0` && candidate.status?.phase === 'Running',
      ),
    { what: `the lead pod of ${name} running`, timeoutMs: 60_000 },
  );
  return pod.metadata?.name ?? '';
}

async function jobSize(clients: ApiClients, namespace: string, name: string): Promise<number | undefined> {
  const job = await clients.batch.readNamespacedJob({ name, namespace });
  return job.spec?.parallelism;
}

async function eventReasons(clients: ApiClients, namespace: string): Promise<string[]> {
  return (await clients.events.listNamespacedEvent({ namespace })).items.map((event) => event.reason ?? '');
}

/**
 * Waits until the namespace has an event of every reason given: the operator posts a step's events
 * after the status that step wrote, so a status seen does not mean its event is there yet.
 */
async function waitForEvents(clients: ApiClients, namespace: string, ...wanted: string[]): Promise<void> {
  let seen: string[] = [];
  await waitFor(
    async () => {
      seen = await eventReasons(clients, namespace);
      return wanted.every((reason) => seen.includes(reason));
    },
    { what: `events ${wanted.join(', ')}`, timeoutMs: 10_000 },
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}; the events seen: ${seen.join(', ')}`);
  });
}

async function setup(t: TestContext, prefix: string) {
  const namespace = await withNamespace(t, prefix);
  const operator = await startOperator(namespace);
  t.after(() => operator.stop());
  return { namespace, clients: operator.clients, flux: new ScriptedFlux(t) };
}

const waiting = (id: number): ListedJob => ({ id, state: 'SCHED', nnodes: 1 });

describe('autoscale', () => {
  it('grows for jobs waiting on nodes, then drains and removes the brokers idle for idleSeconds', async (t) => {
    const { namespace, clients, flux } = await setup(t, 'autoscale');
    flux.set([waiting(1), waiting(2), waiting(3), waiting(4)], { up: '0', down: '1-3', allocated: '' });
    await applyMiniCluster(
      clients,
      asV1alpha2(
        miniClusterObject(namespace, 'auto', {
          size: 1,
          maxSize: 4,
          interactive: true,
          autoscale: { pollSeconds: 1, idleSeconds: 2 },
        }),
      ),
    );
    await serve(namespace, await leadPod(clients, namespace, 'auto'), 'auto', flux);

    // Four one-node jobs, one node free: 3 more brokers.
    await waitFor(async () => (await specSize(clients, namespace, 'auto')) === 4, {
      what: 'spec.size 4',
      timeoutMs: 30_000,
    });
    await waitFor(async () => (await jobSize(clients, namespace, 'auto')) === 4, { what: 'the Job at 4' });
    const grown = await waitFor(
      async () => {
        const status = await readStatus(clients, namespace, 'auto');
        return status.autoscale?.lastChange?.toSize === 4 ? status : false;
      },
      { what: 'status.autoscale.lastChange to 4' },
    );
    assert.equal(grown.autoscale?.lastChange?.reason, 'JobsWaiting');
    assert.match(
      grown.autoscale?.lastChange?.message ?? '',
      /4 jobs wait for 4 nodes \(1 free, 0 starting\): 1 -> 4/,
    );
    await waitForEvents(clients, namespace, 'AutoscaledUp');

    // The jobs ran and ended; all four brokers are up and idle: after idleSeconds, ranks 1-3 go,
    // drained first.
    flux.set([], { up: '0-3', down: '', allocated: '' });
    await waitFor(async () => (await jobSize(clients, namespace, 'auto')) === 1, {
      what: 'the Job back at 1',
      timeoutMs: 30_000,
    });
    assert.equal(await specSize(clients, namespace, 'auto'), 1);
    assert.ok(
      flux.calls().some((call) => / resource drain --update 1-3 /.test(call)),
      flux.calls().join('\n'),
    );
    const shrunk = await waitFor(
      async () => {
        const status = await readStatus(clients, namespace, 'auto');
        return status.autoscale?.lastChange?.reason === 'ScaleInDone' ? status : false;
      },
      { what: 'ScaleInDone in status' },
    );
    assert.equal(shrunk.autoscale?.drainedRanks, '1-3');
    assert.match(
      shrunk.autoscale?.lastChange?.message ?? '',
      /asked by the autoscaler: ranks 1-3 had no job for 2s/,
    );
    await waitForEvents(clients, namespace, 'AutoscaledDown', 'ScaleInDone');
  });

  it('a scale-in waits for the jobs on the ranks that go, is reported after drainSeconds, and a scale-up cancels it', async (t) => {
    const { namespace, clients, flux } = await setup(t, 'drain');
    const onBoth: ListedJob[] = [
      { id: 1, state: 'RUN', nnodes: 1, ranks: '0' },
      { id: 2, state: 'RUN', nnodes: 1, ranks: '1' },
    ];
    flux.set(onBoth, { up: '0-1', down: '', allocated: '0-1' });
    await applyMiniCluster(
      clients,
      asV1alpha2(
        miniClusterObject(namespace, 'drain', {
          size: 2,
          maxSize: 2,
          interactive: true,
          autoscale: { pollSeconds: 1, idleSeconds: 3600, drainSeconds: 2 },
        }),
      ),
    );
    await serve(namespace, await leadPod(clients, namespace, 'drain'), 'drain', flux);
    await waitFor(
      async () => (await readStatus(clients, namespace, 'drain')).autoscale?.queue?.running === 2,
      {
        what: 'the queue read',
        timeoutMs: 30_000,
      },
    );

    await scaleMiniCluster(clients, namespace, 'drain', 1);
    const timedOut = await waitFor(
      async () => {
        const status = await readStatus(clients, namespace, 'drain');
        const condition = status.conditions?.find((c) => c.type === 'Draining');
        return condition?.reason === 'DrainTimedOut' ? { status, condition } : false;
      },
      { what: 'Draining DrainTimedOut', timeoutMs: 30_000 },
    );
    assert.equal(timedOut.condition.status, 'True');
    assert.match(
      timedOut.condition.message,
      /not done within drainSeconds \(2s\), not forced: waiting for jobs f3 on ranks 1/,
    );
    assert.equal(timedOut.status.autoscale?.scaleIn?.toSize, 1);
    assert.equal(await jobSize(clients, namespace, 'drain'), 2);
    await waitForEvents(clients, namespace, 'DrainTimedOut');

    // Asked for 2 again: rank 1 is undrained and the scale-in is over.
    await scaleMiniCluster(clients, namespace, 'drain', 2);
    const cancelled = await waitFor(
      async () => {
        const status = await readStatus(clients, namespace, 'drain');
        const condition = status.conditions?.find((c) => c.type === 'Draining');
        return condition?.status === 'False' ? { status, condition } : false;
      },
      { what: 'Draining False', timeoutMs: 30_000 },
    );
    assert.equal(cancelled.condition.reason, 'Cancelled');
    assert.equal(cancelled.status.autoscale?.drainedRanks, undefined);
    assert.equal(cancelled.status.autoscale?.scaleIn, undefined);
    assert.ok(
      flux.calls().some((call) => / resource undrain --update 1 /.test(call)),
      flux.calls().join('\n'),
    );

    // The job on rank 1 ends: the next scale-in finishes at once.
    flux.set([onBoth[0] as ListedJob], { up: '0-1', down: '', allocated: '0' });
    await scaleMiniCluster(clients, namespace, 'drain', 1);
    await waitFor(async () => (await jobSize(clients, namespace, 'drain')) === 1, {
      what: 'the Job at 1',
      timeoutMs: 30_000,
    });
  });

  it('a MiniCluster without autoscale is never read; its scale-in without Flux in the pods shrinks at once, saying so', async (t) => {
    const { namespace, clients, flux } = await setup(t, 'plain');
    await applyMiniCluster(
      clients,
      asV1alpha2(miniClusterObject(namespace, 'plain', { size: 2, maxSize: 2, interactive: true })),
    );
    const lead = await leadPod(clients, namespace, 'plain');
    await serve(namespace, lead, 'plain', flux);
    await waitFor(async () => (await readStatus(clients, namespace, 'plain')).summary === 'Ready', {
      what: 'Ready',
      timeoutMs: 30_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    assert.deepEqual(flux.calls(), []);

    // Asked for 1: read once (the drain rides on it) and, the queue free, shrunk.
    await scaleMiniCluster(clients, namespace, 'plain', 1);
    await waitFor(async () => (await jobSize(clients, namespace, 'plain')) === 1, {
      what: 'the Job at 1',
      timeoutMs: 30_000,
    });
    assert.ok(
      flux.calls().some((call) => / resource drain --update 1 /.test(call)),
      flux.calls().join('\n'),
    );

    // Another MiniCluster whose pods have no Flux (no kwok Exec: the exec is refused).
    await applyMiniCluster(
      clients,
      asV1alpha2(miniClusterObject(namespace, 'noflux', { size: 2, maxSize: 2, interactive: true })),
    );
    await waitFor(async () => (await readStatus(clients, namespace, 'noflux')).summary === 'Ready', {
      what: 'Ready',
      timeoutMs: 30_000,
    });
    await scaleMiniCluster(clients, namespace, 'noflux', 1);
    await waitFor(async () => (await jobSize(clients, namespace, 'noflux')) === 1, {
      what: 'the Job at 1',
      timeoutMs: 30_000,
    });
    const status = await waitFor(
      async () => {
        const read = await readStatus(clients, namespace, 'noflux');
        return read.autoscale?.lastChange ? read : false;
      },
      { what: 'lastChange of noflux' },
    );
    assert.equal(status.autoscale?.lastChange?.reason, 'ScaledInWithoutDrain');
    assert.match(status.autoscale?.lastChange?.message ?? '', /no Flux instance holds a job there/);
    await waitForEvents(clients, namespace, 'ScaledInWithoutDrain');
  });
});
