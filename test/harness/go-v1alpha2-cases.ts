// e2e helpers for the Go Flux Operator's v1alpha2 e2e suite (`examples/tests/*` of its repository at the
// commit in the deps folder): its files read at test time from the archive (never copied into this
// project), its MiniClusters changed only where this cluster needs it (the application image, the real
// node's placement, the namespace) and the data their pre-run scripts prepare made here.
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { promisify } from 'node:util';
import type { V1PersistentVolume, V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { parse } from 'yaml';
import type { ApiClients } from '../../src/kube/api-clients.ts';
import { depsFile } from '../../workbench/src/tooling/project.ts';
import { ON_REAL_NODE } from './real-node.ts';

const run = promisify(execFile);

const ARCHIVE = 'flux-operator-go-0d75cef8.tar.gz';
const TESTS_DIR = 'flux-operator-0d75cef8/examples/tests';
const EXPECTED_LOG = 'test.out.correct';
/** tar reads a 6 MB archive in well under a second; a hung one fails the test instead of stalling it. */
const TAR_TIMEOUT_MS = 60_000;

/** The namespace the Go suite ran its MiniClusters in (their manifests name none). */
const GO_SUITE_NAMESPACE = 'default';

/**
 * The cases whose script/check-output.sh compares the lead broker's log with their own
 * test.out.correct, as the archive holds them (test/unit/harness checks this against its listing). A
 * case that loses its file fails instead of passing without the comparison.
 */
export const GO_CASES_WITH_EXPECTED_LOG: readonly string[] = [
  'existing-volumes',
  'hello-world',
  'minimal-service',
  'nginx-sidecar-service',
  'pokemon',
  'post',
  'volumes',
];

/** What a case's lead log is compared with: its test.out.correct, or nothing, said so. */
export type GoExpectedLog =
  | { readonly kind: 'log'; readonly member: string; readonly text: string }
  | { readonly kind: 'none'; readonly reason: string };

/** One file of `examples/tests/<name>/`, streamed out of the archive (tar fails when it is absent). */
export async function readGoTestFile(
  name: string,
  file: string,
  archive: string = depsFile(ARCHIVE),
): Promise<string> {
  const { stdout } = await run('tar', ['-xzOf', archive, `${TESTS_DIR}/${name}/${file}`], {
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
    timeout: TAR_TIMEOUT_MS,
  });
  return stdout;
}

/** The cases that have a test.out.correct in the archive, from its listing, sorted. */
export async function goCasesWithExpectedLog(archive: string = depsFile(ARCHIVE)): Promise<string[]> {
  const { stdout } = await run('tar', ['-tzf', archive, TESTS_DIR], {
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
    timeout: TAR_TIMEOUT_MS,
  });
  const [prefix, suffix] = [`${TESTS_DIR}/`, `/${EXPECTED_LOG}`];
  return stdout
    .split('\n')
    .filter((line) => line.startsWith(prefix) && line.endsWith(suffix))
    .map((line) => line.slice(prefix.length, -suffix.length))
    .filter((name) => name !== '' && !name.includes('/'))
    .sort();
}

/**
 * The case's test.out.correct when GO_CASES_WITH_EXPECTED_LOG names it, failing with the case and the
 * archive member when it cannot be read; otherwise `none`, after checking that the archive has none
 * either. The Go suite's pods had a TTY: their logs end lines in CRLF.
 */
export async function expectedGoLog(
  name: string,
  archive: string = depsFile(ARCHIVE),
): Promise<GoExpectedLog> {
  const member = `${TESTS_DIR}/${name}/${EXPECTED_LOG}`;
  if (!GO_CASES_WITH_EXPECTED_LOG.includes(name)) {
    if ((await goCasesWithExpectedLog(archive)).includes(name)) {
      throw new Error(
        `examples/tests/${name} has ${member} in ${archive} but is not in GO_CASES_WITH_EXPECTED_LOG: add it there`,
      );
    }
    return {
      kind: 'none',
      reason: `examples/tests/${name} has no ${EXPECTED_LOG}: its log is compared with nothing`,
    };
  }
  let text: string;
  try {
    text = await readGoTestFile(name, EXPECTED_LOG, archive);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    const message = `examples/tests/${name} is expected to have ${member}, which cannot be read from ${archive}: ${why}`;
    throw new Error(message, { cause: error });
  }
  return { kind: 'log', member, text: text.replaceAll('\r\n', '\n') };
}

type Manifest = { metadata: Record<string, unknown>; spec: Record<string, unknown> };

/**
 * The case's MiniCluster as its test applies it, but in the scenario's namespace (also in the DNS
 * names of its own broker.toml), with `image` for every `ubuntu:*` container (the only images the
 * suite's cases use), and on the real node (its nodeSelector and toleration added).
 */
export async function goTestMiniCluster(
  name: string,
  namespace: string,
  image: string,
): Promise<Record<string, unknown>> {
  const manifest = parse(await readGoTestFile(name, 'minicluster.yaml')) as Manifest;
  manifest.metadata.namespace = namespace;
  const flux = manifest.spec.flux as Record<string, unknown> | undefined;
  if (typeof flux?.brokerConfig === 'string') {
    flux.brokerConfig = flux.brokerConfig.replaceAll(`.${GO_SUITE_NAMESPACE}.svc.`, `.${namespace}.svc.`);
  }
  const containers = manifest.spec.containers as Record<string, unknown>[];
  manifest.spec.containers = containers.map((container) =>
    String(container.image).startsWith('ubuntu:') ? { ...container, image } : container,
  );
  const pod = (manifest.spec.pod ?? {}) as Record<string, unknown>;
  manifest.spec.pod = {
    ...pod,
    nodeSelector: {
      ...(pod.nodeSelector as Record<string, string> | undefined),
      ...ON_REAL_NODE.nodeSelector,
    },
    tolerations: [...((pod.tolerations as unknown[] | undefined) ?? []), ...ON_REAL_NODE.tolerations],
  };
  return manifest as unknown as Record<string, unknown>;
}

/**
 * What `examples/tests/volumes/pre-run.sh` prepares (the suite's `data/pancakes.txt` in the node's
 * /data): a folder of this machine, the real node's host, holding it, removed at the test's end. Its
 * path replaces the hostPath `/data` of the case (this machine's /data belongs to no test).
 */
export async function provideHostData(t: TestContext): Promise<string> {
  const folder = await mkdtemp(path.join(tmpdir(), 'flux-v1alpha2-volume-'));
  t.after(() => rm(folder, { recursive: true, force: true }));
  await chmod(folder, 0o755);
  await writeFile(path.join(folder, 'pancakes.txt'), await readGoTestFile('data', 'pancakes.txt'));
  return folder;
}

/**
 * What `examples/tests/existing-volumes/pre-run.sh` prepares: `data/pancakes.txt` in a host folder
 * (minikube's /tmp/data there, a folder of this machine here), its pv.yaml over that folder and its
 * pvc.yaml (the claim `data`) in the scenario's namespace. The volume is named after the namespace
 * (volumes are cluster-wide), bound to that claim only and kept on release; the test's end deletes it
 * and the folder.
 */
export async function provideExistingVolume(
  t: TestContext,
  clients: ApiClients,
  namespace: string,
): Promise<void> {
  const folder = await mkdtemp(path.join(tmpdir(), 'flux-v1alpha2-data-'));
  t.after(() => rm(folder, { recursive: true, force: true }));
  await chmod(folder, 0o755);
  await writeFile(path.join(folder, 'pancakes.txt'), await readGoTestFile('data', 'pancakes.txt'));
  const claim = parse(await readGoTestFile('existing-volumes', 'pvc.yaml')) as V1PersistentVolumeClaim;
  const volume = parse(await readGoTestFile('existing-volumes', 'pv.yaml')) as V1PersistentVolume;
  const claimName = String(claim.metadata?.name);
  const volumeName = `${namespace}-${String(volume.metadata?.name)}`;
  const volumeSpec = volume.spec ?? {};
  await clients.core.createPersistentVolume({
    body: {
      ...volume,
      metadata: { name: volumeName },
      spec: {
        ...volumeSpec,
        persistentVolumeReclaimPolicy: 'Retain',
        hostPath: { ...volumeSpec.hostPath, path: folder },
        claimRef: { namespace, name: claimName },
      },
    },
  });
  t.after(async () => {
    await clients.core.deletePersistentVolume({ name: volumeName }).catch(() => undefined);
  });
  await clients.core.createNamespacedPersistentVolumeClaim({
    namespace,
    body: { ...claim, metadata: { ...claim.metadata, namespace } },
  });
}
