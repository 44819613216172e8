// The Go Flux Operator's own v1alpha2 manifests (`examples/` of its repository at the commit in the
// deps folder, e2e suite `examples/tests/*` included), read at test time from the archive, never
// copied into this project.
import { archivedMiniClusterManifests, type ExampleManifest } from './example-archive.ts';

const ARCHIVE = 'flux-operator-go-0d75cef8.tar.gz';
const EXAMPLES_DIR = 'flux-operator-0d75cef8/examples';

let cached: Promise<ExampleManifest[]> | undefined;

/** Every MiniCluster manifest of the archive's examples/ (read once). */
export function goV1alpha2ExampleManifests(): Promise<ExampleManifest[]> {
  cached ??= archivedMiniClusterManifests(ARCHIVE, EXAMPLES_DIR);
  return cached;
}

/** The e2e suite's manifests: `tests/<case>/minicluster.yaml`. */
export async function goV1alpha2TestManifests(): Promise<ExampleManifest[]> {
  return (await goV1alpha2ExampleManifests()).filter((manifest) =>
    /^tests\/[^/]+\/minicluster\.yaml$/.test(manifest.path),
  );
}
