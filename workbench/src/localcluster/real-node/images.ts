// The images the real node holds (loaded, never pulled): the Flux images, the Flux view image, its
// stand-in of the Go operator's layout (a Spack view), the plain application images, the MPI
// application images (LAMMPS on OpenMPI, MPICH with NetPIPE), the Flux image with LAMMPS and LAMMPS with
// REAXFF built here (localhost/lammps:reaxff-bookworm), built on first use into the cache (workbench/src/images),
// plus the sandbox's pause. In groups, so that a first run builds only what it runs: `npm start`'s
// hello-world needs the view and a plain image, not LAMMPS (a 25-minute build on 2 cores).
import {
  FLUX_CORE_BUILD_SECONDS,
  cachedFluxCore,
  cachedFluxImages,
  cachedFluxLammpsImage,
  cachedFluxViewImage,
  cachedLammpsImage,
  cachedMpiImages,
  cachedPlainImages,
  ensureFluxImages,
  ensureFluxLammpsImage,
  ensureFluxViewImage,
  ensureLammpsImage,
  ensureMpiImages,
  ensurePlainImages,
  ensureSpackViewImage,
  readImageBuild,
  readFluxCoreVersion,
  spackViewDir,
  spackViewRecipe,
} from '../../images/index.ts';
import type { Progress } from '../../tooling/hack-script.ts';

export interface RealNodeImage {
  reference: string;
  archive: string;
}

/** The images of the real node, in groups built together, in the order they are loaded. */
export const REAL_NODE_IMAGE_GROUPS = [
  'flux',
  'view',
  'plain',
  'spackView',
  'mpi',
  'fluxLammps',
  'lammpsReaxff',
] as const;
export type RealNodeImageGroup = (typeof REAL_NODE_IMAGE_GROUPS)[number];

interface GroupBuild {
  /** What the group is, for progress lines. */
  readonly what: string;
  /**
   * How long its build takes on a fresh 2-core machine, in seconds, flux-core aside (FLUX_CORE_BUILD_SECONDS,
   * counted once for the first group that builds it): the issue's measure of a fresh machine (the view's
   * assembly, 198 s) and this machine's build records (~/.cache/flux-operator/images/*\/build.json: the
   * Flux images' base and layers 42-49 s, the MPI images 284 s, the Flux image with LAMMPS 67 s, the
   * plain images 15 s) and cache folders' times (LAMMPS built from Debian's source with REAXFF, 25 minutes).
   */
  readonly seconds: number;
  /** It builds from flux-core (flux-core.ts), one build for every such group. */
  readonly usesFluxCore?: boolean;
  readonly ensure: (progress: Progress, env: NodeJS.ProcessEnv) => Promise<RealNodeImage[]>;
  /** The group's images when all are in the cache, without building any. */
  readonly cached: (env: NodeJS.ProcessEnv) => RealNodeImage[] | undefined;
}

function cachedSpackView(env: NodeJS.ProcessEnv): RealNodeImage[] | undefined {
  const view = cachedFluxViewImage({ env });
  const base = cachedPlainImages({ env })?.bookworm;
  if (view === undefined || base === undefined) return undefined;
  const recipe = spackViewRecipe(readFluxCoreVersion(), {
    viewImageId: view.imageId,
    baseImageId: base.imageId,
  });
  const build = readImageBuild(spackViewDir(recipe, env));
  return build === undefined ? undefined : [build];
}

