// The Flux view image `npm run bench -- --view` measures: this tree's build, pinned on the real node
// under a tag of the run's own. The node is shared: another checkout's `cluster:up` loads its own view
// under localhost/flux-view:<version> at any time, and a run must not measure some samples with one
// view and some with another.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { FLUX_VIEW_REPOSITORY, ensureFluxViewBuild } from '../../workbench/src/images/index.ts';
import { stateDir } from '../../workbench/src/localcluster/index.ts';
import { realNodeLayout, realNodePaths } from '../../workbench/src/localcluster/real-node/config.ts';
import { loadIntoRealNode } from '../../workbench/src/localcluster/real-node/node.ts';
import type { Progress } from '../../workbench/src/tooling/hack-script.ts';

const run = promisify(execFile);
const CTR_TIMEOUT_MS = 30_000;
const ATTEMPTS = 3;

export interface PinnedViewImage {
  /** The run's own tag of the view image, for the operator's fluxViewImage. */
  reference: string;
  /** The view image's id (its config's digest). */
  imageId: string;
  /** Removes the run's tag (the image stays while the node's shared tag names it). */
  unpin(): Promise<void>;
}

async function ctr(args: string[]): Promise<string> {
  const socket = realNodePaths(realNodeLayout(stateDir())).containerdSocket;
  const { stdout } = await run('ctr', ['--address', socket, '--namespace', 'k8s.io', ...args], {
    encoding: 'utf8',
    timeout: CTR_TIMEOUT_MS,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

/** The image id `reference` names on the node, if it names one. */
async function imageIdOf(reference: string): Promise<string | undefined> {
  // REF TYPE DIGEST ..., DIGEST being the manifest's; the manifest names the config.
  const manifest = (await ctr(['images', 'list']))
    .split('\n')
    .map((line) => line.split(/\s+/))
    .find(([ref]) => ref === reference)?.[2];
  if (manifest === undefined) return undefined;
  const parsed = JSON.parse(await ctr(['content', 'get', manifest])) as { config?: { digest?: string } };
  return parsed.config?.digest;
}

/**
 * Loads this tree's view image into the real node (unless it is there) and tags it for the run, then
 * checks the tag names this image: another load may have moved the shared tag in between (tried again).
 */
export async function pinViewImage(progress: Progress): Promise<PinnedViewImage> {
  const build = await ensureFluxViewBuild({ progress });
  const reference = `${FLUX_VIEW_REPOSITORY}:bench-${build.imageId.replace(/^sha256:/, '').slice(0, 12)}`;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    await loadIntoRealNode(stateDir(), [build.archive], { progress });
    await ctr(['images', 'tag', '--force', build.reference, reference]);
    if ((await imageIdOf(reference)) === build.imageId) {
      return {
        reference,
        imageId: build.imageId,
        unpin: async () => {
          await ctr(['images', 'remove', reference]);
        },
      };
    }
    progress(
      `${build.reference} was replaced on the real node while tagging it; again (${attempt}/${ATTEMPTS})`,
    );
  }
  await ctr(['images', 'remove', reference]).catch(() => undefined);
  throw new Error(
    `could not pin ${build.reference} (${build.imageId}) on the real node: another load kept replacing it`,
  );
}
