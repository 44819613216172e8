// The Flux images of the real-node tests, made without docker or a registry: a bookworm root file system
// from mmdebstrap (Debian's runtime packages plus flux-core built by hack/build-flux-core.sh) as the
// shared base layer, and one small layer per variant:
//   plain    localhost/flux:<version>          /run/munge made and owned by munge, as a Dockerfile would;
//   awkward  localhost/flux:<version>-awkward  a user `ubuntu` with uid 1000 (like Ubuntu 24.04 images)
//                                              and munge as Debian installs it (no /run/munge).
// A recipe is a set of variants over one base; other sets (flux-lammps-image.ts) add packages to the
// base. Built once per recipe into <cache>/images/<repository>-<version>-<recipe hash>/, then reused.
//
// flux-core is the Flux view's build (flux-core.ts: prefix /mnt/flux/view), so that a first run builds
// it once for the images and the view. It cannot stay at that prefix here: a MiniCluster running Flux
// from its image mounts its state volume (an emptyDir) at /mnt/flux, which would hide it. So the base
// holds a copy relocated to FLUX_IMAGE_PREFIX, a prefix of the same length (relocate.ts rewrites the
// compiled-in prefix in place), and links that make it look installed in /usr for what expects an
// image's Flux there (FLUX_IN_USR_LINKS): `flux` on PATH, flux-broker where the entrypoint makes it
// execute-only, the job shell's initrc where the entrypoint looks, and Debian's python3 finding the
// bindings.
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Progress } from '../tooling/hack-script.ts';
import { findProjectRoot, readVersions } from '../tooling/project.ts';
import { ensureCachedBuild, imageCacheDir, imageOf, readBuildRecord, stepTimer } from './cached-build.ts';
import type { BuiltImage, ImageBuildOptions } from './cached-build.ts';
import { checkImageInChroot } from './chroot-check.ts';
import { FLUX_CORE_PREFIX, ensureFluxCore } from './flux-core.ts';
import { relocateTree } from './relocate.ts';
import {
  DEBIAN_SUITE,
  debianImageFields,
  debianRootfsArgs,
  hookPath,
  makeDebianRootfs,
  readBaseEtc,
} from './debian-rootfs.ts';
import type { DebianImageFields } from './debian-rootfs.ts';
import { archiveFileName, digestKey, writeImageArchive } from './image-archive.ts';
import { describeStep, variantLayerEntries } from './layer-steps.ts';
import type { VariantStep } from './layer-steps.ts';
import { writeTar } from './tar-writer.ts';

export const stderrProgress: Progress = (line) => process.stderr.write(`[flux-images] ${line}\n`);

/** Bump when the build changes in a way the recipe data does not show, so caches rebuild. */
export const RECIPE_REVISION = 2;

export const FLUX_IMAGE_REPOSITORY = 'localhost/flux';

/**
 * What flux-core's programs, libraries and Python commands load at run time (checked with ldd); the
 * Flux view holds them too (flux-view.ts).
 */
export const FLUX_LIBRARY_PACKAGES = [
  'libarchive13',
  'libhwloc15',
  'libjansson4',
  'liblua5.1-0',
  'liblz4-1',
  'libmunge2',
  'libncursesw6',
  'libpython3.11',
  'libsqlite3-0',
  'libuuid1',
  'libzmq5',
  'lua-posix',
  'lua5.1',
  'munge',
  'python3',
  'python3-cffi',
  'python3-ply',
  'python3-yaml',
];

/** The Flux images' packages: FLUX_LIBRARY_PACKAGES and procps. */
export const FLUX_RUNTIME_PACKAGES = [...FLUX_LIBRARY_PACKAGES, 'procps'].sort();

export type FluxImageName = 'plain' | 'awkward';
export const FLUX_IMAGE_NAMES: readonly FluxImageName[] = ['plain', 'awkward'];

export interface FluxImageVariant {
  reference: string;
  steps: VariantStep[];
}

/** A recipe: the base layer (packages and flux-core) and the variants over it, by name (N). */
export interface FluxImageRecipe<N extends string = FluxImageName> extends DebianImageFields {
  revision: number;
  fluxCoreVersion: string;
  variants: Record<N, FluxImageVariant>;
}

/** /run/munge made and owned by munge, as an image built with a Dockerfile has it. */
export const MUNGE_RUN_DIR: VariantStep = {
  kind: 'owned-dir',
  path: '/run/munge',
  owner: 'munge',
  mode: 0o755,
};

