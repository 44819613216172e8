// The Go Flux Operator's own v1alpha2 manifests (`examples/` of its repository at the commit in the
// deps folder, e2e suite `examples/tests/*` included), read at test time from the archive, never
// copied into this project.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { depsFile } from '../../src/tooling/project.ts';

const run = promisify(execFile);

const ARCHIVE = 'flux-operator-go-0d75cef8.tar.gz';
const EXAMPLES_DIR = 'flux-operator-0d75cef8/examples';

/** A YAML file of the archive's examples/ folder that declares a MiniCluster. */
export interface GoExampleManifest {
  /** Path under examples/, e.g. `tests/hello-world/minicluster.yaml`. */
  readonly path: string;
  readonly text: string;
}

let cached: Promise<GoExampleManifest[]> | undefined;

/**
 * Every MiniCluster manifest of the archive's examples/ (a YAML file with a top-level
 * `kind: MiniCluster` line), read into a temporary folder that is removed before this returns.
 */
export function goV1alpha2ExampleManifests(): Promise<GoExampleManifest[]> {
  cached ??= (async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'flux-v1alpha2-examples-'));
    try {
      await run('tar', ['-xzf', depsFile(ARCHIVE), '-C', folder, EXAMPLES_DIR]);
      const root = path.join(folder, EXAMPLES_DIR);
      const files = (await readdir(root, { recursive: true })).filter((file) => /\.ya?ml$/.test(file)).sort();
      const manifests: GoExampleManifest[] = [];
      for (const file of files) {
        const text = await readFile(path.join(root, file), 'utf8');
        if (/^kind: MiniCluster\s*$/m.test(text)) manifests.push({ path: file, text });
      }
      return manifests;
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  })();
  return cached;
}

/** The e2e suite's manifests: `tests/<case>/minicluster.yaml`. */
export async function goV1alpha2TestManifests(): Promise<GoExampleManifest[]> {
  return (await goV1alpha2ExampleManifests()).filter((manifest) =>
    /^tests\/[^/]+\/minicluster\.yaml$/.test(manifest.path),
  );
}
