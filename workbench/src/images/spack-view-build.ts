// Builds the Spack-layout stand-in of the Go operator's view images (spack-view.ts) once per recipe into
// <cache>/images/flux-view-spack-layout-<version>-<key>/, from two images already built here: the
// plain bookworm image (the base) and the Flux view image (the view). No download and no docker: both
// archives are unpacked, the view moved into place, and the result packed as one layer.
import { lstat, mkdir, rename, symlink } from 'node:fs/promises';
import path from 'node:path';
import type { Progress } from '../tooling/hack-script.ts';
import { ensureImageBuild, imageCacheDir, imageOf, readImageBuild, stepTimer } from './cached-build.ts';
import type { BuiltImage, ImageBuildOptions, ImageBuildRecord } from './cached-build.ts';
import { readFluxCoreVersion } from './flux-image.ts';
import { ensureFluxViewBuild } from './flux-view-build.ts';
import { FLUX_VIEW_SOURCE } from './flux-view.ts';
import { freshWorkDir, packFolderImage } from './folder-image-build.ts';
import { ensurePlainImageBuild } from './plain-image-build.ts';
import { spackViewKey, spackViewLayout, spackViewRecipe } from './spack-view.ts';
import type { SpackViewRecipe } from './spack-view.ts';
import { unpackImageArchive } from './unpack.ts';

export const spackViewProgress: Progress = (line) => process.stderr.write(`[flux-view-spack] ${line}\n`);

export type SpackViewImage = BuiltImage;

export interface SpackViewBuild extends ImageBuildRecord {
  /** The view's folder, /opt/views/._view/<hash>. */
  view: string;
}

export function spackViewDir(recipe: SpackViewRecipe, env: NodeJS.ProcessEnv = process.env): string {
  return imageCacheDir(`flux-view-spack-layout-${recipe.fluxCoreVersion}-${spackViewKey(recipe)}`, env);
}

export type EnsureSpackViewOptions = ImageBuildOptions;

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
  return ensureImageBuild<SpackViewBuild>({
    dir,
    what: `the Spack-layout view image ${recipe.reference}`,
    progress,
    env,
    build: (childEnv) =>
      buildSpackView(recipe, dir, { view: view.archive, base: base.archive }, childEnv, progress),
  });
}

export async function ensureSpackViewImage(options: EnsureSpackViewOptions = {}): Promise<SpackViewImage> {
  return imageOf(await ensureSpackViewBuild(options));
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
  const timer = stepTimer();
  const layout = spackViewLayout(recipe);
  const work = await freshWorkDir(dir, env);
  const rootfs = path.join(work, 'rootfs');
  const viewImage = path.join(work, 'view-image');
  progress(`building ${recipe.reference}: the view of ${archives.view} as a Spack view at ${layout.view}`);
  await timer.timed('unpack', async () => {
    await unpackImageArchive(archives.base, rootfs);
    await unpackImageArchive(archives.view, viewImage);
  });
  await timer.timed('arrange', async () => {
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
  const history = `localhost/plain:bookworm with /bin/sh, and the view of localhost/flux-view:${recipe.fluxCoreVersion} at ${layout.view} (${layout.moves.map((m) => m.to).join(', ')})`;
  return {
    key: spackViewKey(recipe),
    view: layout.view,
    ...(await packFolderImage(
      { reference: recipe.reference, config: recipe.config, history },
      { dir, work, rootfs, timer, env, progress },
    )),
  };
}

export function readSpackViewBuild(dir: string): SpackViewBuild | undefined {
  return readImageBuild<SpackViewBuild>(dir);
}