/**
 * The recipe of Flux images whose base holds FLUX_RUNTIME_PACKAGES, the `extraPackages` and flux-core
 * `fluxCoreVersion` (at FLUX_IMAGE_PREFIX, linked into /usr), with the given variants over it.
 */
export function fluxBaseRecipe<N extends string>(
  fluxCoreVersion: string,
  extraPackages: readonly string[],
  variants: Record<N, FluxImageVariant>,
): FluxImageRecipe<N> {
  return {
    revision: RECIPE_REVISION,
    fluxCoreVersion,
    ...debianImageFields(DEBIAN_SUITE, [...new Set([...FLUX_RUNTIME_PACKAGES, ...extraPackages])].sort()),
    variants,
  };
}

export function fluxImageRecipe(fluxCoreVersion: string): FluxImageRecipe {
  return fluxBaseRecipe(fluxCoreVersion, [], {
    plain: { reference: `${FLUX_IMAGE_REPOSITORY}:${fluxCoreVersion}`, steps: [MUNGE_RUN_DIR] },
    awkward: {
      reference: `${FLUX_IMAGE_REPOSITORY}:${fluxCoreVersion}-awkward`,
      steps: [
        {
          kind: 'user',
          name: 'ubuntu',
          uid: 1000,
          comment: 'Ubuntu',
          home: '/home/ubuntu',
          shell: '/bin/bash',
        },
      ],
    },
  });
}

/**
 * Where the Flux images hold flux-core: the view's build relocated (same length as FLUX_CORE_PREFIX, so
 * the prefix can be rewritten inside binaries), outside /mnt/flux, the state volume's mount.
 */
export const FLUX_IMAGE_PREFIX = '/opt/flux-core';

/**
 * Links (path -> relative target) that make flux-core at FLUX_IMAGE_PREFIX look installed in /usr, as the
 * entrypoint's default `flux.installRoot: /usr` expects. Relative, so that they resolve inside an
 * unpacked root file system too (the chroot check tests them from outside).
 */
export const FLUX_IN_USR_LINKS: Readonly<Record<string, string>> = {
  // On the image's PATH.
  '/usr/bin/flux': `../..${FLUX_IMAGE_PREFIX}/bin/flux`,
  '/usr/bin/flux-python': `../..${FLUX_IMAGE_PREFIX}/bin/flux-python`,
  // <installRoot>/libexec/flux/cmd/flux-broker: the entrypoint makes it execute-only for the flux user.
  '/usr/libexec/flux': `../..${FLUX_IMAGE_PREFIX}/libexec/flux`,
  // The job shell's initrc.lua, where the entrypoint looks for an image's Flux before asking Flux's Python.
  '/etc/flux/shell': `../..${FLUX_IMAGE_PREFIX}/etc/flux/shell`,
  // flux-core runs its Python commands with the interpreter it was configured with, PREFIX/bin/python3
  // (the view's own Python there): here Debian's.
  [`${FLUX_IMAGE_PREFIX}/bin/python3`]: '../../../usr/bin/python3',
};

export interface MmdebstrapPaths {
  /** The flux-core install relocated to FLUX_IMAGE_PREFIX (a DESTDIR holding it), for the root file system. */
  fluxRoot: string;
  /** The root file system tar to write. */
  output: string;
  /** Where /etc/passwd, group, shadow, gshadow and skel of the result are copied (for the variant layers). */
  etcCopy: string;
}

/** The mmdebstrap command line (without `mmdebstrap` itself) that makes the base layer. */
export function mmdebstrapArgs(recipe: FluxImageRecipe<string>, paths: MmdebstrapPaths): string[] {
  const links = Object.entries(FLUX_IN_USR_LINKS).map(
    ([link, target]) => `mkdir -p "$1${path.posix.dirname(link)}" && ln -s ${target} "$1${link}"`,
  );
  return debianRootfsArgs(recipe, { output: paths.output, etcCopy: paths.etcCopy }, [
    `sync-in ${hookPath('fluxRoot', paths.fluxRoot)} /`,
    ...links,
    // flux-core's Python package lives in PREFIX/lib/python3.X/site-packages, which Debian's python3 does
    // not search (the flux command adds it for its own subcommands): a .pth file makes `import flux` work.
    `for d in "$1"${FLUX_IMAGE_PREFIX}/lib/python3*/site-packages; do if [ -d "$d/flux" ]; then echo "\${d#"$1"}"; fi; done >"$1/usr/lib/python3/dist-packages/flux-core.pth"`,
  ]);
}

