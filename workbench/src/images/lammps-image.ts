// The LAMMPS image with REAXFF, localhost/lammps:reaxff-bookworm: Debian 12's `lmp` lacks the REAXFF
// package (`Unrecognized pair style 'reax/c'`) that the Go operator's LAMMPS examples run (`lmp -v x 2
// -v y 2 -v z 2 -in in.reaxc.hns -nocite` in reaxff/HNS), so hack/build-lammps.sh builds LAMMPS from
// Debian 12's source package with it, on Debian's OpenMPI, into /usr/local/bin/lmp. The image holds that
// lmp, OpenMPI (mpirun) and the examples it runs from lammps-examples (melt and reaxff), no Flux (the Flux
// view brings it). Pure: the recipe and the mmdebstrap command line; the build is lammps-image-build.ts.
import { createHash } from 'node:crypto';
import {
  DEBIAN_SUITE,
  MERGED_USR_HOOKS,
  debianFolderArgs,
  debianImageFields,
  hookPath,
  mmdebstrapHistory,
} from './debian-rootfs.ts';
import type { DebianFolderImage, DebianImageFields } from './debian-rootfs.ts';
import { digestKey } from './image-archive.ts';
import { LAMMPS_EXAMPLES_DIR } from './mpi-image.ts';
import { DEBIAN_IMAGE_FIXES } from './rootfs-fixes.ts';
import type { RootfsFixes } from './rootfs-fixes.ts';

/** LAMMPS with REAXFF on OpenMPI, with the HNS and melt examples. */
export const LAMMPS_REAXFF_IMAGE = 'localhost/lammps:reaxff-bookworm';

/** The build of LAMMPS (it pins Debian's source version and the CMake options), relative to the project. */
export const LAMMPS_BUILD_SCRIPT = 'hack/build-lammps.sh';

/** Where the built lmp is, in the build's root and in the image (on the image's PATH). */
export const LAMMPS_REAXFF_PROGRAM = '/usr/local/bin/lmp';

/** The Go operator's LAMMPS case's working directory, as lammps-examples installs it. */
export const LAMMPS_HNS_DIR = '/usr/share/lammps/examples/reaxff/HNS';

/** Bump when the build changes in a way the recipe data does not show, so caches rebuild. */
export const LAMMPS_IMAGE_REVISION = 1;

/**
 * The packages asked for beyond the essential set (apt adds their dependencies, not their recommends):
 * what the built lmp loads (libmpi.so.40 of libopenmpi3, libstdc++6), OpenMPI's mpirun and the examples.
 * Debian's lammps is not among them.
 */
export const LAMMPS_IMAGE_PACKAGES = ['lammps-examples', 'libopenmpi3', 'libstdc++6', 'openmpi-bin'];

/**
 * The folders of /usr/share/lammps/examples the image keeps: the Go operator's case (reaxff/HNS) with
 * reaxff's other inputs, and LJ melt. The other examples (most of lammps-examples' 145 MB) need packages
 * this build leaves out.
 */
export const LAMMPS_EXAMPLES_KEPT = ['melt', 'reaxff'];

export interface LammpsImageRecipe extends DebianImageFields {
  revision: number;
  reference: string;
  examples: string[];
  /** sha256 of hack/build-lammps.sh: the source version and build options it pins. */
  buildScript: string;
}

/** The image's recipe; `buildScript` is the text of hack/build-lammps.sh. */
export function lammpsImageRecipe(buildScript: string): LammpsImageRecipe {
  return {
    revision: LAMMPS_IMAGE_REVISION,
    reference: LAMMPS_REAXFF_IMAGE,
    ...debianImageFields(DEBIAN_SUITE, LAMMPS_IMAGE_PACKAGES),
    examples: [...LAMMPS_EXAMPLES_KEPT],
    buildScript: createHash('sha256').update(buildScript).digest('hex'),
  };
}

/** dpkg's path filters that keep only the recipe's example folders of lammps-examples. */
export function examplesFilters(examples: readonly string[]): string[] {
  const dir = LAMMPS_EXAMPLES_DIR;
  for (const name of examples) {
    if (!/^[\w.-]+$/.test(name)) throw new Error(`an example folder is a plain name, not ${name}`);
  }
  return [
    `--dpkgopt=path-exclude=${dir}/*`,
    ...[...examples].sort().map((name) => `--dpkgopt=path-include=${dir}/${name}/*`),
  ];
}

export interface LammpsImagePaths {
  /** The build's root (hack/build-lammps.sh prints it): it holds usr/local/bin/lmp. */
  lammpsRoot: string;
  /** The root file system folder to make. */
  output: string;
}

/**
 * The mmdebstrap command line (without `mmdebstrap`) of the image's root file system, a folder: the
 * essential variant (dpkg and the Essential:yes packages; no apt) with the packages installed from outside
 * by apt, their maintainer scripts run in the chroot (update-alternatives makes /usr/bin/mpirun); no
 * manuals, documentation, translations or other examples; /bin, /lib and /sbin link into /usr as in
 * Debian's images; then the built LAMMPS copied in. LAMMPS_FIXES is applied to the folder afterwards.
 */
export function lammpsImageArgs(recipe: LammpsImageRecipe, paths: LammpsImagePaths): string[] {
  return debianFolderArgs('essential', recipe, paths.output, [
    ...examplesFilters(recipe.examples),
    `--hook-dir=${MERGED_USR_HOOKS}`,
    `--customize-hook=sync-in ${hookPath('lammpsRoot', paths.lammpsRoot)} /`,
  ]);
}

/**
 * What the root file system gets after mmdebstrap: DEBIAN_IMAGE_FIXES (apt's and dpkg's leftovers and the
 * device nodes gone, the runtime's files empty). Users and groups stay as base-passwd made them (uid 1000
 * free).
 */
export const LAMMPS_FIXES: RootfsFixes = DEBIAN_IMAGE_FIXES;

/** Hex digest naming the recipe's cache folder: changes with the recipe and the mmdebstrap command. */
export function lammpsImageKey(recipe: LammpsImageRecipe): string {
  const args = lammpsImageArgs(recipe, { lammpsRoot: '/LAMMPS', output: '/OUT' });
  return digestKey({ recipe, args, fixes: LAMMPS_FIXES });
}

/** The history line of the image's one layer; `lammps` names the build (its cache folder). */
export function lammpsImageHistory(recipe: LammpsImageRecipe, lammps: string): string {
  return (
    `${mmdebstrapHistory('essential', recipe.suite, [...recipe.packages].sort())} ` +
    `(examples: ${[...recipe.examples].sort().join(', ')}) + LAMMPS with REAXFF (${lammps}) at ${LAMMPS_REAXFF_PROGRAM}`
  );
}

/**
 * The image as folder-image-build.ts builds it, with the LAMMPS build `lammps` (its cache folder's name)
 * whose root `lammpsRoot` holds usr/local/bin/lmp.
 */
export function lammpsFolderImage(
  recipe: LammpsImageRecipe,
  build: { lammps: string; lammpsRoot: string },
): DebianFolderImage {
  return {
    recipe,
    key: lammpsImageKey(recipe),
    args: (rootfs) => lammpsImageArgs(recipe, { lammpsRoot: build.lammpsRoot, output: rootfs }),
    fixes: LAMMPS_FIXES,
    history: lammpsImageHistory(recipe, build.lammps),
    expect: 'and their dependencies, and LAMMPS (1-3 minutes here)',
  };
}
