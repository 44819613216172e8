// The Go Flux Operator's own v1alpha2 e2e cases (examples/tests/* of the archive in ../shared/deps, read
// at test time), run through the operator with real Flux from the view: each case's MiniCluster as its
// test applies it, only its `ubuntu:*` application image replaced by a plain image (bash and
// coreutils, no Flux, Python or munge: localhost/plain:bookworm, then localhost/plain:trixie) and its
// pods put on the real node. As the Go suite checks (script/check-output.sh): the MiniCluster
// succeeds, every container that ended exited 0, and the lead's log is test.out.correct where the case
// has one. The Flux view comes from the operator's setting (localhost/flux-view, the real node's).
//
// Of the archive's 19 cases, those not here: disable-view (needs Flux in its application image),
// flux-sidecar and nginx-sidecar-service/nginx-service (nginx images and curl from a registry),
// osu-benchmarks, pokemon, singularity, snakemake (software and downloads the plain images do not
// have); lammps runs on the LAMMPS with REAXFF built here (goLammpsScenarios); data holds the files the
// volume cases mount.
import assert from 'node:assert/strict';
import { it, type TestContext } from 'node:test';
import type { V1ContainerStatus } from '@kubernetes/client-node';
import type { MiniClusterStatus } from '../../../src/api/index.ts';
import { LAMMPS_HNS_DIR, LAMMPS_REAXFF_IMAGE } from '../../../workbench/src/images/index.ts';
import type { ApiClients } from '../../../src/kube/api-clients.ts';
import { waitFor } from '../../harness/cluster.ts';
import {
  expectedGoLog,
  goTestMiniCluster,
  provideExistingVolume,
  provideHostData,
} from '../../harness/go-v1alpha2-cases.ts';
import { applyMiniCluster, conditionOf, podsOf, readStatus } from '../../harness/operator.ts';
import { leadLog, scenario } from '../../harness/real-node.ts';

const PLAIN_IMAGES = ['localhost/plain:bookworm', 'localhost/plain:trixie'];
/** Every case's MiniCluster is named so. */
const NAME = 'flux-sample';

async function finished(clients: ApiClients, namespace: string): Promise<MiniClusterStatus> {
  return waitFor(
    async () => {
      const status = await readStatus(clients, namespace, NAME);
      const done = ['Succeeded', 'Failed'].some((type) => conditionOf(status, type)?.status === 'True');
      return done ? status : false;
    },
    { what: `${namespace}/${NAME} to succeed or fail`, timeoutMs: 300_000, intervalMs: 1_000 },
  );
}

/** Containers (init containers too) of the MiniCluster's pods that ended with another code than 0. */
async function failedContainers(clients: ApiClients, namespace: string): Promise<string[]> {
  const failed: string[] = [];
  for (const pod of await podsOf(clients, namespace, NAME)) {
    const statuses: V1ContainerStatus[] = [
      ...(pod.status?.initContainerStatuses ?? []),
      ...(pod.status?.containerStatuses ?? []),
    ];
    for (const status of statuses) {
      const code = status.state?.terminated?.exitCode;
      if (code !== undefined && code !== 0) failed.push(`${pod.metadata?.name}/${status.name}: ${code}`);
    }
  }
  return failed;
}

interface CaseRun {
  log: string;
}

/**
 * Runs one case in a scenario of its own with `image` as its application image: `prepare` makes its
 * data, `adjust` changes the manifest where this machine differs. Asserts what check-output.sh does.
 */
async function runCase(
  t: TestContext,
  name: string,
  image: string,
  options: {
    prepare?: (clients: ApiClients, namespace: string) => Promise<void>;
    adjust?: (miniCluster: Record<string, unknown>) => void;
    /** Names the scenario's namespace when the case runs more than once on one image. */
    variant?: string;
    /** More checks, once the MiniCluster has finished. */
    inspect?: (clients: ApiClients, namespace: string) => Promise<void>;
    /** The case mounts a directory of the node: its namespace is allowed host storage. */
    hostStorage?: boolean;
    /** The test says it compares the lead log with test.out.correct: the case must have one. */
    comparesLog?: boolean;
  } = {},
): Promise<CaseRun> {
  const suite = image.split(':').at(-1) ?? '';
  const variant = options.variant === undefined ? '' : `-${options.variant}`;
  const { namespace, clients } = await scenario(t, `v1a2-${suite}-${name}${variant}`, {
    hostStorage: options.hostStorage === true,
  });
  await options.prepare?.(clients, namespace);
  const miniCluster = await goTestMiniCluster(name, namespace, image);
  options.adjust?.(miniCluster);
  await applyMiniCluster(clients, miniCluster);
  const status = await finished(clients, namespace);
  assert.equal(status.summary, 'Succeeded', JSON.stringify(status.conditions));
  // The Flux container of the lead pod (the init container copied the view before it).
  const log = await leadLog(clients, namespace, NAME, NAME);
  assert.deepEqual(await failedContainers(clients, namespace), []);
  const expected = await expectedGoLog(name);
  if (options.comparesLog === true) assert.equal(expected.kind, 'log', `${name} has no test.out.correct`);
  if (expected.kind === 'log') assert.equal(log, expected.text, expected.member);
  else t.diagnostic(expected.reason);
  await options.inspect?.(clients, namespace);
  return { log };
}

