// The Flux queue reader through the real exec path: a pod on the local control plane, and a kwok Exec
// that runs the snapshot script on this machine with a fake `flux` (test/fixtures/flux-queue/bin/flux)
// first on PATH, answering from a scripted queue.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ExecFluxQueueReader, FluxQueueReadError } from '../../src/burst/flux-queue-exec.ts';
import type { QueueSnapshot } from '../../src/burst/queue.ts';
import { cluster, waitFor, withNamespace } from '../harness/cluster.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/flux-queue/', import.meta.url));
const FAKE_FLUX_BIN = join(FIXTURES, 'bin');
const QUEUE = join(FIXTURES, 'queue');
const CONTAINER = 'flux-sample';
const FLUX_URI = 'local:///run/flux/local';
const BASE_PATH = '/usr/local/bin:/usr/bin:/bin';

/** A Running pod `flux-sample-0` (the lead broker's name in a MiniCluster) in a fresh namespace. */
async function leadPod(t: TestContext): Promise<{ namespace: string; pod: string }> {
  const namespace = await withNamespace(t, 'fq');
  const { core } = await cluster();
  const pod = 'flux-sample-0';
  await core.createNamespacedPod({
    namespace,
    body: {
      metadata: { name: pod, labels: { app: 'flux-sample' } },
      spec: {
        containers: [{ name: CONTAINER, image: 'ghcr.io/converged-computing/flux-view-ubuntu:jammy' }],
      },
    },
  });
  await waitFor(
    async () => (await core.readNamespacedPod({ name: pod, namespace })).status?.phase === 'Running',
    { what: `pod ${namespace}/${pod} Running`, timeoutMs: 30_000 },
  );
  return { namespace, pod };
}

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'flux-queue-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A kwok Exec making `exec` into the pod's container run locally, in `workDir`, with `env`. */
async function execLocally(namespace: string, pod: string, workDir: string, env: Record<string, string>) {
  const { objects } = await cluster();
  await objects.create({
    apiVersion: 'kwok.x-k8s.io/v1alpha1',
    kind: 'Exec',
    metadata: { name: pod, namespace },
    spec: {
      execs: [
        {
          containers: [CONTAINER],
          local: { workDir, envs: Object.entries(env).map(([name, value]) => ({ name, value })) },
        },
      ],
    },
  } as never);
}

async function reader(namespace: string, pod: string, timeoutMs = 10_000): Promise<ExecFluxQueueReader> {
  const { kc } = await cluster();
  return new ExecFluxQueueReader({
    kubeConfig: kc,
    namespace,
    podName: pod,
    container: CONTAINER,
    fluxUri: FLUX_URI,
    timeoutMs,
    now: () => new Date('2026-01-01T12:00:00Z'),
  });
}

/** kwok picks a new Exec up from a watch: until then exec says `no exec found`. */
function stillUnconfigured(err: unknown): boolean {
  return err instanceof FluxQueueReadError && /no exec found/.test(err.message);
}

/** The reader's error once kwok serves the Exec. */
async function readError(r: ExecFluxQueueReader): Promise<FluxQueueReadError> {
  return waitFor(
    async () => {
      try {
        await r.snapshot();
      } catch (err) {
        if (stillUnconfigured(err)) return false;
        if (err instanceof FluxQueueReadError) return err;
        throw err;
      }
      throw new Error('snapshot succeeded, expected an error');
    },
    { what: 'the Exec to be served', timeoutMs: 20_000, intervalMs: 300 },
  );
}

