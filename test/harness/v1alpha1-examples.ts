// e2e helpers for the Go Flux Operator's own v1alpha1 e2e suite (`examples/tests/*` of its repository
// at the last commit with v1alpha1): its files are read at test time from the archive in the deps
// folder (never copied into this project), and its MiniClusters are placed on the real node.
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
import { archivedMiniClusterManifests, type ExampleManifest } from './example-archive.ts';
import { FLUX_IMAGE, ON_REAL_NODE } from './real-node.ts';

const run = promisify(execFile);

const ARCHIVE = 'flux-operator-v1alpha1-examples.tar.gz';
/** Where the suite lives inside the archive. */
const TESTS_DIR = 'flux-operator-v1alpha1/examples/tests';

/** Where the examples live inside the archive. */
const EXAMPLES_DIR = 'flux-operator-v1alpha1/examples';

export type { ExampleManifest } from './example-archive.ts';

/** Every MiniCluster manifest of the Go operator's v1alpha1 examples/. */
export function exampleMiniClusterManifests(): Promise<ExampleManifest[]> {
  return archivedMiniClusterManifests(ARCHIVE, EXAMPLES_DIR);
}

/** One file of `examples/tests/<example>/`, streamed out of the archive (tar fails when it is absent). */
export async function readExampleFile(example: string, file: string): Promise<string> {
  const { stdout } = await run('tar', ['-xzOf', depsFile(ARCHIVE), `${TESTS_DIR}/${example}/${file}`], {
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

/**
 * The image to run instead of `image`: no registry is reachable here, so none of the suite's images
 * (ghcr.io/flux-framework/..., ghcr.io/rse-ops/..., nginx) can be pulled and every one becomes the
 * local Flux image.
 */
export function localImageFor(image: string): string {
  return image.startsWith('localhost/') ? image : FLUX_IMAGE;
}

/**
 * The lead pod's log the example's test expects (its test.out.correct). The Go operator ran its
 * containers with a TTY, so the logs it recorded end their lines in CRLF; these pods have none.
 */
export async function expectedLog(example: string): Promise<string> {
  return (await readExampleFile(example, 'test.out.correct')).replaceAll('\r\n', '\n');
}

type Manifest = { metadata: Record<string, unknown>; spec: Record<string, unknown> };

/**
 * The example's MiniCluster as its test applies it, changed only where this cluster needs it: in the
 * scenario's namespace (also in the DNS names of its own broker.toml, which name the namespace the
 * Go suite ran in), every image the local one, and its pods on the real node (the real node's
 * nodeSelector and toleration added to whatever pod settings it has).
 */
export async function exampleMiniCluster(
  example: string,
  namespace: string,
): Promise<Record<string, unknown>> {
  const manifest = parse(await readExampleFile(example, 'minicluster.yaml')) as Manifest;
  const original = String(manifest.metadata.namespace);
  manifest.metadata.namespace = namespace;
  const flux = manifest.spec.flux as Record<string, unknown> | undefined;
  if (typeof flux?.brokerConfig === 'string') {
    flux.brokerConfig = flux.brokerConfig.replaceAll(`.${original}.svc.`, `.${namespace}.svc.`);
  }
  const containers = manifest.spec.containers as Record<string, unknown>[];
  manifest.spec.containers = containers.map((container) => ({
    ...container,
    image: localImageFor(String(container.image)),
  }));
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

/** The example's MiniCluster name (all of the suite's are `flux-sample`). */
export function nameOf(miniCluster: Record<string, unknown>): string {
  return String((miniCluster.metadata as Record<string, unknown>).name);
}

/**
 * What `examples/tests/volumes/pre-run.sh` prepares (the suite's `data/pancakes.txt` in minikube's
 * /tmp/data): a host folder of this machine, the real node's host, holding it; removed at the test's
 * end. Its path replaces the example's `spec.volumes.data.path`.
 */
export async function provideHostData(t: TestContext): Promise<string> {
  const folder = await mkdtemp(path.join(tmpdir(), 'flux-v1alpha1-volume-'));
  t.after(() => rm(folder, { recursive: true, force: true }));
  await chmod(folder, 0o755);
  await writeFile(path.join(folder, 'pancakes.txt'), await readExampleFile('data', 'pancakes.txt'));
  return folder;
}

/**
 * What `examples/tests/existing-volumes/pre-run.sh` prepares before its MiniCluster: the suite's
 * `data/pancakes.txt` in a host folder (minikube's /tmp/data there; here a folder of this machine, the
 * real node's host), its pv.yaml over that folder and its pvc.yaml (the claim `data`) in the
 * scenario's namespace. The volume is named after the namespace (volumes are cluster-wide), bound to
 * that claim only and kept on release (Delete needs a provisioner for host paths); the test's end
 * deletes it and the folder.
 */
export async function provideExistingVolume(
  t: TestContext,
  clients: ApiClients,
  namespace: string,
): Promise<void> {
  const folder = await mkdtemp(path.join(tmpdir(), 'flux-v1alpha1-data-'));
  t.after(() => rm(folder, { recursive: true, force: true }));
  // The flux user lists it (minikube's /tmp/data is world-readable too).
  await chmod(folder, 0o755);
  await writeFile(path.join(folder, 'pancakes.txt'), await readExampleFile('data', 'pancakes.txt'));

  const claim = parse(await readExampleFile('existing-volumes', 'pvc.yaml')) as V1PersistentVolumeClaim;
  const claimName = String(claim.metadata?.name);
  const volume = parse(await readExampleFile('existing-volumes', 'pv.yaml')) as V1PersistentVolume;
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