const GROUPS: Record<RealNodeImageGroup, GroupBuild> = {
  flux: {
    what: 'the Flux images',
    seconds: 60,
    usesFluxCore: true,
    ensure: async (progress, env) => {
      const flux = await ensureFluxImages({ progress, env });
      return [flux.plain, flux.awkward];
    },
    cached: (env) => {
      const flux = cachedFluxImages({ env });
      return flux === undefined ? undefined : [flux.plain, flux.awkward];
    },
  },
  view: {
    what: 'the Flux view image',
    seconds: 200,
    usesFluxCore: true,
    ensure: async (progress, env) => [await ensureFluxViewImage({ progress, env })],
    cached: (env) => {
      const view = cachedFluxViewImage({ env });
      return view === undefined ? undefined : [view];
    },
  },
  plain: {
    what: 'the plain images (bash and coreutils)',
    seconds: 15,
    ensure: async (progress, env) => {
      const plain = await ensurePlainImages({ progress, env });
      return [plain.bookworm, plain.trixie];
    },
    cached: (env) => {
      const plain = cachedPlainImages({ env });
      return plain === undefined ? undefined : [plain.bookworm, plain.trixie];
    },
  },
  spackView: {
    what: "the Go operator's view layout",
    seconds: 5,
    ensure: async (progress, env) => [await ensureSpackViewImage({ progress, env })],
    cached: cachedSpackView,
  },
  mpi: {
    what: 'the MPI images (LAMMPS on OpenMPI, MPICH with NetPIPE)',
    seconds: 284,
    ensure: async (progress, env) => {
      const mpi = await ensureMpiImages({ progress, env });
      return [mpi['lammps-openmpi'], mpi.mpich];
    },
    cached: (env) => {
      const mpi = cachedMpiImages({ env });
      return mpi === undefined ? undefined : [mpi['lammps-openmpi'], mpi.mpich];
    },
  },
  fluxLammps: {
    what: 'the Flux image with LAMMPS',
    seconds: 70,
    usesFluxCore: true,
    ensure: async (progress, env) => [await ensureFluxLammpsImage({ progress, env })],
    cached: (env) => {
      const image = cachedFluxLammpsImage({ env });
      return image === undefined ? undefined : [image];
    },
  },
  lammpsReaxff: {
    what: "LAMMPS with REAXFF (built from Debian's source)",
    seconds: 1500,
    ensure: async (progress, env) => [await ensureLammpsImage({ progress, env })],
    cached: (env) => {
      const image = cachedLammpsImage({ env });
      return image === undefined ? undefined : [image];
    },
  },
};

/** Images a group depends on are built with it (the Spack layout is made of the view and a plain image). */
const NEEDS: Partial<Record<RealNodeImageGroup, readonly RealNodeImageGroup[]>> = {
  spackView: ['view', 'plain'],
  fluxLammps: ['flux'],
};

/** `groups` and what they need, in the load order. */
export function withNeeds(groups: readonly RealNodeImageGroup[]): RealNodeImageGroup[] {
  const wanted = new Set<RealNodeImageGroup>();
  const add = (group: RealNodeImageGroup) => {
    if (wanted.has(group)) return;
    wanted.add(group);
    for (const need of NEEDS[group] ?? []) add(need);
  };
  groups.forEach(add);
  return REAL_NODE_IMAGE_GROUPS.filter((group) => wanted.has(group));
}

/** A group the cache lacks: what building it is and how long it takes. */
export interface ImageBuildStage {
  readonly group: RealNodeImageGroup;
  readonly what: string;
  readonly seconds: number;
}

/**
 * The groups of `groups` (and what they need) that the cache lacks, without building any. flux-core,
 * when the cache lacks it too, counts with the first of them that builds from it: they are built in
 * this order, and the others find it built.
 */
export function uncachedImageGroups(
  groups: readonly RealNodeImageGroup[],
  env: NodeJS.ProcessEnv,
): ImageBuildStage[] {
  let fluxCoreLeft = cachedFluxCore(readFluxCoreVersion(), env) === undefined;
  return withNeeds(groups)
    .filter((group) => GROUPS[group].cached(env) === undefined)
    .map((group) => {
      const { what, seconds, usesFluxCore } = GROUPS[group];
      if (!(fluxCoreLeft && usesFluxCore === true)) return { group, what, seconds };
      fluxCoreLeft = false;
      return {
        group,
        what: `${what} (first flux-core, built once for the Flux images and the view)`,
        seconds: seconds + FLUX_CORE_BUILD_SECONDS,
      };
    });
}

/**
 * The images of `groups` (default: every one), in the order they are loaded; builds what the cache
 * lacks, telling `building` before each group it builds.
 */
export async function realNodeImages(
  progress: Progress,
  env: NodeJS.ProcessEnv,
  groups: readonly RealNodeImageGroup[] = REAL_NODE_IMAGE_GROUPS,
  building: (group: RealNodeImageGroup) => void = () => undefined,
): Promise<RealNodeImage[]> {
  const images: RealNodeImage[] = [];
  for (const group of withNeeds(groups)) {
    const cached = GROUPS[group].cached(env);
    if (cached === undefined) building(group);
    images.push(...(cached ?? (await GROUPS[group].ensure(progress, env))));
  }
  return images;
}
