// The images the real node holds (loaded, never pulled): the Flux images, the Flux view image, its
// stand-in of the Go operator's layout (a Spack view), the plain application images, the MPI
// application images (LAMMPS on OpenMPI, MPICH with NetPIPE), the Flux image with LAMMPS and LAMMPS with
// REAXFF built here (localhost/lammps:reaxff-bookworm), built on first use into the cache (src/images),
// plus the sandbox's pause.
import {
  ensureFluxImages,
  ensureFluxLammpsImage,
  ensureFluxViewImage,
  ensureLammpsImage,
  ensureMpiImages,
  ensurePlainImages,
  ensureSpackViewImage,
} from '../../images/index.ts';
import type { Progress } from '../../tooling/hack-script.ts';

export interface RealNodeImage {
  reference: string;
  archive: string;
}

/** Every image of the real node but pause, in the order they are loaded; builds what the cache lacks. */
export async function realNodeImages(progress: Progress, env: NodeJS.ProcessEnv): Promise<RealNodeImage[]> {
  const flux = await ensureFluxImages({ progress, env });
  const view = await ensureFluxViewImage({ progress, env });
  const plain = await ensurePlainImages({ progress, env });
  const spackView = await ensureSpackViewImage({ progress, env });
  const mpi = await ensureMpiImages({ progress, env });
  const fluxLammps = await ensureFluxLammpsImage({ progress, env });
  const lammpsReaxff = await ensureLammpsImage({ progress, env });
  return [
    flux.plain,
    flux.awkward,
    view,
    plain.bookworm,
    plain.trixie,
    spackView,
    mpi['lammps-openmpi'],
    mpi.mpich,
    fluxLammps,
    lammpsReaxff,
  ];
}