const EXPECTED: QueueSnapshot = {
  takenAt: new Date('2026-01-01T12:00:00Z'),
  jobs: [
    {
      id: 'fXPqVWUVP',
      state: 'SCHED',
      nnodes: 4,
      ntasks: 4,
      ncores: 0,
      burstable: true,
      name: 'burst-job',
      submittedAt: 1767229600,
    },
    {
      id: 'f2ahuK1vwXS',
      state: 'SCHED',
      nnodes: 3,
      ntasks: 6,
      ncores: 6,
      burstable: true,
      name: 'mpi-app',
      submittedAt: 1767925600,
    },
    {
      id: 'fY9uc2DEA',
      state: 'SCHED',
      nnodes: 0,
      ntasks: 8,
      ncores: 8,
      burstable: false,
      name: 'hostname',
      submittedAt: 1767229700,
    },
    {
      id: 'fV7d9yGH6',
      state: 'RUN',
      nnodes: 1,
      ntasks: 2,
      ncores: 2,
      burstable: false,
      name: 'sleep',
      submittedAt: 1767229300,
      ranks: [2],
    },
    {
      id: 'fUMZ3TXYK',
      state: 'RUN',
      nnodes: 2,
      ntasks: 2,
      ncores: 16,
      burstable: false,
      name: 'sleep',
      submittedAt: 1767229200,
      ranks: [0, 1],
    },
  ],
  nodes: { up: 4, free: 1 },
  // The fixture's flux resource list and status: rank 2 is draining while its job runs.
  ranks: { up: [0, 1, 2, 3], allocated: [0, 1, 2], down: [], drained: [], draining: [2] },
};

test('snapshot of a scripted queue through kubectl-exec into the lead pod', async (t) => {
  const { namespace, pod } = await leadPod(t);
  const work = tempDir(t);
  const log = join(work, 'flux-calls.log');
  await execLocally(namespace, pod, work, {
    PATH: `${FAKE_FLUX_BIN}:${BASE_PATH}`,
    FAKE_FLUX_DIR: QUEUE,
    FAKE_FLUX_LOG: log,
  });
  const r = await reader(namespace, pod);
  const snapshot = await waitFor(
    async () => {
      try {
        return await r.snapshot();
      } catch (err) {
        if (stillUnconfigured(err)) return false;
        throw err;
      }
    },
    { what: 'a snapshot', timeoutMs: 20_000, intervalMs: 300 },
  );
  assert.deepEqual(snapshot, EXPECTED);
  // One exec ran the whole script: four listings, then one jobspec per SCHED/RUN job, all with FLUX_URI.
  const calls = readFileSync(log, 'utf8').trimEnd().split('\n');
  assert.deepEqual(calls, [
    `${FLUX_URI} jobs --user=all --filter=pending,running --json`,
    `${FLUX_URI} jobs --user=all --filter=sched,run --no-header --format={id.f58plain}`,
    `${FLUX_URI} resource list --states=up,down,allocated --no-header --format={state} {nnodes} {ranks}`,
    `${FLUX_URI} resource status --states=drain --no-header --format={state} {ranks}`,
    ...EXPECTED.jobs.map((job) => `${FLUX_URI} job info ${job.id} jobspec`),
  ]);
});

