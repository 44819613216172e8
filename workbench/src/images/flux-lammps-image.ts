// The Flux image with LAMMPS, localhost/flux-lammps:<version>: for MiniClusters that run Flux from their
// own image (v1alpha1) and a real MPI program. The plain Flux image's recipe (its runtime packages,
// flux-core, /run/munge) with Debian's LAMMPS on OpenMPI and its examples in the base: the same packages as
// localhost/lammps-openmpi:bookworm, installed by apt in the chroot, so their maintainer scripts run
// (update-alternatives makes /usr/bin/mpirun, mpiexec and the libmpi links). Pure: the recipe.
import { FLUX_IMAGE_REPOSITORY, MUNGE_RUN_DIR, fluxBaseRecipe } from './flux-image.ts';
import type { FluxImageRecipe } from './flux-image.ts';
import { MPI_IMAGE_PACKAGES } from './mpi-image.ts';

export const FLUX_LAMMPS_REPOSITORY = `${FLUX_IMAGE_REPOSITORY}-lammps`;

/** The image of hack/versions.env's flux-core (a unit test keeps the two in step). */
export const FLUX_LAMMPS_IMAGE = `${FLUX_LAMMPS_REPOSITORY}:0.88.0`;

/** Beyond the Flux images' packages: LAMMPS (`lmp`), its examples and OpenMPI's mpirun. */
export const FLUX_LAMMPS_PACKAGES = MPI_IMAGE_PACKAGES['lammps-openmpi'];

export type FluxLammpsImageName = 'lammps';

export function fluxLammpsImageRecipe(fluxCoreVersion: string): FluxImageRecipe<FluxLammpsImageName> {
  return fluxBaseRecipe(fluxCoreVersion, FLUX_LAMMPS_PACKAGES, {
    lammps: { reference: `${FLUX_LAMMPS_REPOSITORY}:${fluxCoreVersion}`, steps: [MUNGE_RUN_DIR] },
  });
}
