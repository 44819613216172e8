// The MiniCluster manifests of a Go Flux Operator examples/ folder (v1alpha1's or v1alpha2's), read at
// test time from its archive in the deps folder, never copied into this project.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { depsFile } from '../../workbench/src/tooling/project.ts';

const run = promisify(execFile);

/** A file of the archive's examples/ folder whose text declares a MiniCluster. */
export interface ExampleManifest {
  /** Path under examples/, e.g. `tests/hello-world/minicluster.yaml`. */
  readonly path: string;
  readonly text: string;
}

/**
 * Every MiniCluster manifest under `examplesDir` of the deps folder's `archive` (a YAML file with a
 * top-level `kind: MiniCluster` line; its dist/ CRDs and the autoscalers that only name the kind are
 * not), read out of the archive into a temporary folder that is removed before this returns.
 */
export async function archivedMiniClusterManifests(
  archive: string,
  examplesDir: string,
): Promise<ExampleManifest[]> {
  const folder = await mkdtemp(path.join(tmpdir(), 'flux-operator-examples-'));
  try {
    await run('tar', ['-xzf', depsFile(archive), '-C', folder, examplesDir]);
    const root = path.join(folder, examplesDir);
    const files = (await readdir(root, { recursive: true })).filter((file) => /\.ya?ml$/.test(file)).sort();
    const manifests: ExampleManifest[] = [];
    for (const file of files) {
      const text = await readFile(path.join(root, file), 'utf8');
      if (/^kind: MiniCluster\s*$/m.test(text)) manifests.push({ path: file, text });
    }
    return manifests;
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
