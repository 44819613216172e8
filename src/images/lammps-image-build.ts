// Builds the LAMMPS image with REAXFF (lammps-image.ts) once per recipe into
// <cache>/images/lammps-reaxff-<key>/: LAMMPS by hack/build-lammps.sh (cached per source version and build
// options, about 20 minutes on 2 cores the first time), the root file system from mmdebstrap with it copied
// in, one layer packed with our image writer; and checks it in a chroot (hack/check-lammps-image-rootfs.sh:
// REAXFF listed, LJ melt and the HNS example on 2 ranks).
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { runCommand } from '../tooling/command.ts';
import { runHackScript, type Progress } from '../tooling/hack-script.ts';
import { cacheRoot, findProjectRoot } from '../tooling/project.ts';
import { ensureCachedBuild, readBuildRecord, stepTimer } from './cached-build.ts';
import { runChrootCheck } from './chroot-check.ts';
import { runMmdebstrap } from './debian-rootfs.ts';
import { writeDirectoryLayer } from './directory-layer.ts';
import { archiveFileName, writeImageArchive } from './image-archive.ts';
import {
  LAMMPS_BUILD_SCRIPT,
  LAMMPS_FIXES,
  LAMMPS_REAXFF_PROGRAM,
  lammpsImageArgs,
  lammpsImageHistory,
  lammpsImageKey,
  lammpsImageRecipe,
} from './lammps-image.ts';
import type { LammpsImageRecipe } from './lammps-image.ts';
import { applyRootfsFixes } from './rootfs-fixes.ts';
import { unpackImageArchive } from './unpack.ts';

export const lammpsProgress: Progress = (line) => process.stderr.write(`[lammps-image] ${line}\n`);

export interface LammpsImage {
  reference: string;
  archive: string;
  imageId: string;
}

export interface LammpsImageBuild extends LammpsImage {
  key: string;
  /** The LAMMPS build it holds: its cache folder's name (`<Debian source version>-<options key>`). */
  lammps: string;
  bytes: number;
  seconds: Record<string, number>;
  builtAt: string;
}

export interface EnsureLammpsImageOptions {
  progress?: Progress;
  env?: NodeJS.ProcessEnv;
}

/** The recipe of this tree: the build script as it is. */
export function currentLammpsImageRecipe(root: string = findProjectRoot()): LammpsImageRecipe {
  return lammpsImageRecipe(readFileSync(path.join(root, LAMMPS_BUILD_SCRIPT), 'utf8'));
}

export function lammpsImageDir(recipe: LammpsImageRecipe, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheRoot(env), 'images', `lammps-reaxff-${lammpsImageKey(recipe)}`);
}

export function readLammpsImageBuild(dir: string): LammpsImageBuild | undefined {
  return readBuildRecord<LammpsImageBuild>(dir, (record) => [record.archive]);
}

function imageOf(build: LammpsImageBuild): LammpsImage {
  return { reference: build.reference, archive: build.archive, imageId: build.imageId };
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
  const env = options.env ?? process.env;
  const recipe = currentLammpsImageRecipe();
  const dir = lammpsImageDir(recipe, env);
  return ensureCachedBuild<LammpsImageBuild>({
    dir,
    what: `the LAMMPS image ${recipe.reference}`,
    command: 'npm run images:flux',
    files: (record) => [record.archive],
    progress,
    env,
    build: (childEnv) => buildLammpsImage(recipe, dir, childEnv, progress),
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
  const { seconds, timed, finish } = stepTimer();
  progress(`building ${recipe.reference} (${path.basename(dir)})`);
  const lammpsRoot = await timed('lammps', async () => {
    const built = await runHackScript('build-lammps.sh', [], { progress, env });
    if (!existsSync(path.join(built, LAMMPS_REAXFF_PROGRAM))) {
      throw new Error(
        `hack/build-lammps.sh printed ${JSON.stringify(built)}, which has no ${LAMMPS_REAXFF_PROGRAM.slice(1)}`,
      );
    }
    return built;
  });
  const lammps = path.basename(path.dirname(lammpsRoot));

  const work = path.join(dir, 'work');
  await runCommand('rm', ['-rf', '--one-file-system', work], { env });
  await mkdir(work, { recursive: true });
  const rootfs = path.join(work, 'rootfs');
  const layer = path.join(work, 'rootfs.tar');
  progress(
    `mmdebstrap: ${recipe.suite} with ${recipe.packages.join(', ')} and their dependencies, and LAMMPS (1-3 minutes here)`,
  );
  await timed('mmdebstrap', () =>
    runMmdebstrap(lammpsImageArgs(recipe, { lammpsRoot, output: rootfs }), recipe, { env, progress }),
  );
  await applyRootfsFixes(rootfs, LAMMPS_FIXES);
  await timed('layer', () => writeDirectoryLayer({ directory: rootfs, output: layer, owner: 'keep' }));
  const archive = path.join(dir, archiveFileName(recipe.reference));
  const res = await timed('pack', () =>
    writeImageArchive({
      reference: recipe.reference,
      layers: [layer],
      config: recipe.config,
      output: archive,
      history: [lammpsImageHistory(recipe, lammps)],
    }),
  );
  const bytes = (await stat(archive)).size;
  await runCommand('rm', ['-rf', '--one-file-system', work], { env });
  const took = finish();
  progress(`${recipe.reference}: ${archive} (${(bytes / 2 ** 20).toFixed(0)} MiB) in ${took}`);
  return {
    key: lammpsImageKey(recipe),
    lammps,
    reference: recipe.reference,
    archive,
    imageId: res.imageId,
    bytes,
    seconds,
    builtAt: new Date().toISOString(),
  };
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
  const progress = options.progress ?? lammpsProgress;
  if (process.getuid?.() !== 0) throw new Error('the chroot check of an image needs root');
  return runChrootCheck({
    prefix: 'lammps-image-check-',
    script: 'check-lammps-image-rootfs.sh',
    prepare: async (work) => {
      const rootfs = path.join(work, 'rootfs');
      const t0 = Date.now();
      await unpackImageArchive(archive, rootfs);
      progress(
        `unpacked ${path.basename(archive)} in ${((Date.now() - t0) / 1000).toFixed(1)} s; checking it in a chroot`,
      );
      return [rootfs];
    },
    progress,
    env: options.env ?? process.env,
  });
}
