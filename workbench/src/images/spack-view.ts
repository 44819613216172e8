// The stand-in for the Go Flux Operator's view images (ghcr.io/converged-computing/flux-view-*, which
// this machine cannot pull): localhost/flux-view-spack-layout:<version>, this project's Flux view laid
// out as theirs are (docs/flux-view.md), on a base with sh and coreutils. Pure: the recipe and the
// layout; the build is spack-view-build.ts.
//
// Their layout, as the Go operator's init container and entrypoint rely on it:
//   /opt/views/._view/<hash>/   a Spack environment view (bin/flux, lib, ...), /opt/view a link to it;
//   /opt/software/<...>/lib     the packages the view's programs load their libraries from: a Spack
//                               view's files are links into /opt/software, so without /opt/software
//                               the programs do not start;
//   /bin/sh and coreutils       the init container's copy is a shell script.
// Here: the plain bookworm image (bash and coreutils) with /bin/sh linked to bash; the view of
// localhost/flux-view (built for the prefix /mnt/flux/view, so it works where a MiniCluster mounts the
// shared volume at /mnt/flux, the default) under /opt/views/._view/<hash>; and libzmq, which flux-core
// and its broker load, moved to /opt/software/<arch>/<compiler>/<package>/lib, the view's file
// becoming a link there, as in a Spack view.
import { createHash } from 'node:crypto';
import { canonicalJson, digestKey } from './image-archive.ts';
import type { ImageConfig } from './image-archive.ts';
import { IMAGE_PATH } from './debian-rootfs.ts';

export const SPACK_VIEW_REPOSITORY = 'localhost/flux-view-spack-layout';

/** Bump when the build changes in a way the recipe data does not show, so caches rebuild. */
export const SPACK_VIEW_REVISION = 1;

/** Where the Go operator's view images hold their view(s), and the link to the one they have. */
export const SPACK_VIEWS_DIR = '/opt/views/._view';
export const SPACK_VIEW_LINK = '/opt/view';
/** Where their programs load their libraries from. */
export const SPACK_SOFTWARE_ROOT = '/opt/software';
/** Spack's install tree: <platform>-<os>-<target>/<compiler>-<version>/<package>-<version>-<hash>. */
const SPACK_ARCH = 'linux-debian12-x86_64/gcc-12.2.0';

/** A library of the view that moves to /opt/software, leaving a link in the view's lib. */
export interface MovedLibrary {
  /** Its file name in the view's lib (a regular file there). */
  file: string;
  /** Its Spack package folder (`zeromq-4.3.4-<hash>`). */
  spackPackage: string;
}

/**
 * libzmq: flux-core's libraries and flux-broker load it (the broker's overlay is ZeroMQ), and nothing
 * of bash or coreutils does, so only Flux fails without /opt/software.
 */
export const MOVED_LIBRARIES: readonly MovedLibrary[] = [
  { file: 'libzmq.so.5', spackPackage: 'zeromq-4.3.4-mlbcu5wcrtrl3wv7bvydlvfh2ztkbbfm' },
];

export interface SpackViewRecipe {
  revision: number;
  fluxCoreVersion: string;
  reference: string;
  /** The images it is made of, by id: the Flux view image and the plain bookworm image. */
  viewImageId: string;
  baseImageId: string;
  moved: MovedLibrary[];
  config: ImageConfig;
}

export function spackViewReference(fluxCoreVersion: string): string {
  return `${SPACK_VIEW_REPOSITORY}:${fluxCoreVersion}`;
}

export function spackViewRecipe(
  fluxCoreVersion: string,
  images: { viewImageId: string; baseImageId: string },
): SpackViewRecipe {
  return {
    revision: SPACK_VIEW_REVISION,
    fluxCoreVersion,
    reference: spackViewReference(fluxCoreVersion),
    viewImageId: images.viewImageId,
    baseImageId: images.baseImageId,
    moved: MOVED_LIBRARIES.map((library) => ({ ...library })),
    config: {
      env: [`PATH=${IMAGE_PATH}`],
      cmd: ['/bin/sh'],
      labels: {
        'org.opencontainers.image.title': 'Flux view, Spack layout',
        'org.opencontainers.image.description': `the Flux view of localhost/flux-view:${fluxCoreVersion} laid out as the Go Flux Operator's view images are: a Spack view under ${SPACK_VIEWS_DIR} with libraries in ${SPACK_SOFTWARE_ROOT}`,
        'org.opencontainers.image.version': fluxCoreVersion,
      },
    },
  };
}

/** Hex digest naming the recipe's cache folder. */
export function spackViewKey(recipe: SpackViewRecipe): string {
  return digestKey(recipe);
}

/** The view's folder name under /opt/views/._view: 32 characters of Spack's base32 alphabet, from the recipe. */
export function spackViewHash(recipe: SpackViewRecipe): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  const digest = createHash('sha256').update(canonicalJson(recipe)).digest();
  return Array.from(digest.subarray(0, 32), (byte) => alphabet[byte % 32]).join('');
}

/** Absolute paths of the layout (see the file's header). */
export interface SpackViewLayout {
  /** /opt/views/._view/<hash>: where the view's files go. */
  view: string;
  /** /opt/view -> view. */
  viewLink: string;
  /** Each moved library: its new place under /opt/software and the link left in the view. */
  moves: { from: string; to: string }[];
  /** /bin/sh -> bash (the plain image has none). */
  shell: { path: string; target: string };
}

export function spackViewLayout(recipe: SpackViewRecipe): SpackViewLayout {
  const view = `${SPACK_VIEWS_DIR}/${spackViewHash(recipe)}`;
  return {
    view,
    viewLink: SPACK_VIEW_LINK,
    moves: recipe.moved.map((library) => ({
      from: `${view}/lib/${library.file}`,
      to: `${SPACK_SOFTWARE_ROOT}/${SPACK_ARCH}/${library.spackPackage}/lib/${library.file}`,
    })),
    // /bin links to usr/bin in the plain image (merged /usr).
    shell: { path: '/usr/bin/sh', target: 'bash' },
  };
}