/** Hex digest naming a recipe's cache folder: changes with the recipe and with the mmdebstrap command. */
export function recipeKey(recipe: FluxImageRecipe<string>): string {
  const args = mmdebstrapArgs(recipe, { fluxRoot: '/FLUX', output: '/OUT.tar', etcCopy: '/ETC' });
  return digestKey({ recipe, args });
}

export type FluxImage = BuiltImage;

export type FluxImages = Record<FluxImageName, FluxImage>;

export interface FluxImagesBuild<N extends string = FluxImageName> {
  key: string;
  fluxCoreVersion: string;
  images: Record<N, FluxImage & { bytes: number }>;
  /** Seconds per step of the build that made these archives. */
  seconds: Record<string, number>;
  builtAt: string;
}

export type EnsureFluxImagesOptions = ImageBuildOptions;

/** FLUX_CORE_VERSION from hack/versions.env. */
export function readFluxCoreVersion(root: string = findProjectRoot()): string {
  return readVersions(root).fluxCore;
}

/** The repository of a recipe's variants without its host (`localhost/flux:0.88.0` -> `flux`). */
export function recipeRepository(recipe: FluxImageRecipe<string>): string {
  const [first] = Object.values(recipe.variants);
  if (first === undefined) throw new Error('a Flux image recipe needs a variant');
  return first.reference.replace(/^.*\//, '').replace(/:.*$/, '');
}

/** <cache>/images/<repository>-<version>-<recipe key>, e.g. `flux-0.88.0-01fc58a79d265471`. */
export function fluxImagesDir(recipe: FluxImageRecipe<string>, env: NodeJS.ProcessEnv = process.env): string {
  const name = `${recipeRepository(recipe)}-${recipe.fluxCoreVersion}-${recipeKey(recipe)}`;
  return imageCacheDir(name, env);
}

/** The archives a complete build record names. */
function archivesOf(build: FluxImagesBuild<string>): string[] {
  return Object.values(build.images).map((image) => image.archive);
}

/** The build record of a complete cache folder whose archives are all there, else undefined. */
export function readFluxImagesBuild<N extends string = FluxImageName>(
  dir: string,
): FluxImagesBuild<N> | undefined {
  return readBuildRecord<FluxImagesBuild<N>>(dir, archivesOf);
}

function imagesOf<N extends string>(build: FluxImagesBuild<N>): Record<N, FluxImage> {
  const images = {} as Record<N, FluxImage>;
  for (const name of Object.keys(build.images) as N[]) {
    images[name] = imageOf(build.images[name]);
  }
  return images;
}

/** The images of a recipe when they are already built, without building anything. */
export function cachedFluxImageSet<N extends string>(
  recipe: FluxImageRecipe<N>,
  options: { env?: NodeJS.ProcessEnv } = {},
): Record<N, FluxImage> | undefined {
  const build = readFluxImagesBuild<N>(fluxImagesDir(recipe, options.env));
  return build === undefined ? undefined : imagesOf(build);
}

/** The Flux images of the current recipe when they are already built, without building anything. */
export function cachedFluxImages(options: { env?: NodeJS.ProcessEnv } = {}): FluxImages | undefined {
  return cachedFluxImageSet(fluxImageRecipe(readFluxCoreVersion()), options);
}

/**
 * The build record of a recipe's images, building them when the cache lacks them (as root: mmdebstrap, a
 * minute or more, plus flux-core once per version for these and the view, about 9 minutes). One build at a time per recipe;
 * `what` names them in messages.
 */
export async function ensureFluxImagesBuild<N extends string>(
  recipe: FluxImageRecipe<N>,
  what: string,
  options: EnsureFluxImagesOptions = {},
): Promise<FluxImagesBuild<N>> {
  const progress = options.progress ?? stderrProgress;
  const env = options.env ?? process.env;
  const dir = fluxImagesDir(recipe, env);
  return ensureCachedBuild<FluxImagesBuild<N>>({
    dir,
    what,
    plural: Object.keys(recipe.variants).length > 1,
    command: 'npm run images:flux',
    files: archivesOf,
    progress,
    env,
    build: (childEnv) => buildFluxImages(recipe, dir, childEnv, progress),
  });
}

/** The images of a recipe (ensureFluxImagesBuild), building what the cache lacks. */
export async function ensureFluxImageSet<N extends string>(
  recipe: FluxImageRecipe<N>,
  what: string,
  options: EnsureFluxImagesOptions = {},
): Promise<Record<N, FluxImage>> {
  return imagesOf(await ensureFluxImagesBuild(recipe, what, options));
}

/** Returns the plain and awkward Flux images, building what the cache lacks. */
export async function ensureFluxImages(options: EnsureFluxImagesOptions = {}): Promise<FluxImages> {
  return ensureFluxImageSet(fluxImageRecipe(readFluxCoreVersion()), 'the Flux images', options);
}

async function buildFluxImages<N extends string>(
  recipe: FluxImageRecipe<N>,
  dir: string,
  env: NodeJS.ProcessEnv,
  progress: Progress,
): Promise<FluxImagesBuild<N>> {
  const { seconds, timed, finish } = stepTimer();
  progress(`building the Flux images of recipe ${path.basename(dir)} (flux-core ${recipe.fluxCoreVersion})`);

  // The view's build: cached, it costs nothing here (flux-core.ts).
  const built = await timed('flux-core', () => ensureFluxCore({ progress, env }));

  const work = path.join(dir, 'work');
  await rm(work, { recursive: true, force: true });
  const fluxRoot = path.join(work, 'flux-core');
  await timed('relocate', async () => {
    await mkdir(path.dirname(path.join(fluxRoot, FLUX_IMAGE_PREFIX)), { recursive: true });
    const moved = await relocateTree(
      path.join(built, FLUX_CORE_PREFIX),
      path.join(fluxRoot, FLUX_IMAGE_PREFIX),
      FLUX_CORE_PREFIX,
      FLUX_IMAGE_PREFIX,
    );
    progress(
      `flux-core relocated from ${FLUX_CORE_PREFIX} to ${FLUX_IMAGE_PREFIX}: ${moved.files} files, ${moved.rewritten} rewritten`,
    );
  });
  const etcCopy = path.join(work, 'etc');
  await mkdir(etcCopy, { recursive: true });
  const baseLayer = path.join(work, 'base.tar');
  progress(
    `mmdebstrap: ${recipe.suite} with ${recipe.packages.length} packages and flux-core (a minute or more here)`,
  );
  await timed('mmdebstrap', () =>
    makeDebianRootfs(mmdebstrapArgs(recipe, { fluxRoot, output: baseLayer, etcCopy }), recipe, baseLayer, {
      env,
      progress,
    }),
  );

  const base = await readBaseEtc(etcCopy);
  const images = {} as FluxImagesBuild<N>['images'];
  for (const name of Object.keys(recipe.variants) as N[]) {
    const variant = recipe.variants[name];
    const layer = path.join(work, `${name}-layer.tar`);
    const archive = path.join(dir, archiveFileName(variant.reference));
    const res = await timed(`pack-${name}`, async () => {
      await writeTar(layer, variantLayerEntries(variant.steps, base));
      return writeImageArchive({
        reference: variant.reference,
        layers: [baseLayer, layer],
        config: recipe.config,
        output: archive,
        history: [
          `mmdebstrap --variant=minbase ${recipe.suite} + ${recipe.packages.length} packages + flux-core ${recipe.fluxCoreVersion} at ${FLUX_IMAGE_PREFIX}, linked into /usr`,
          `${name}: ${variant.steps.map(describeStep).join('; ')}`,
        ],
      });
    });
    const bytes = (await stat(archive)).size;
    images[name] = { reference: variant.reference, archive, imageId: res.imageId, bytes };
    progress(
      `${variant.reference}: ${archive} (${(bytes / 2 ** 20).toFixed(0)} MiB) in ${seconds[`pack-${name}`]} s`,
    );
  }
  const took = finish();
  const build: FluxImagesBuild<N> = {
    key: recipeKey(recipe),
    fluxCoreVersion: recipe.fluxCoreVersion,
    images,
    seconds,
    builtAt: new Date().toISOString(),
  };
  await rm(work, { recursive: true, force: true });
  progress(`built in ${took}`);
  return build;
}

/**
 * Unpacks a Flux image archive into a temporary folder and runs hack/check-image-rootfs.sh there (as
 * root, in a chroot): shared libraries, `flux --version`, `import flux`, `flux start -s 2 flux run -N2
 * hostname`, munged when /run/munge exists. Returns the check's output; throws when a check fails.
 */
export async function checkFluxImage(
  archive: string,
  options: EnsureFluxImagesOptions = {},
): Promise<string> {
  return checkImageInChroot({
    prefix: 'flux-image-check-',
    script: 'check-image-rootfs.sh',
    archive,
    args: (rootfs) => [rootfs],
    progress: options.progress ?? stderrProgress,
    env: options.env ?? process.env,
  });
}
