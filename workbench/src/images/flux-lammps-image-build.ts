// Builds the Flux image with LAMMPS (flux-lammps-image.ts) as the Flux images are built (flux-image.ts:
// flux-core from hack/build-flux-core.sh, mmdebstrap, a layer per variant) into
// <cache>/images/flux-lammps-<version>-<key>/; and checks it in a chroot (hack/check-mpi-image-rootfs.sh
// flux-lammps: `flux --version`, then LAMMPS's melt example on 2 ranks with mpirun).
import { checkImageInChroot } from './chroot-check.ts';
import {
  cachedFluxImageSet,
  ensureFluxImageSet,
  ensureFluxImagesBuild,
  readFluxCoreVersion,
  stderrProgress,
} from './flux-image.ts';
import type { EnsureFluxImagesOptions, FluxImage, FluxImageRecipe, FluxImagesBuild } from './flux-image.ts';
import { fluxLammpsImageRecipe } from './flux-lammps-image.ts';
import type { FluxLammpsImageName } from './flux-lammps-image.ts';

/** The recipe of hack/versions.env's flux-core and what messages call it. */
function currentRecipe(): { recipe: FluxImageRecipe<FluxLammpsImageName>; what: string } {
  const recipe = fluxLammpsImageRecipe(readFluxCoreVersion());
  return { recipe, what: `the Flux image ${recipe.variants.lammps.reference}` };
}

/** The build record of the Flux image with LAMMPS, building it first when the cache lacks it. */
export async function ensureFluxLammpsImageBuild(
  options: EnsureFluxImagesOptions = {},
): Promise<FluxImagesBuild<FluxLammpsImageName>> {
  const { recipe, what } = currentRecipe();
  return ensureFluxImagesBuild(recipe, what, options);
}

/** The Flux image with LAMMPS of hack/versions.env's flux-core, building it when the cache lacks it. */
export async function ensureFluxLammpsImage(options: EnsureFluxImagesOptions = {}): Promise<FluxImage> {
  const { recipe, what } = currentRecipe();
  return (await ensureFluxImageSet(recipe, what, options)).lammps;
}

/** The Flux image with LAMMPS when it is already built, without building anything. */
export function cachedFluxLammpsImage(options: { env?: NodeJS.ProcessEnv } = {}): FluxImage | undefined {
  return cachedFluxImageSet(fluxLammpsImageRecipe(readFluxCoreVersion()), options)?.lammps;
}

/**
 * Unpacks the image archive into a temporary folder and runs hack/check-mpi-image-rootfs.sh flux-lammps
 * there (as root, in a chroot): bash, `flux --version`, the shared libraries of lmp and mpirun, `lmp -h`,
 * then LAMMPS's melt example with `mpirun -np 2` (`Loop time of ... on 2 procs`). Returns the check's
 * output; throws when a check fails.
 */
export async function checkFluxLammpsImage(
  archive: string,
  options: EnsureFluxImagesOptions = {},
): Promise<string> {
  return checkImageInChroot({
    prefix: 'flux-lammps-check-',
    script: 'check-mpi-image-rootfs.sh',
    archive,
    args: (rootfs) => ['flux-lammps', rootfs],
    progress: options.progress ?? stderrProgress,
    env: options.env ?? process.env,
  });
}