/** The first container's `volumes` of a manifest. */
function volumesOf(miniCluster: Record<string, unknown>): Record<string, Record<string, unknown>> {
  const [container] = (
    miniCluster.spec as { containers: { volumes: Record<string, Record<string, unknown>> }[] }
  ).containers;
  assert.ok(container);
  return container.volumes;
}

export function goV1alpha2ExampleScenarios(): void {
  for (const image of PLAIN_IMAGES) {
    const on = `on ${image}`;
    for (const name of ['hello-world', 'post', 'minimal-service']) {
      it(`Go v1alpha2 examples/tests/${name} ${on}: succeeds; the lead log is test.out.correct`, async (t) => {
        await runCase(t, name, image, { comparesLog: true });
      });
    }

    it(`Go v1alpha2 examples/tests/debug ${on}: succeeds; the entrypoint traces its commands`, async (t) => {
      const { log } = await runCase(t, 'debug', image);
      assert.match(log, /^hello world$/m, log);
      // Run from the view by its name, as the container's own user: no runuser anywhere.
      assert.match(log, /^\+ flux start /m, log);
      assert.doesNotMatch(log, /runuser|useradd/, log);
    });

    it(`Go v1alpha2 examples/tests/timed ${on}: succeeds; the quiet lead log is the output and the timing`, async (t) => {
      const { log } = await runCase(t, 'timed', image);
      assert.match(log, /^hello world\n\nreal\t\d+m[\d.]+s\nuser\t\d+m[\d.]+s\nsys\t\d+m[\d.]+s\n$/, log);
    });

    it(`Go v1alpha2 examples/tests/custom-config ${on}: succeeds with its own broker.toml and certificate`, async (t) => {
      const { log } = await runCase(t, 'custom-config', image);
      assert.match(log, /^hello world$/m, log);
    });

    it(`Go v1alpha2 examples/tests/flux-resource-list ${on}: succeeds; each of the 4 tasks lists the 4 brokers`, async (t) => {
      const { log } = await runCase(t, 'flux-resource-list', image);
      // The four tasks print at once: their lines may interleave, so they are counted by kind.
      const lines = log.trimEnd().split('\n');
      const count = (pattern: RegExp) => lines.filter((line) => pattern.test(line)).length;
      assert.equal(count(/^ +STATE NNODES +NCORES +NGPUS NODELIST$/), 4, log);
      assert.equal(count(/^ +allocated +4 +4 +0 flux-sample-\[0-3\]$/), 4, log);
      assert.equal(count(/^ +down +0 +0 +0 *$/), 4, log);
    });

    it(`Go v1alpha2 examples/tests/batch ${on}: succeeds; its jobs wrote their output where the post hook lists it`, async (t) => {
      const { log } = await runCase(t, 'batch', image);
      // The post hook lists /tmp/fluxout (the data volume) of the lead pod: the output and errors of
      // the jobs that ran there (each job writes them on the broker it ran on).
      assert.match(log, /^job-\d\.out$/m, log);
      assert.match(log, /^job-\d\.err$/m, log);
    });

    it(`Go v1alpha2 examples/tests/emptydir ${on}: succeeds; /dev/shm is the memory-backed emptyDir`, async (t) => {
      const { log } = await runCase(t, 'emptydir', image);
      assert.match(log, /^tmpfs +\S+ +\S+ +\S+ +\d+% \/dev\/shm$/m, log);
    });

    it(`Go v1alpha2 examples/tests/volumes ${on}: succeeds; its hostPath volume shows what pre-run put there`, async (t) => {
      const folder = await provideHostData(t);
      await runCase(t, 'volumes', image, {
        hostStorage: true,
        adjust: (miniCluster) => {
          const data = volumesOf(miniCluster).data;
          assert.equal(data?.hostPath, '/data');
          // The node's /data there: a folder the test made here.
          if (data) data.hostPath = folder;
        },
      });
    });

    it(`Go v1alpha2 examples/tests/existing-volumes ${on}: succeeds; lists the claim its pre-run made`, async (t) => {
      await runCase(t, 'existing-volumes', image, {
        prepare: (clients, namespace) => provideExistingVolume(t, clients, namespace),
      });
    });
  }
}

/** The stand-in of the Go operator's view images: this project's view laid out as a Spack view. */
const SPACK_VIEW_IMAGE = 'localhost/flux-view-spack-layout:0.88.0';

