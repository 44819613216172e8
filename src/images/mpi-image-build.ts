// Builds the MPI application images (mpi-image.ts), each once per recipe into
// <cache>/images/<name>-<key>/: one layer from mmdebstrap, packed with our image writer; and checks one
// in a chroot (hack/check-mpi-image-rootfs.sh: its MPI program run on 2 ranks).
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { runCommand } from '../tooling/command.ts';
import type { Progress } from '../tooling/hack-script.ts';
import { cacheRoot } from '../tooling/project.ts';
import { ensureCachedBuild, readBuildRecord, stepTimer } from './cached-build.ts';
import { checkImageInChroot } from './chroot-check.ts';
import { writeDirectoryLayer } from './directory-layer.ts';
import { runMmdebstrap } from './debian-rootfs.ts';
import { archiveFileName, writeImageArchive } from './image-archive.ts';
import {
  MPI_FIXES,
  MPI_IMAGE_NAMES,
  mpiImageArgs,
  mpiImageHistory,
  mpiImageKey,
  mpiImageRecipe,
} from './mpi-image.ts';
import type { MpiImageName, MpiImageRecipe } from './mpi-image.ts';
import { applyRootfsFixes } from './rootfs-fixes.ts';

export const mpiProgress: Progress = (line) => process.stderr.write(`[mpi-images] ${line}\n`);

export interface MpiImage {
  reference: string;
  archive: string;
  imageId: string;
}

export interface MpiImageBuild extends MpiImage {
  key: string;
  name: MpiImageName;
  bytes: number;
  seconds: Record<string, number>;
  builtAt: string;
}

export type MpiImages = Record<MpiImageName, MpiImage>;

export interface EnsureMpiImagesOptions {
  progress?: Progress;
  env?: NodeJS.ProcessEnv;
}

export function mpiImageDir(recipe: MpiImageRecipe, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheRoot(env), 'images', `${recipe.name}-${mpiImageKey(recipe)}`);
}

export function readMpiImageBuild(dir: string): MpiImageBuild | undefined {
  return readBuildRecord<MpiImageBuild>(dir, (record) => [record.archive]);
}

/** One MPI image's build record, building it first when the cache lacks it (as root, a few minutes). */
export async function ensureMpiImageBuild(
  name: MpiImageName,
  options: EnsureMpiImagesOptions = {},
): Promise<MpiImageBuild> {
  const progress = options.progress ?? mpiProgress;
  const env = options.env ?? process.env;
  const recipe = mpiImageRecipe(name);
  const dir = mpiImageDir(recipe, env);
  return ensureCachedBuild<MpiImageBuild>({
    dir,
    what: `the MPI image ${recipe.reference}`,
    command: 'npm run images:flux',
    files: (record) => [record.archive],
    progress,
    env,
    build: (childEnv) => buildMpiImage(recipe, dir, childEnv, progress),
  });
}

/** Both MPI images, building what the cache lacks. */
export async function ensureMpiImages(options: EnsureMpiImagesOptions = {}): Promise<MpiImages> {
  const images = {} as MpiImages;
  for (const name of MPI_IMAGE_NAMES) {
    const { reference, archive, imageId } = await ensureMpiImageBuild(name, options);
    images[name] = { reference, archive, imageId };
  }
  return images;
}

/** The MPI images of the current recipes when both are built, without building anything. */
export function cachedMpiImages(options: { env?: NodeJS.ProcessEnv } = {}): MpiImages | undefined {
  const images = {} as MpiImages;
  for (const name of MPI_IMAGE_NAMES) {
    const build = readMpiImageBuild(mpiImageDir(mpiImageRecipe(name), options.env));
    if (build === undefined) return undefined;
    images[name] = { reference: build.reference, archive: build.archive, imageId: build.imageId };
  }
  return images;
}

async function buildMpiImage(
  recipe: MpiImageRecipe,
  dir: string,
  env: NodeJS.ProcessEnv,
  progress: Progress,
): Promise<MpiImageBuild> {
  const { seconds, timed, finish } = stepTimer();
  const work = path.join(dir, 'work');
  await runCommand('rm', ['-rf', '--one-file-system', work], { env });
  await mkdir(work, { recursive: true });
  const rootfs = path.join(work, 'rootfs');
  const layer = path.join(work, 'rootfs.tar');
  progress(
    `mmdebstrap: ${recipe.suite} with ${recipe.packages.join(', ')} and their dependencies (1-3 minutes here)`,
  );
  await timed('mmdebstrap', () => runMmdebstrap(mpiImageArgs(recipe, rootfs), recipe, { env, progress }));
  await applyRootfsFixes(rootfs, MPI_FIXES);
  await timed('layer', () => writeDirectoryLayer({ directory: rootfs, output: layer, owner: 'keep' }));
  const archive = path.join(dir, archiveFileName(recipe.reference));
  const res = await timed('pack', () =>
    writeImageArchive({
      reference: recipe.reference,
      layers: [layer],
      config: recipe.config,
      output: archive,
      history: [mpiImageHistory(recipe)],
    }),
  );
  const bytes = (await stat(archive)).size;
  await runCommand('rm', ['-rf', '--one-file-system', work], { env });
  const took = finish();
  progress(`${recipe.reference}: ${archive} (${(bytes / 2 ** 20).toFixed(0)} MiB) in ${took}`);
  return {
    key: mpiImageKey(recipe),
    name: recipe.name,
    reference: recipe.reference,
    archive,
    imageId: res.imageId,
    bytes,
    seconds,
    builtAt: new Date().toISOString(),
  };
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
