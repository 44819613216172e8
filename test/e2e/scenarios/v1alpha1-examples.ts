// The Go operator's own v1alpha1 e2e manifests (examples/tests/* at its last v1alpha1 commit), read
// from ../shared/deps at test time: each one this project accepts and whose command runs on the Flux
// image is applied as its test applies it (only the namespace, the images and the real node's
// placement changed) and must reach the state its test expects: Succeeded, with the lead pod's log
// equal to test.out.correct where there is one (the Go suite diffs the whole `kubectl logs` of the
// lead pod with it, which its `logging.quiet` keeps to the program's output; CRLF aside, see
// expectedLog).
//
// Of the 18 entries of examples/tests, the 9 without a scenario here, and why:
// - batch: accepted; its `flux batch` output lands on its hostpath volume, and it has no
//   test.out.correct to compare with (volumes, whose does, covers spec.volumes here).
// - snakemake: accepted; needs snakemake and a workflow cloned from GitHub.
// - nginx-service: accepted (its nginx runs in the services pod); needs the nginx image and curl
//   installed with apt-get (no network here). test/e2e/scenarios/services.ts runs the same shape
//   with a python3 HTTP server on the Flux image.
// - osu-benchmarks: refused, invalid YAML (the key `command` set twice in one container); it also needs
//   the OSU micro-benchmarks built with Open MPI (spack).
// - lammps: accepted; needs LAMMPS (`lmp`) and its reaxff example inputs, not in the Flux image.
// - pokemon: accepted; needs the `pokemon` Python package, not in the Flux image.
// - singularity: accepted; needs Singularity and `singularity pull docker://ubuntu` (a registry).
// - nginx-sidecar-service: accepted; needs an nginx sidecar answering on port 80 (the Flux image in
//   its place serves nothing) and curl installed with apt-get (no network here).
// - data: not a test; the pancakes.txt that volumes and existing-volumes mount.
import assert from 'node:assert/strict';
import { it, type TestContext } from 'node:test';
import type { MiniClusterStatus } from '../../../src/api/index.ts';
import type { ApiClients } from '../../../src/kube/api-clients.ts';
import { waitFor } from '../../harness/cluster.ts';
import { applyMiniCluster, conditionOf, readStatus } from '../../harness/operator.ts';
import { leadLog, scenario } from '../../harness/real-node.ts';
import {
  exampleMiniCluster,
  expectedLog,
  nameOf,
  provideExistingVolume,
  provideHostData,
} from '../../harness/v1alpha1-examples.ts';

/** Waits until the MiniCluster finished, one way or the other, and returns its status. */
async function finished(clients: ApiClients, namespace: string, name: string): Promise<MiniClusterStatus> {
  return waitFor(
    async () => {
      const status = await readStatus(clients, namespace, name);
      const done = ['Succeeded', 'Failed'].some((type) => conditionOf(status, type)?.status === 'True');
      return done ? status : false;
    },
    { what: `${namespace}/${name} to succeed or fail`, timeoutMs: 300_000, intervalMs: 1_000 },
  );
}

/**
 * Applies the example's MiniCluster in a scenario of its own, waits until it finished, asserts that it
 * succeeded and returns the lead pod's log.
 */
async function runExample(
  t: TestContext,
  example: string,
  prepare?: (clients: ApiClients, namespace: string) => Promise<void>,
  adjust?: (miniCluster: Record<string, unknown>) => void,
  /** The example mounts a directory of the node: its namespace is allowed host storage. */
  hostStorage = false,
): Promise<string> {
  const { namespace, clients } = await scenario(t, `v1a-${example}`, { hostStorage });
  await prepare?.(clients, namespace);
  const miniCluster = await exampleMiniCluster(example, namespace);
  adjust?.(miniCluster);
  const name = nameOf(miniCluster);
  await applyMiniCluster(clients, miniCluster);
  const status = await finished(clients, namespace, name);
  assert.equal(status.summary, 'Succeeded', JSON.stringify(status.conditions));
  return leadLog(clients, namespace, name);
}

export function v1alpha1ExampleScenarios(): void {
  // minimal-service: only the lead broker has a DNS name; the 4 brokers still make one instance.
  for (const example of ['hello-world', 'post', 'minimal-service']) {
    it(`v1alpha1 examples/tests/${example}: succeeds; the quiet lead log is test.out.correct`, async (t) => {
      const log = await runExample(t, example);
      assert.equal(log, await expectedLog(example));
    });
  }

  it('v1alpha1 examples/tests/existing-volumes: succeeds; lists the claim its pre-run made, as test.out.correct', async (t) => {
    const log = await runExample(t, 'existing-volumes', (clients, namespace) =>
      provideExistingVolume(t, clients, namespace),
    );
    assert.equal(log, await expectedLog('existing-volumes'));
  });

  it('v1alpha1 examples/tests/volumes: succeeds; its hostpath spec.volumes entry shows the host folder, as test.out.correct', async (t) => {
    const folder = await provideHostData(t);
    const log = await runExample(
      t,
      'volumes',
      undefined,
      (miniCluster) => {
        // minikube's /tmp/data there; the folder the test made here.
        const spec = miniCluster.spec as { volumes: { data: { path: string } } };
        spec.volumes.data.path = folder;
      },
      true,
    );
    assert.equal(log, await expectedLog('volumes'));
  });

  it('v1alpha1 examples/tests/flux-resource-list: succeeds; each of the 4 tasks lists the 4 brokers', async (t) => {
    const log = await runExample(t, 'flux-resource-list');
    // Quiet: nothing but the four tables, each with the 4 brokers up (free or allocated) and none down.
    // The four tasks print at the same time, so their lines may interleave: count them by kind.
    const lines = log.trimEnd().split('\n');
    const kinds = {
      header: /^ +STATE NNODES NCORES NGPUS NODELIST$/,
      free: /^ +free +4 +\d+ +0 flux-sample-\[0-3\]$/,
      allocated: /^ +allocated +4 +4 +0 flux-sample-\[0-3\]$/,
      down: /^ +down +0 +0 +0 *$/,
    };
    const counts = Object.fromEntries(
      Object.entries(kinds).map(([kind, pattern]) => [
        kind,
        lines.filter((line) => pattern.test(line)).length,
      ]),
    );
    assert.deepEqual(counts, { header: 4, free: 4, allocated: 4, down: 4 }, log);
    assert.equal(lines.length, 16, log);
  });

  it('v1alpha1 examples/tests/timed: succeeds; the quiet lead log is the output and the timing', async (t) => {
    const log = await runExample(t, 'timed');
    assert.match(log, /^hello world\n\nreal\t\d+m[\d.]+s\nuser\t\d+m[\d.]+s\nsys\t\d+m[\d.]+s\n$/, log);
  });

  it('v1alpha1 examples/tests/debug: succeeds; the entrypoint traces its commands around the output', async (t) => {
    const log = await runExample(t, 'debug');
    assert.match(log, /^hello world$/m, log);
    assert.match(log, /^\+ runuser -u flux -- .*flux start /m, log);
  });

  it('v1alpha1 examples/tests/custom-config: succeeds with its own broker.toml and CURVE certificate', async (t) => {
    const log = await runExample(t, 'custom-config');
    assert.match(log, /^hello world$/m, log);
    // Its broker.toml was the one Flux read: all 4 listed brokers came online through its flux-service.
    assert.match(log, /broker\.info\[0\]: online: flux-sample-\[0-3\] \(ranks 0-3\)$/m, log);
  });
}
