// flux-core built from source once per version (hack/build-flux-core.sh), for both the Flux view and the
// Flux images. It is configured with prefix /mnt/flux/view, the view's: flux-core compiles its paths in
// (its Python, module, exec and config folders), and the view only works at that prefix. The Flux images
// take a copy relocated to a prefix of the same length outside /mnt/flux (flux-image.ts, relocate.ts), so
// a first run builds flux-core once (about 9 minutes on 2 cores) rather than once per prefix.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { runHackScript, type Progress } from '../tooling/hack-script.ts';
import { cacheRoot } from '../tooling/project.ts';

/** flux-core's --prefix: where the view lives in an application container (the Flux images relocate it). */
export const FLUX_CORE_PREFIX = '/mnt/flux/view';

/**
 * How long hack/build-flux-core.sh takes on a fresh 2-core machine: the measure, 542 s for this
 * prefix (241 s in this machine's build record; 450 s for the /usr build the Flux images used to make). Counted once, for whichever
 * image builds it first.
 */
export const FLUX_CORE_BUILD_SECONDS = 540;

/** <cache>/flux-core/<version>-mnt-flux-view: the build's folder, as hack/build-flux-core.sh names it. */
export function fluxCoreDir(version: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(
    cacheRoot(env),
    'flux-core',
    `${version}-${FLUX_CORE_PREFIX.slice(1).replaceAll('/', '-')}`,
  );
}

/** The install's DESTDIR (it holds mnt/flux/view) when the cache has a complete build, else undefined. */
export function cachedFluxCore(version: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dir = fluxCoreDir(version, env);
  const root = path.join(dir, 'root');
  return existsSync(path.join(dir, 'complete')) &&
    existsSync(path.join(root, FLUX_CORE_PREFIX, 'bin', 'flux'))
    ? root
    : undefined;
}

/**
 * The install's DESTDIR, building flux-core first when the cache lacks it (as root: the build gives
 * itself PREFIX/bin/python3 in a mount namespace). hack/build-flux-core.sh takes a lock, so two images
 * asking at once build it once.
 */
export async function ensureFluxCore(options: {
  progress: Progress;
  env: NodeJS.ProcessEnv;
}): Promise<string> {
  const built = await runHackScript('build-flux-core.sh', [FLUX_CORE_PREFIX], options);
  if (!existsSync(path.join(built, FLUX_CORE_PREFIX, 'bin', 'flux'))) {
    throw new Error(
      `hack/build-flux-core.sh ${FLUX_CORE_PREFIX} printed ${JSON.stringify(built)}, which has no ${FLUX_CORE_PREFIX.slice(1)}/bin/flux`,
    );
  }
  return built;
}
