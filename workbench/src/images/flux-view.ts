// The Flux view image, localhost/flux-view:<version>: an image whose only job is to hold a
// self-contained Flux "view" and copy it into a volume shared with an application container, which then
// runs Flux from it whatever its own image holds (bash and coreutils are enough; no Flux, Python or
// munge; any glibc or none). The recipe and what goes into the image, as pure functions; the build is
// flux-view-build.ts.
//
// The image's contract (docs/flux-view.md), what an init container relies on:
//   /opt/flux-view                   the view: flux-core built with --prefix=/mnt/flux/view, Python
//                                    with Flux's bindings, munge, Lua, and every library they load,
//                                    glibc and its loader included; every ELF file's interpreter and
//                                    RUNPATH point into /mnt/flux/view, so it works only there;
//   /usr/local/bin/flux-view-copy M  copies the view to M/view (M must be /mnt/flux), then writes
//                                    M/view.complete (the view's info file); busybox's sh runs it;
//   the image's command              `flux-view-copy /mnt/flux`, so an init container that mounts the
//                                    shared volume at /mnt/flux needs no command at all.
import { digestKey } from './image-archive.ts';
import type { ImageConfig } from './image-archive.ts';
import {
  DEBIAN_MIRRORS,
  DEBIAN_SUITE,
  SOURCE_DATE_EPOCH,
  hookPath,
  mmdebstrapOptions,
} from './debian-rootfs.ts';
import { FLUX_CORE_PREFIX } from './flux-core.ts';
import { FLUX_LIBRARY_PACKAGES } from './flux-image.ts';
import { byPath } from './layer-steps.ts';
import type { TarEntry } from './tar-writer.ts';
import { createHash } from 'node:crypto';

/**
 * Where the view lives in the application container: flux-core's --prefix, the one build the Flux
 * images share (flux-core.ts).
 */
export const FLUX_VIEW_PREFIX = FLUX_CORE_PREFIX;
/** Where the shared volume is mounted, in the init container and the application container alike. */
export const FLUX_VIEW_MOUNT_PATH = '/mnt/flux';
/** Where the image holds the view. */
export const FLUX_VIEW_SOURCE = '/opt/flux-view';
/** The command that copies the view (a file of the image). */
export const FLUX_VIEW_COPY_COMMAND = '/usr/local/bin/flux-view-copy';
/** Written into the mount path once the copy is complete. */
export const FLUX_VIEW_MARKER = 'view.complete';
/** The view's info file, relative to the view. */
export const FLUX_VIEW_INFO = 'share/flux-view/info';
export const FLUX_VIEW_REPOSITORY = 'localhost/flux-view';

/** Bump when the build changes in a way the recipe data does not show, so caches rebuild. */
export const FLUX_VIEW_REVISION = 1;

/**
 * The bookworm packages of the root file system the view is assembled in: what flux-core, Python with
 * cffi, ply and yaml, munge and Lua need at run time (as in the Flux images), plus the tools of the
 * assembly (patchelf, strip) and busybox-static, the image's copier. Only the files the view needs
 * leave it.
 */
export const FLUX_VIEW_BUILD_PACKAGES = [
  ...FLUX_LIBRARY_PACKAGES,
  'binutils',
  'busybox-static',
  'patchelf',
].sort();

/** The busybox applets the copy script uses, as links in /bin beside busybox. */
export const COPIER_APPLETS = [
  'cat',
  'cmp',
  'cp',
  'cut',
  'date',
  'du',
  'id',
  'ls',
  'mkdir',
  'mv',
  'rm',
  'sed',
  'sh',
  'sleep',
  'stat',
];

export interface FluxViewRecipe {
  revision: number;
  fluxCoreVersion: string;
  reference: string;
  prefix: string;
  suite: string;
  mirrors: string[];
  packages: string[];
  sourceDateEpoch: number;
  /**
   * sha256 of hack/assemble-flux-view.sh, of the script it packs Python's pure modules with and of
   * the copy script: a change to any builds anew.
   */
  assembleScript: string;
  zipModulesScript: string;
  copyScript: string;
  config: ImageConfig;
}

export function fluxViewReference(fluxCoreVersion: string): string {
  return `${FLUX_VIEW_REPOSITORY}:${fluxCoreVersion}`;
}

