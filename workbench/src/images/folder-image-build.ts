// The build step of the images of one layer made from a root file system folder, in the recipe's cache
// folder (cached-build.ts) under work/: the folder packed, owners kept, as the layer of the image archive
// (the Spack-layout view); and, for the images made from Debian packages (the plain, MPI and LAMMPS
// images), the folder made by mmdebstrap and fixed (rootfs-fixes.ts) first, built once per recipe.
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { runCommand } from '../tooling/command.ts';
import type { Progress } from '../tooling/hack-script.ts';
import { ensureImageBuild, stepTimer } from './cached-build.ts';
import type { ImageBuildRecord, StepTimer } from './cached-build.ts';
import { runMmdebstrap } from './debian-rootfs.ts';
import type { DebianFolderImage } from './debian-rootfs.ts';
import { writeDirectoryLayer } from './directory-layer.ts';
import { archiveFileName, writeImageArchive } from './image-archive.ts';
import type { ImageConfig } from './image-archive.ts';
import { applyRootfsFixes } from './rootfs-fixes.ts';

/** What a folder image's build made: its build record but the recipe's key and fields. */
export type PackedImage = Omit<ImageBuildRecord, 'key'>;

/** An image of one layer. */
export interface FolderImage {
  reference: string;
  config: ImageConfig;
  /** The history line of its layer. */
  history: string;
}

export interface FolderImageBuild {
  /** The recipe's cache folder: the archive is written there. */
  dir: string;
  /** The build's work folder (freshWorkDir): it holds the layer, and goes once the archive is written. */
  work: string;
  /** The root file system folder to pack. */
  rootfs: string;
  /** The build's timer: its steps so far, and the total. */
  timer: StepTimer;
  env: NodeJS.ProcessEnv;
  progress: Progress;
}

/** `<dir>/work`, emptied (never descending into a mount) and made again. */
export async function freshWorkDir(dir: string, env: NodeJS.ProcessEnv): Promise<string> {
  const work = path.join(dir, 'work');
  await runCommand('rm', ['-rf', '--one-file-system', work], { env });
  await mkdir(work, { recursive: true });
  return work;
}

/**
 * Packs `build.rootfs` as the image's one layer (steps `layer` and `pack`) into <dir>/<archive name>,
 * removes the work folder and says what it made, with the time each step took.
 */
export async function packFolderImage(image: FolderImage, build: FolderImageBuild): Promise<PackedImage> {
  const { dir, work, rootfs, timer, env, progress } = build;
  const layer = path.join(work, 'rootfs.tar');
  await timer.timed('layer', () => writeDirectoryLayer({ directory: rootfs, output: layer, owner: 'keep' }));
  const archive = path.join(dir, archiveFileName(image.reference));
  const res = await timer.timed('pack', () =>
    writeImageArchive({
      reference: image.reference,
      layers: [layer],
      config: image.config,
      output: archive,
      history: [image.history],
    }),
  );
  const bytes = (await stat(archive)).size;
  await runCommand('rm', ['-rf', '--one-file-system', work], { env });
  const took = timer.finish();
  progress(`${image.reference}: ${archive} (${(bytes / 2 ** 20).toFixed(0)} MiB) in ${took}`);
  return {
    reference: image.reference,
    archive,
    imageId: res.imageId,
    bytes,
    seconds: timer.seconds,
    builtAt: new Date().toISOString(),
  };
}

/**
 * Builds a Debian image (as root) in `dir`: mmdebstrap makes its root file system folder (step
 * `mmdebstrap`), which gets the image's fixes and is packed as its one layer (packFolderImage). `timer`
 * is the build's when it has steps before this one. Returns the build's record.
 */
export async function buildDebianFolderImage(
  image: DebianFolderImage,
  build: { dir: string; env: NodeJS.ProcessEnv; progress: Progress; timer?: StepTimer },
): Promise<ImageBuildRecord> {
  const { recipe } = image;
  const { dir, env, progress } = build;
  const timer = build.timer ?? stepTimer();
  const work = await freshWorkDir(dir, env);
  const rootfs = path.join(work, 'rootfs');
  progress(`mmdebstrap: ${recipe.suite} with ${recipe.packages.join(', ')} ${image.expect}`);
  await timer.timed('mmdebstrap', () => runMmdebstrap(image.args(rootfs), recipe, { env, progress }));
  await applyRootfsFixes(rootfs, image.fixes);
  const packed = await packFolderImage(
    { reference: recipe.reference, config: recipe.config, history: image.history },
    { dir, work, rootfs, timer, env, progress },
  );
  return { key: image.key, ...packed };
}

/**
 * The build record of a Debian image whose recipe's cache folder is `cache.dir`, building it first when
 * the cache lacks it (buildDebianFolderImage); the record holds `cache.fields` too.
 */
export async function ensureDebianFolderImage<F extends object>(
  image: DebianFolderImage,
  cache: { dir: string; what: string; fields: F; progress: Progress; env?: NodeJS.ProcessEnv },
): Promise<ImageBuildRecord & F> {
  const { dir, progress } = cache;
  return ensureImageBuild<ImageBuildRecord & F>({
    dir,
    what: cache.what,
    progress,
    env: cache.env ?? process.env,
    build: async (env) => ({
      ...cache.fields,
      ...(await buildDebianFolderImage(image, { dir, env, progress })),
    }),
  });
}
