// Builds the Spack-layout stand-in of the Go operator's view images (spack-view.ts) once per recipe into
// <cache>/images/flux-view-spack-layout-<version>-<key>/, from two images already built here: the
// plain bookworm image (the base) and the Flux view image (the view). No download and no docker: both
// archives are unpacked, the view moved into place, and the result packed as one layer.
import { lstat, mkdir, rename, rm, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { runCommand } from '../tooling/command.ts';
import type { Progress } from '../tooling/hack-script.ts';
import { cacheRoot } from '../tooling/project.ts';
import { ensureCachedBuild, readBuildRecord, stepTimer } from './cached-build.ts';
import { writeDirectoryLayer } from './directory-layer.ts';
import { readFluxCoreVersion } from './flux-image.ts';
import { ensureFluxViewBuild } from './flux-view-build.ts';
import { FLUX_VIEW_SOURCE } from './flux-view.ts';
import { archiveFileName, writeImageArchive } from './image-archive.ts';
import { ensurePlainImageBuild } from './plain-image-build.ts';
import { spackViewKey, spackViewLayout, spackViewRecipe } from './spack-view.ts';
import type { SpackViewRecipe } from './spack-view.ts';
import { unpackImageArchive } from './unpack.ts';

export const spackViewProgress: Progress = (line) => process.stderr.write(`[flux-view-spack] ${line}\n`);

export interface SpackViewImage {
  reference: string;
  archive: string;
  imageId: string;
}

export interface SpackViewBuild extends SpackViewImage {
  key: string;
  /** The view's folder, /opt/views/._view/<hash>. */
  view: string;
  bytes: number;
  seconds: Record<string, number>;
  builtAt: string;
}

export function spackViewDir(recipe: SpackViewRecipe, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(
    cacheRoot(env),
    'images',
    `flux-view-spack-layout-${recipe.fluxCoreVersion}-${spackViewKey(recipe)}`,
  );
}

export interface EnsureSpackViewOptions {
  progress?: Progress;
  env?: NodeJS.ProcessEnv;
}

/** The stand-in's build record, building it (and the two images it is made of) when the cache lacks it. */
export async function ensureSpackViewBuild(options: EnsureSpackViewOptions = {}): Promise<SpackViewBuild> {
  const progress = options.progress ?? spackViewProgress;
  const env = options.env ?? process.env;
  const view = await ensureFluxViewBuild({ progress, env });
  const base = await ensurePlainImageBuild('bookworm', { progress, env });
  const recipe = spackViewRecipe(readFluxCoreVersion(), {
    viewImageId: view.imageId,
    baseImageId: base.imageId,
  });
  const dir = spackViewDir(recipe, env);
  return ensureCachedBuild<SpackViewBuild>({
    dir,
    what: `the Spack-layout view image ${recipe.reference}`,
    command: 'npm run images:flux',
    files: (record) => [record.archive],
    progress,
    env,
    build: (childEnv) =>
      buildSpackView(recipe, dir, { view: view.archive, base: base.archive }, childEnv, progress),
  });
}

export async function ensureSpackViewImage(options: EnsureSpackViewOptions = {}): Promise<SpackViewImage> {
  const { reference, archive, imageId } = await ensureSpackViewBuild(options);
  return { reference, archive, imageId };
}

/** `absolute` inside `rootfs`. */
function inside(rootfs: string, absolute: string): string {
  return path.join(rootfs, absolute.replace(/^\/+/, ''));
}

async function buildSpackView(
  recipe: SpackViewRecipe,
  dir: string,
  archives: { view: string; base: string },
  env: NodeJS.ProcessEnv,
  progress: Progress,
): Promise<SpackViewBuild> {
  const { seconds, timed, finish } = stepTimer();
  const layout = spackViewLayout(recipe);
  const work = path.join(dir, 'work');
  await rm(work, { recursive: true, force: true });
  const rootfs = path.join(work, 'rootfs');
  const viewImage = path.join(work, 'view-image');
  progress(`building ${recipe.reference}: the view of ${archives.view} as a Spack view at ${layout.view}`);
  await timed('unpack', async () => {
    await unpackImageArchive(archives.base, rootfs);
    await unpackImageArchive(archives.view, viewImage);
  });
  await timed('arrange', async () => {
    const view = inside(rootfs, layout.view);
    await mkdir(path.dirname(view), { recursive: true });
    await rename(inside(viewImage, FLUX_VIEW_SOURCE), view);
    await symlink(layout.view, inside(rootfs, layout.viewLink));
    for (const move of layout.moves) {
      const from = inside(rootfs, move.from);
      if (!(await lstat(from)).isFile()) throw new Error(`${move.from} of the view is not a regular file`);
      await mkdir(path.dirname(inside(rootfs, move.to)), { recursive: true });
      await rename(from, inside(rootfs, move.to));
      // As in a Spack view: the view's file is a link into /opt/software.
      await symlink(move.to, from);
    }
    await symlink(layout.shell.target, inside(rootfs, layout.shell.path));
  });
  const layer = path.join(work, 'rootfs.tar');
  await timed('layer', () => writeDirectoryLayer({ directory: rootfs, output: layer, owner: 'keep' }));
  const archive = path.join(dir, archiveFileName(recipe.reference));
  const res = await timed('pack', () =>
    writeImageArchive({
      reference: recipe.reference,
      layers: [layer],
      config: recipe.config,
      output: archive,
      history: [
        `localhost/plain:bookworm with /bin/sh, and the view of localhost/flux-view:${recipe.fluxCoreVersion} at ${layout.view} (${layout.moves.map((m) => m.to).join(', ')})`,
      ],
    }),
  );
  const bytes = (await stat(archive)).size;
  const took = finish();
  await runCommand('rm', ['-rf', '--one-file-system', work], { env });
  progress(`${recipe.reference}: ${archive} (${(bytes / 2 ** 20).toFixed(0)} MiB) built in ${took}`);
  return {
    key: spackViewKey(recipe),
    reference: recipe.reference,
    archive,
    imageId: res.imageId,
    view: layout.view,
    bytes,
    seconds,
    builtAt: new Date().toISOString(),
  };
}

export function readSpackViewBuild(dir: string): SpackViewBuild | undefined {
  return readBuildRecord<SpackViewBuild>(dir, (record) => [record.archive]);
}