export function fluxViewRecipe(
  fluxCoreVersion: string,
  scripts: { assemble: string; zipModules: string; copy: string },
): FluxViewRecipe {
  return {
    revision: FLUX_VIEW_REVISION,
    fluxCoreVersion,
    reference: fluxViewReference(fluxCoreVersion),
    prefix: FLUX_VIEW_PREFIX,
    suite: DEBIAN_SUITE,
    mirrors: [...DEBIAN_MIRRORS],
    packages: [...FLUX_VIEW_BUILD_PACKAGES],
    sourceDateEpoch: SOURCE_DATE_EPOCH,
    assembleScript: sha256Hex(scripts.assemble),
    zipModulesScript: sha256Hex(scripts.zipModules),
    copyScript: sha256Hex(scripts.copy),
    config: {
      env: ['PATH=/usr/local/bin:/bin'],
      cmd: [FLUX_VIEW_COPY_COMMAND, FLUX_VIEW_MOUNT_PATH],
      labels: {
        'org.opencontainers.image.title': 'Flux view',
        'org.opencontainers.image.description': `flux-core ${fluxCoreVersion} with everything it runs with under ${FLUX_VIEW_PREFIX}; ${FLUX_VIEW_COPY_COMMAND} ${FLUX_VIEW_MOUNT_PATH} copies it there`,
        'org.opencontainers.image.version': fluxCoreVersion,
      },
    },
  };
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export interface FluxViewBuildPaths {
  /** flux-core installed with prefix FLUX_VIEW_PREFIX (a DESTDIR: it holds mnt/flux/view). */
  fluxRoot: string;
  /** hack/assemble-flux-view.sh. */
  assembleScript: string;
  /** hack/zip-python-modules.py, which the assembly runs from beside itself. */
  zipModulesScript: string;
  /** Where the view (`view/`) and busybox are copied out to; must exist, with an empty `view/`. */
  outDir: string;
}

/**
 * The mmdebstrap command line (without `mmdebstrap`) that assembles the view: a minbase bookworm with the
 * build packages and flux-core at the prefix, the assembly run inside, the view and busybox copied out.
 * Nothing else of that root file system is kept (format null).
 */
export function fluxViewBuildArgs(recipe: FluxViewRecipe, paths: FluxViewBuildPaths): string[] {
  for (const [what, p] of Object.entries(paths)) hookPath(what, p);
  const info = [`flux-core ${recipe.fluxCoreVersion}`, `image ${recipe.reference}`];
  for (const line of info) {
    if (!/^[\w .:/-]+$/.test(line)) throw new Error(`unsafe info line for the view: ${line}`);
  }
  return [
    ...mmdebstrapOptions('minbase', 'null', recipe.packages),
    `--customize-hook=sync-in ${paths.fluxRoot} /`,
    `--customize-hook=upload ${paths.assembleScript} /tmp/assemble-flux-view.sh`,
    `--customize-hook=upload ${paths.zipModulesScript} /tmp/zip-python-modules.py`,
    `--customize-hook=chroot "$1" bash /tmp/assemble-flux-view.sh ${recipe.prefix} ${info.map((l) => `'${l}'`).join(' ')}`,
    `--customize-hook=sync-out ${recipe.prefix} ${paths.outDir}/view`,
    `--customize-hook=copy-out /usr/bin/busybox ${paths.outDir}`,
    recipe.suite,
    '/dev/null',
    ...recipe.mirrors,
  ];
}

/** Hex digest naming the recipe's cache folder: changes with the recipe and the mmdebstrap command. */
export function fluxViewKey(recipe: FluxViewRecipe): string {
  const args = fluxViewBuildArgs(recipe, {
    fluxRoot: '/FLUX',
    assembleScript: '/ASSEMBLE',
    zipModulesScript: '/ZIP',
    outDir: '/OUT',
  });
  return digestKey({ recipe, args });
}

/**
 * The copier layer (pure): busybox with a link per applet the copy script uses, and the copy script.
 * `busybox` is the path of the static busybox the build copied out.
 */
export function copierLayerEntries(busybox: string, copyScript: string): TarEntry[] {
  const dirs = ['bin', 'usr', 'usr/local', 'usr/local/bin'];
  const entries: TarEntry[] = [
    ...dirs.map((d): TarEntry => ({ type: 'directory', path: d, mode: 0o755 })),
    { type: 'file', path: 'bin/busybox', mode: 0o755, source: busybox },
    ...COPIER_APPLETS.map((a): TarEntry => ({
      type: 'symlink',
      path: `bin/${a}`,
      target: 'busybox',
      mode: 0o777,
    })),
    { type: 'directory', path: 'tmp', mode: 0o1777 },
    { type: 'file', path: FLUX_VIEW_COPY_COMMAND.slice(1), mode: 0o755, data: copyScript },
  ];
  return entries.sort(byPath);
}