/**
 * A case with the view of the Go operator's layout as its flux.container.image (what users' manifests
 * name, ghcr.io/converged-computing/flux-view-*, cannot be pulled here; the stand-in has their layout:
 * docs/flux-view.md). Its Flux loads libzmq from /opt/software only, so it succeeds only when the init
 * container copied /opt/software and the entrypoint put it back.
 */
export function goSpackViewScenarios(): void {
  const image = 'localhost/plain:bookworm';
  it(`Go v1alpha2 examples/tests/hello-world with the Spack-layout view ${SPACK_VIEW_IMAGE} on ${image}: succeeds; the lead log is test.out.correct`, async (t) => {
    await runCase(t, 'hello-world', image, {
      variant: 'spack',
      comparesLog: true,
      adjust: (miniCluster) => {
        const spec = miniCluster.spec as { flux?: Record<string, unknown> };
        spec.flux = { ...spec.flux, container: { image: SPACK_VIEW_IMAGE } };
      },
      inspect: async (clients, namespace) => {
        const copy = await leadLog(clients, namespace, NAME, 'flux-view');
        assert.match(
          copy,
          /^flux-view-init: copied the Spack view \/opt\/views\/\._view\/[a-z2-7]{32} of localhost\/flux-view-spack-layout:0\.88\.0 to \/mnt\/flux\/view and \/opt\/software to \/mnt\/flux\/software$/m,
          copy,
        );
      },
    });
  });
}

/**
 * flux.container.medium: Memory: the view (and a Spack view's software) in a memory volume of its own,
 * for both layouts. The init container's log says it copied into a volume of its own, which it says
 * only when the folder is another file system than the shared volume (the kubelet's tmpfs mount).
 */
export function goMemoryViewScenarios(): void {
  const image = 'localhost/plain:bookworm';
  const inMemory = (viewImage?: string) => (miniCluster: Record<string, unknown>) => {
    const spec = miniCluster.spec as { flux?: Record<string, unknown> };
    spec.flux = {
      ...spec.flux,
      container: { ...(viewImage === undefined ? {} : { image: viewImage }), medium: 'Memory' },
    };
  };
  it(`Go v1alpha2 examples/tests/hello-world with the view in memory on ${image}: succeeds; the lead log is test.out.correct`, async (t) => {
    await runCase(t, 'hello-world', image, {
      variant: 'memory',
      comparesLog: true,
      adjust: inMemory(),
      inspect: async (clients, namespace) => {
        const copy = await leadLog(clients, namespace, NAME, 'flux-view');
        assert.match(
          copy,
          /^flux-view-copy: copied the Flux view to its own volume at \/mnt\/flux\/view in \d+ s \(\d+ MiB\)$/m,
          copy,
        );
      },
    });
  });

  it(`Go v1alpha2 examples/tests/hello-world with the Spack-layout view in memory on ${image}: succeeds; the lead log is test.out.correct`, async (t) => {
    await runCase(t, 'hello-world', image, {
      variant: 'spack-memory',
      comparesLog: true,
      adjust: inMemory(SPACK_VIEW_IMAGE),
      inspect: async (clients, namespace) => {
        const copy = await leadLog(clients, namespace, NAME, 'flux-view');
        assert.match(
          copy,
          /^flux-view-init: copied the Spack view \/opt\/views\/\._view\/[a-z2-7]{32} of localhost\/flux-view-spack-layout:0\.88\.0 to \/mnt\/flux\/view and \/opt\/software to \/mnt\/flux\/software, each into a volume of its own$/m,
          copy,
        );
      },
    });
  });
}

/**
 * The Go suite's LAMMPS case as written (`lmp -v x 2 -v y 2 -v z 2 -in in.reaxc.hns -nocite`, ReaxFF,
 * size 4, 2 tasks, quiet), on the LAMMPS with REAXFF built here (its image,
 * ghcr.io/converged-computing/metric-lammps, cannot be pulled here); its workingDir, that image's
 * /opt/lammps/examples/reaxff/HNS, is where Debian's lammps-examples put the same files.
 */
export function goLammpsScenarios(): void {
  it(`Go v1alpha2 examples/tests/lammps on ${LAMMPS_REAXFF_IMAGE}: succeeds; ReaxFF HNS on 2 procs`, async (t) => {
    const { log } = await runCase(t, 'lammps', LAMMPS_REAXFF_IMAGE, {
      adjust: (miniCluster) => {
        const [container] = (miniCluster.spec as { containers: Record<string, unknown>[] }).containers;
        assert.ok(container);
        assert.equal(container.workingDir, '/opt/lammps/examples/reaxff/HNS');
        assert.equal(container.command, 'lmp -v x 2 -v y 2 -v z 2 -in in.reaxc.hns -nocite');
        container.image = LAMMPS_REAXFF_IMAGE;
        container.workingDir = LAMMPS_HNS_DIR;
      },
    });
    assert.match(log, /^Loop time of [\d.]+ on 2 procs for \d+ steps with 2432 atoms$/m, log);
    t.diagnostic(/^Loop time of .*$/m.exec(log)?.[0] ?? '');
  });
}
