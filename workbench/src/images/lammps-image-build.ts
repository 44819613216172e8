// Builds the LAMMPS image with REAXFF (lammps-image.ts) once per recipe into
// <cache>/images/lammps-reaxff-<key>/: LAMMPS by hack/build-lammps.sh (cached per source version and build
// options, about 20 minutes on 2 cores the first time), the root file system from mmdebstrap with it copied
// in, one layer packed with our image writer; and checks it in a chroot (hack/check-lammps-image-rootfs.sh:
// REAXFF listed, LJ melt and the HNS example on 2 ranks).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { runHackScript, type Progress } from '../tooling/hack-script.ts';
import { findProjectRoot } from '../tooling/project.ts';
import { ensureImageBuild, imageCacheDir, imageOf, readImageBuild, stepTimer } from './cached-build.ts';
import type { BuiltImage, ImageBuildOptions, ImageBuildRecord } from './cached-build.ts';
import { checkImageInChroot } from './chroot-check.ts';
import { buildDebianFolderImage } from './folder-image-build.ts';
import {
  LAMMPS_BUILD_SCRIPT,
  LAMMPS_REAXFF_PROGRAM,
  lammpsFolderImage,
  lammpsImageKey,
  lammpsImageRecipe,
} from './lammps-image.ts';
import type { LammpsImageRecipe } from './lammps-image.ts';

export const lammpsProgress: Progress = (line) => process.stderr.write(`[lammps-image] ${line}\n`);

export type LammpsImage = BuiltImage;

export interface LammpsImageBuild extends ImageBuildRecord {
  /** The LAMMPS build it holds: its cache folder's name (`<Debian source version>-<options key>`). */
  lammps: string;
}

export type EnsureLammpsImageOptions = ImageBuildOptions;

/** The recipe of this tree: the build script as it is. */
export function currentLammpsImageRecipe(root: string = findProjectRoot()): LammpsImageRecipe {
  return lammpsImageRecipe(readFileSync(path.join(root, LAMMPS_BUILD_SCRIPT), 'utf8'));
}

export function lammpsImageDir(recipe: LammpsImageRecipe, env: NodeJS.ProcessEnv = process.env): string {
  return imageCacheDir(`lammps-reaxff-${lammpsImageKey(recipe)}`, env);
}

export function readLammpsImageBuild(dir: string): LammpsImageBuild | undefined {
  return readImageBuild<LammpsImageBuild>(dir);
}

/** The image of the current recipe when it is built, without building anything. */
export function cachedLammpsImage(options: { env?: NodeJS.ProcessEnv } = {}): LammpsImage | undefined {
  const build = readLammpsImageBuild(lammpsImageDir(currentLammpsImageRecipe(), options.env));
  return build === undefined ? undefined : imageOf(build);
}

/** The image's build record, building what the cache lacks (as root). One build per recipe at a time. */
export async function ensureLammpsImageBuild(
  options: EnsureLammpsImageOptions = {},
): Promise<LammpsImageBuild> {
  const progress = options.progress ?? lammpsProgress;
  const recipe = currentLammpsImageRecipe();
  const dir = lammpsImageDir(recipe, options.env);
  return ensureImageBuild<LammpsImageBuild>({
    dir,
    what: `the LAMMPS image ${recipe.reference}`,
    progress,
    env: options.env ?? process.env,
    build: (env) => buildLammpsImage(recipe, dir, env, progress),
  });
}

export async function ensureLammpsImage(options: EnsureLammpsImageOptions = {}): Promise<LammpsImage> {
  return imageOf(await ensureLammpsImageBuild(options));
}

async function buildLammpsImage(
  recipe: LammpsImageRecipe,
  dir: string,
  env: NodeJS.ProcessEnv,
  progress: Progress,
): Promise<LammpsImageBuild> {
  const timer = stepTimer();
  progress(`building ${recipe.reference} (${path.basename(dir)})`);
  const lammpsRoot = await timer.timed('lammps', async () => {
    const built = await runHackScript('build-lammps.sh', [], { progress, env });
    if (!existsSync(path.join(built, LAMMPS_REAXFF_PROGRAM))) {
      throw new Error(
        `hack/build-lammps.sh printed ${JSON.stringify(built)}, which has no ${LAMMPS_REAXFF_PROGRAM.slice(1)}`,
      );
    }
    return built;
  });
  const lammps = path.basename(path.dirname(lammpsRoot));
  const image = lammpsFolderImage(recipe, { lammps, lammpsRoot });
  return { lammps, ...(await buildDebianFolderImage(image, { dir, env, progress, timer })) };
}

/**
 * Unpacks the image archive into a temporary folder and runs hack/check-lammps-image-rootfs.sh there (as
 * root, in a chroot): bash and no Flux, lmp's shared libraries, REAXFF among its packages, LJ melt and the
 * HNS example (`-v x 1 -v y 1 -v z 1`) on 2 ranks with mpirun. Returns the check's output; throws when a
 * check fails.
 */
export async function checkLammpsImage(
  archive: string,
  options: EnsureLammpsImageOptions = {},
): Promise<string> {
  return checkImageInChroot({
    prefix: 'lammps-image-check-',
    script: 'check-lammps-image-rootfs.sh',
    archive,
    args: (rootfs) => [rootfs],
    progress: options.progress ?? lammpsProgress,
    env: options.env ?? process.env,
  });
}
