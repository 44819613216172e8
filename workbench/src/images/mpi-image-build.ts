// Builds the MPI application images (mpi-image.ts), each once per recipe into
// <cache>/images/<name>-<key>/: one layer from mmdebstrap, packed with our image writer; and checks one
// in a chroot (hack/check-mpi-image-rootfs.sh: its MPI program run on 2 ranks).
import type { Progress } from '../tooling/hack-script.ts';
import { cachedImageSet, ensureImageSet, imageCacheDir, readImageBuild } from './cached-build.ts';
import type { BuiltImage, ImageBuildOptions, ImageBuildRecord } from './cached-build.ts';
import { checkImageInChroot } from './chroot-check.ts';
import { ensureDebianFolderImage } from './folder-image-build.ts';
import { MPI_IMAGE_NAMES, mpiFolderImage, mpiImageKey, mpiImageRecipe } from './mpi-image.ts';
import type { MpiImageName, MpiImageRecipe } from './mpi-image.ts';

export const mpiProgress: Progress = (line) => process.stderr.write(`[mpi-images] ${line}\n`);

export type MpiImage = BuiltImage;

export interface MpiImageBuild extends ImageBuildRecord {
  name: MpiImageName;
}

export type MpiImages = Record<MpiImageName, MpiImage>;

export type EnsureMpiImagesOptions = ImageBuildOptions;

export function mpiImageDir(recipe: MpiImageRecipe, env: NodeJS.ProcessEnv = process.env): string {
  return imageCacheDir(`${recipe.name}-${mpiImageKey(recipe)}`, env);
}

export function readMpiImageBuild(dir: string): MpiImageBuild | undefined {
  return readImageBuild<MpiImageBuild>(dir);
}

/** One MPI image's build record, building it first when the cache lacks it (as root, a few minutes). */
export async function ensureMpiImageBuild(
  name: MpiImageName,
  options: EnsureMpiImagesOptions = {},
): Promise<MpiImageBuild> {
  const recipe = mpiImageRecipe(name);
  return ensureDebianFolderImage(mpiFolderImage(recipe), {
    dir: mpiImageDir(recipe, options.env),
    what: `the MPI image ${recipe.reference}`,
    fields: { name },
    progress: options.progress ?? mpiProgress,
    env: options.env,
  });
}

/** Both MPI images, building what the cache lacks. */
export async function ensureMpiImages(options: EnsureMpiImagesOptions = {}): Promise<MpiImages> {
  return ensureImageSet(MPI_IMAGE_NAMES, (name) => ensureMpiImageBuild(name, options));
}

/** The MPI images of the current recipes when both are built, without building anything. */
export function cachedMpiImages(options: { env?: NodeJS.ProcessEnv } = {}): MpiImages | undefined {
  return cachedImageSet(MPI_IMAGE_NAMES, (name) => mpiImageDir(mpiImageRecipe(name), options.env));
}

/**
 * Unpacks an MPI image archive into a temporary folder and runs hack/check-mpi-image-rootfs.sh there (as
 * root, in a chroot): no Flux, bash, shared libraries, then its program on 2 ranks (LAMMPS's melt example
 * with mpirun, or NetPIPE with mpiexec). Returns the check's output; throws when a check fails.
 */
export async function checkMpiImage(
  name: MpiImageName,
  archive: string,
  options: EnsureMpiImagesOptions = {},
): Promise<string> {
  return checkImageInChroot({
    prefix: 'mpi-image-check-',
    script: 'check-mpi-image-rootfs.sh',
    archive,
    args: (rootfs) => [name, rootfs],
    progress: options.progress ?? mpiProgress,
    env: options.env ?? process.env,
  });
}
