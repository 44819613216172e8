// Builds the Flux view image (flux-view.ts) once per recipe into <cache>/images/flux-view-<version>-<key>/:
// flux-core with prefix /mnt/flux/view (flux-core.ts: hack/build-flux-core.sh, cached per version, the
// same build as the Flux images'), the view
// assembled by hack/assemble-flux-view.sh in a bookworm root file system from mmdebstrap, then two
// layers, the copier (busybox and the copy script) and the view at /opt/flux-view.
import { readFileSync } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { runCommand } from '../tooling/command.ts';
import type { Progress } from '../tooling/hack-script.ts';
import { findProjectRoot } from '../tooling/project.ts';
import { ensureImageBuild, imageCacheDir, imageOf, readImageBuild, stepTimer } from './cached-build.ts';
import type { BuiltImage, ImageBuildOptions, ImageBuildRecord } from './cached-build.ts';
import { writeDirectoryLayer } from './directory-layer.ts';
import { ensureFluxCore } from './flux-core.ts';
import { readFluxCoreVersion } from './flux-image.ts';
import {
  FLUX_VIEW_SOURCE,
  copierLayerEntries,
  fluxViewBuildArgs,
  fluxViewKey,
  fluxViewRecipe,
} from './flux-view.ts';
import type { FluxViewRecipe } from './flux-view.ts';
import { archiveFileName, writeImageArchive } from './image-archive.ts';
import { writeTar } from './tar-writer.ts';

export const viewProgress: Progress = (line) => process.stderr.write(`[flux-view] ${line}\n`);

/** The copy script the image holds (/usr/local/bin/flux-view-copy), relative to the project root. */
export const COPY_SCRIPT = 'hack/flux-view-copy.sh';
export const ASSEMBLE_SCRIPT = 'hack/assemble-flux-view.sh';
/** Packs the view's pure Python modules into zips (run by the assembly). */
export const ZIP_MODULES_SCRIPT = 'hack/zip-python-modules.py';

export type FluxViewImage = BuiltImage;

export interface FluxViewBuild extends ImageBuildRecord {
  fluxCoreVersion: string;
  /** Size and number of files of the view itself (what the init container copies). */
  viewBytes: number;
  viewFiles: number;
}

/** The recipe of this tree: flux-core's pinned version and the build's scripts as they are. */
export function currentFluxViewRecipe(root: string = findProjectRoot()): FluxViewRecipe {
  return fluxViewRecipe(readFluxCoreVersion(root), {
    assemble: readFileSync(path.join(root, ASSEMBLE_SCRIPT), 'utf8'),
    zipModules: readFileSync(path.join(root, ZIP_MODULES_SCRIPT), 'utf8'),
    copy: readFileSync(path.join(root, COPY_SCRIPT), 'utf8'),
  });
}

export function fluxViewDir(recipe: FluxViewRecipe, env: NodeJS.ProcessEnv = process.env): string {
  return imageCacheDir(`flux-view-${recipe.fluxCoreVersion}-${fluxViewKey(recipe)}`, env);
}

export function readFluxViewBuild(dir: string): FluxViewBuild | undefined {
  return readImageBuild<FluxViewBuild>(dir);
}

/** The view image of the current recipe when it is built, without building anything. */
export function cachedFluxViewImage(options: { env?: NodeJS.ProcessEnv } = {}): FluxViewImage | undefined {
  const build = readFluxViewBuild(fluxViewDir(currentFluxViewRecipe(), options.env));
  return build === undefined ? undefined : imageOf(build);
}

export type EnsureFluxViewOptions = ImageBuildOptions;

/**
 * The Flux view image's build record, building what the cache lacks (as root: flux-core once per version
 * for the view and the Flux images, about 9 minutes; the assembly, about 3). One build per recipe at a time.
 */
export async function ensureFluxViewBuild(options: EnsureFluxViewOptions = {}): Promise<FluxViewBuild> {
  const progress = options.progress ?? viewProgress;
  const env = options.env ?? process.env;
  const root = findProjectRoot();
  const recipe = currentFluxViewRecipe(root);
  const dir = fluxViewDir(recipe, env);
  return ensureImageBuild<FluxViewBuild>({
    dir,
    what: `the Flux view image ${recipe.reference}`,
    progress,
    env,
    build: (childEnv) => buildFluxView(recipe, dir, root, childEnv, progress),
  });
}

