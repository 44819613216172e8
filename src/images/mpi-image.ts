// The MPI application images, made from Debian 12 packages and holding no Flux (the Flux view brings it):
//   localhost/lammps-openmpi:bookworm  LAMMPS (`lmp`) on OpenMPI 4.1, with lammps-examples;
//   localhost/mpich:bookworm           MPICH 4.0 and NetPIPE built on it (`NPmpich2`).
// Debian's MPI packages need their maintainer scripts (update-alternatives makes /usr/bin/mpirun, mpiexec
// and the libmpi links; ldconfig), so unlike the plain images these are installed, from the essential set
// (dpkg, bash, coreutils, ...; no apt). Pure: the recipes and the mmdebstrap command lines.
import { createHash } from 'node:crypto';
import {
  DEBIAN_MIRRORS,
  DEBIAN_SUITE,
  IMAGE_PATH,
  MERGED_USR_HOOKS,
  SLIM_DPKG_OPTIONS,
  SOURCE_DATE_EPOCH,
  hookPath,
} from './debian-rootfs.ts';
import { canonicalJson } from './image-archive.ts';
import type { ImageConfig } from './image-archive.ts';
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

export interface MpiImageRecipe {
  revision: number;
  name: MpiImageName;
  reference: string;
  suite: string;
  mirrors: string[];
  packages: string[];
  sourceDateEpoch: number;
  config: ImageConfig;
}

export function mpiImageRecipe(name: MpiImageName): MpiImageRecipe {
  return {
    revision: MPI_IMAGE_REVISION,
    name,
    reference: REFERENCES[name],
    suite: DEBIAN_SUITE,
    mirrors: [...DEBIAN_MIRRORS],
    packages: [...MPI_IMAGE_PACKAGES[name]],
    sourceDateEpoch: SOURCE_DATE_EPOCH,
    // No user: the image runs as root, as the operator's entrypoint expects.
    config: { env: [`PATH=${IMAGE_PATH}`], cmd: ['/bin/bash'] },
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
  hookPath('output', output);
  return [
    '--variant=essential',
    '--mode=root',
    '--format=directory',
    '--architectures=amd64',
    `--include=${[...recipe.packages].sort().join(',')}`,
    ...SLIM_DPKG_OPTIONS,
    `--hook-dir=${MERGED_USR_HOOKS}`,
    recipe.suite,
    output,
    ...recipe.mirrors,
  ];
}

/**
 * What the root file system gets after mmdebstrap: what it left for apt (the image has none) and its dpkg
 * options go, the device nodes too (the runtime makes /dev), and the runtime's files are left empty (it
 * provides the host name and resolver). Users and groups stay as base-passwd made them (uid 1000 free).
 */
export const MPI_FIXES: RootfsFixes = {
  write: { 'etc/hostname': '', 'etc/resolv.conf': '' },
  remove: ['etc/apt', 'var/lib/apt', 'var/cache/apt', 'etc/dpkg/dpkg.cfg.d/99mmdebstrap'],
  emptyDirs: ['dev'],
};

/** Hex digest naming a recipe's cache folder: changes with the recipe and the mmdebstrap command. */
export function mpiImageKey(recipe: MpiImageRecipe): string {
  const args = mpiImageArgs(recipe, '/OUT');
  return createHash('sha256')
    .update(canonicalJson({ recipe, args, fixes: MPI_FIXES }))
    .digest('hex')
    .slice(0, 16);
}

/** The history line of the image's one layer. */
export function mpiImageHistory(recipe: MpiImageRecipe): string {
  return `mmdebstrap --variant=essential ${recipe.suite} ${[...recipe.packages].sort().join(' ')}`;
}
