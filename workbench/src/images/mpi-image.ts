// The MPI application images, made from Debian 12 packages and holding no Flux (the Flux view brings it):
//   localhost/lammps-openmpi:bookworm  LAMMPS (`lmp`) on OpenMPI 4.1, with lammps-examples;
//   localhost/mpich:bookworm           MPICH 4.0 and NetPIPE built on it (`NPmpich2`).
// Debian's MPI packages need their maintainer scripts (update-alternatives makes /usr/bin/mpirun, mpiexec
// and the libmpi links; ldconfig), so unlike the plain images these are installed, from the essential set
// (dpkg, bash, coreutils, ...; no apt). Pure: the recipes and the mmdebstrap command lines.
import {
  DEBIAN_SUITE,
  MERGED_USR_HOOKS,
  debianFolderArgs,
  debianImageFields,
  mmdebstrapHistory,
} from './debian-rootfs.ts';
import type { DebianFolderImage, DebianImageFields } from './debian-rootfs.ts';
import { digestKey } from './image-archive.ts';
import { DEBIAN_IMAGE_FIXES } from './rootfs-fixes.ts';
import type { RootfsFixes } from './rootfs-fixes.ts';

/** LAMMPS on OpenMPI, with its examples (`lmp -in /usr/share/lammps/examples/melt/in.melt`). */
export const LAMMPS_OPENMPI_IMAGE = 'localhost/lammps-openmpi:bookworm';
/** MPICH with NetPIPE (`NPmpich2`). */
export const MPICH_IMAGE = 'localhost/mpich:bookworm';

/** Where lammps-examples puts LAMMPS's examples (melt/in.melt, reaxff/HNS, ...). */
export const LAMMPS_EXAMPLES_DIR = '/usr/share/lammps/examples';
/** The LAMMPS program of Debian's `lammps` package. */
export const LAMMPS_PROGRAM = 'lmp';
/** NetPIPE's MPI program in Debian's `netpipe-mpich2` package. */
export const NETPIPE_MPICH_PROGRAM = 'NPmpich2';

/** Bump when the build changes in a way the recipe data does not show, so caches rebuild. */
export const MPI_IMAGE_REVISION = 1;

export type MpiImageName = 'lammps-openmpi' | 'mpich';
export const MPI_IMAGE_NAMES: readonly MpiImageName[] = ['lammps-openmpi', 'mpich'];

const REFERENCES: Record<MpiImageName, string> = {
  'lammps-openmpi': LAMMPS_OPENMPI_IMAGE,
  mpich: MPICH_IMAGE,
};

/**
 * The packages asked for beyond the essential set; apt adds their dependencies, not their recommends. The
 * LAMMPS image's size is mostly lammps-examples (145 MB), lammps-data (53 MB) and gcc and gfortran, which
 * libkim-api2 (a dependency of liblammps0) depends on.
 */
export const MPI_IMAGE_PACKAGES: Record<MpiImageName, readonly string[]> = {
  'lammps-openmpi': ['lammps', 'lammps-examples', 'openmpi-bin'],
  mpich: ['mpich', 'netpipe-mpich2'],
};

export interface MpiImageRecipe extends DebianImageFields {
  revision: number;
  name: MpiImageName;
  reference: string;
}

export function mpiImageRecipe(name: MpiImageName): MpiImageRecipe {
  return {
    revision: MPI_IMAGE_REVISION,
    name,
    reference: REFERENCES[name],
    ...debianImageFields(DEBIAN_SUITE, MPI_IMAGE_PACKAGES[name]),
  };
}

/**
 * The mmdebstrap command line (without `mmdebstrap`) of an MPI image's root file system, a folder: the
 * essential variant (the Essential:yes packages, which maintainer scripts may assume, and dpkg; no apt)
 * with the packages installed by apt from outside, their maintainer scripts run in the chroot; no manuals,
 * documentation or translations; /bin, /lib and /sbin link into /usr as in Debian's images. MPI_FIXES is
 * applied to the folder afterwards.
 */
export function mpiImageArgs(recipe: MpiImageRecipe, output: string): string[] {
  return debianFolderArgs('essential', recipe, output, [`--hook-dir=${MERGED_USR_HOOKS}`]);
}

/**
 * What the root file system gets after mmdebstrap: DEBIAN_IMAGE_FIXES (apt's and dpkg's leftovers and the
 * device nodes gone, the runtime's files empty). Users and groups stay as base-passwd made them (uid 1000
 * free).
 */
export const MPI_FIXES: RootfsFixes = DEBIAN_IMAGE_FIXES;

/** Hex digest naming a recipe's cache folder: changes with the recipe and the mmdebstrap command. */
export function mpiImageKey(recipe: MpiImageRecipe): string {
  return digestKey({ recipe, args: mpiImageArgs(recipe, '/OUT'), fixes: MPI_FIXES });
}

/** The history line of the image's one layer. */
export function mpiImageHistory(recipe: MpiImageRecipe): string {
  return mmdebstrapHistory('essential', recipe.suite, [...recipe.packages].sort());
}

/** An MPI image as folder-image-build.ts builds it. */
export function mpiFolderImage(recipe: MpiImageRecipe): DebianFolderImage {
  return {
    recipe,
    key: mpiImageKey(recipe),
    args: (rootfs) => mpiImageArgs(recipe, rootfs),
    fixes: MPI_FIXES,
    history: mpiImageHistory(recipe),
    expect: 'and their dependencies (1-3 minutes here)',
  };
}