export async function ensureFluxViewImage(options: EnsureFluxViewOptions = {}): Promise<FluxViewImage> {
  return imageOf(await ensureFluxViewBuild(options));
}

/** Total size and count of the regular files under `dir` (symbolic links not followed). */
async function treeSize(dir: string, env: NodeJS.ProcessEnv): Promise<{ bytes: number; files: number }> {
  const out = await runCommand('find', [dir, '-type', 'f', '-printf', '%s\\n'], { env });
  const sizes = out.trim() === '' ? [] : out.trim().split('\n').map(Number);
  return { bytes: sizes.reduce((a, b) => a + b, 0), files: sizes.length };
}

async function buildFluxView(
  recipe: FluxViewRecipe,
  dir: string,
  root: string,
  env: NodeJS.ProcessEnv,
  progress: Progress,
): Promise<FluxViewBuild> {
  const { seconds, timed, finish } = stepTimer();
  progress(`building ${recipe.reference} (${path.basename(dir)})`);
  // recipe.prefix is FLUX_CORE_PREFIX: the build the Flux images share.
  const fluxRoot = await timed('flux-core', () => ensureFluxCore({ progress, env }));

  const work = path.join(dir, 'work');
  await rm(work, { recursive: true, force: true });
  const outDir = path.join(work, 'out');
  await mkdir(path.join(outDir, 'view'), { recursive: true });
  progress(
    `assembling the view in a ${recipe.suite} root file system (mmdebstrap, then hack/assemble-flux-view.sh)`,
  );
  await timed('assemble', () =>
    runCommand(
      'mmdebstrap',
      fluxViewBuildArgs(recipe, {
        fluxRoot,
        assembleScript: path.join(root, ASSEMBLE_SCRIPT),
        zipModulesScript: path.join(root, ZIP_MODULES_SCRIPT),
        outDir,
      }),
      {
        env: { ...env, SOURCE_DATE_EPOCH: String(recipe.sourceDateEpoch) },
        onLine: (l) => (l.startsWith('I: ') || l.startsWith('[build-flux-view]')) && progress(l),
      },
    ),
  );
  const view = path.join(outDir, 'view');
  const size = await treeSize(view, env);

  const archive = path.join(dir, archiveFileName(recipe.reference));
  const res = await timed('pack', async () => {
    const copier = path.join(work, 'copier.tar');
    await writeTar(
      copier,
      copierLayerEntries(path.join(outDir, 'busybox'), readFileSync(path.join(root, COPY_SCRIPT), 'utf8')),
    );
    const viewLayer = path.join(work, 'view.tar');
    await writeDirectoryLayer({
      directory: view,
      output: viewLayer,
      prefix: FLUX_VIEW_SOURCE,
      owner: { uid: 0, gid: 0 },
    });
    return writeImageArchive({
      reference: recipe.reference,
      layers: [copier, viewLayer],
      config: recipe.config,
      output: archive,
      history: [
        `busybox-static (${recipe.suite}) and the copy script`,
        `the Flux view (flux-core ${recipe.fluxCoreVersion}, prefix ${recipe.prefix}) at ${FLUX_VIEW_SOURCE}`,
      ],
    });
  });
  const bytes = (await stat(archive)).size;
  const took = finish();
  await rm(work, { recursive: true, force: true });
  progress(
    `${recipe.reference}: ${archive} (${(bytes / 2 ** 20).toFixed(0)} MiB; the view ${(size.bytes / 2 ** 20).toFixed(0)} MiB in ${size.files} files) ` +
      `built in ${took}`,
  );
  return {
    key: fluxViewKey(recipe),
    fluxCoreVersion: recipe.fluxCoreVersion,
    reference: recipe.reference,
    archive,
    imageId: res.imageId,
    bytes,
    viewBytes: size.bytes,
    viewFiles: size.files,
    seconds,
    builtAt: new Date().toISOString(),
  };
}