test('a pod without an Exec: ExecFailed saying so', async (t) => {
  const { namespace, pod } = await leadPod(t);
  const r = await reader(namespace, pod);
  const err = await r.snapshot().then(
    () => assert.fail('snapshot succeeded without an Exec'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof FluxQueueReadError, String(err));
  assert.equal(err.reason, 'ExecFailed');
  assert.match(err.message, /no exec found for container/);
  assert.match(err.message, new RegExp(`${namespace}/${pod}`));
});

test('a missing pod: PodNotFound', async (t) => {
  const namespace = await withNamespace(t, 'fq');
  const r = await reader(namespace, 'flux-sample-0');
  const err = await r.snapshot().then(
    () => assert.fail('snapshot succeeded without a pod'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof FluxQueueReadError, String(err));
  assert.equal(err.reason, 'PodNotFound');
  assert.equal(err.message, `pod ${namespace}/flux-sample-0 not found`);
});

test('flux failing in the pod: FluxUnavailable with its error output', async (t) => {
  const { namespace, pod } = await leadPod(t);
  const work = tempDir(t);
  await execLocally(namespace, pod, work, {
    PATH: `${FAKE_FLUX_BIN}:${BASE_PATH}`,
    FAKE_FLUX_DIR: QUEUE,
    FAKE_FLUX_EXIT: '1',
  });
  const err = await readError(await reader(namespace, pod));
  assert.equal(err.reason, 'FluxUnavailable');
  assert.equal(err.exitCode, 69);
  assert.match(
    err.message,
    /Unable to connect to Flux: broker socket local:\/\/\/run\/flux\/local was not found/,
  );
  assert.match(err.message, /flux jobs --json failed \(exit 1\)/);
});

test('no flux command in the pod: FluxUnavailable', async (t) => {
  const { namespace, pod } = await leadPod(t);
  await execLocally(namespace, pod, tempDir(t), { PATH: BASE_PATH });
  const err = await readError(await reader(namespace, pod));
  assert.equal(err.reason, 'FluxUnavailable');
  assert.match(err.message, /flux: command not found/);
});

test('a queue script killed by a signal: ExecFailed saying how it ended, without the script text', async (t) => {
  const { namespace, pod } = await leadPod(t);
  const work = tempDir(t);
  // A `flux` that kills its parent shell: the script never reaches its own error handling.
  const bin = join(work, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'flux'), '#!/bin/sh\nkill -9 $PPID\n', { mode: 0o755 });
  await execLocally(namespace, pod, work, { PATH: `${bin}:${BASE_PATH}` });
  const err = await readError(await reader(namespace, pod));
  assert.equal(err.reason, 'ExecFailed');
  assert.equal(err.exitCode, undefined);
  assert.match(err.message, /cmd wait: sh -c <flux-queue script>: signal: killed$/);
  assert.doesNotMatch(err.message, /set -u/);
});

test('a flux that hangs: Timeout within the timeout plus 2 s', async (t) => {
  const { namespace, pod } = await leadPod(t);
  await execLocally(namespace, pod, tempDir(t), {
    PATH: `${FAKE_FLUX_BIN}:${BASE_PATH}`,
    FAKE_FLUX_DIR: QUEUE,
    FAKE_FLUX_SLEEP: '20',
  });
  const timeoutMs = 2_000;
  const r = await reader(namespace, pod, timeoutMs);
  const durations: number[] = [];
  const err = await waitFor(
    async () => {
      const started = Date.now();
      try {
        await r.snapshot();
      } catch (e) {
        durations.push(Date.now() - started);
        if (stillUnconfigured(e)) return false;
        return e;
      }
      throw new Error('snapshot succeeded, expected a timeout');
    },
    { what: 'the Exec to be served', timeoutMs: 20_000, intervalMs: 300 },
  );
  assert.ok(err instanceof FluxQueueReadError, String(err));
  assert.equal(err.reason, 'Timeout');
  assert.match(err.message, /did not finish within 2000 ms/);
  const took = durations.at(-1) ?? Infinity;
  assert.ok(took >= timeoutMs - 50 && took <= timeoutMs + 2_000, `took ${took} ms`);
});

test('garbage from flux: BadOutput naming what was wrong', async (t) => {
  const { namespace, pod } = await leadPod(t);
  const work = tempDir(t);
  const queue = join(work, 'queue');
  cpSync(QUEUE, queue, { recursive: true });
  writeFileSync(join(queue, 'jobs.out'), 'Traceback (most recent call last):\n  oops\n');
  await execLocally(namespace, pod, work, { PATH: `${FAKE_FLUX_BIN}:${BASE_PATH}`, FAKE_FLUX_DIR: queue });
  const err = await readError(await reader(namespace, pod));
  assert.equal(err.reason, 'BadOutput');
  assert.match(err.message, /^queue script in .*flux-sample-0 container flux-sample: snapshot: not JSON/);

  // Well-formed JSON with a mistyped field names the job and the field.
  writeFileSync(
    join(queue, 'jobs.out'),
    JSON.stringify({ jobs: [{ id: 1, jobid: 'f2', state: 'SCHED', nnodes: 'four' }] }),
  );
  const second = await readError(await reader(namespace, pod));
  assert.equal(second.reason, 'BadOutput');
  assert.match(
    second.message,
    /snapshot\.jobs: jobs\[0\]\.nnodes: expected a non-negative integer, got string "four"/,
  );
});
