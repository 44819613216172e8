// Whether `npm run bench -- --mpi` can run LAMMPS's ReaxFF HNS case, and in which image: the LAMMPS built
// with REAXFF (localhost/lammps:reaxff-bookworm) when the real node has it, else Debian's, each asked
// for its pair styles (`lmp -h` in a pod). Debian's lmp has no ReaxFF: without the other image, HNS is
// reported unavailable with the reason, never measured some other way.
import {
  LAMMPS_OPENMPI_IMAGE,
  LAMMPS_PROGRAM,
  LAMMPS_REAXFF_IMAGE,
} from '../../workbench/src/images/index.ts';
import { lammpsPairStyles, reaxffPairStyle } from './mpi-logs.ts';
import { runPodOnce, type PodTarget } from './mpi-pod.ts';
import { LAMMPS_HELP, LJ, floorPod } from './mpi-programs.ts';
import type { HnsAvailability } from './mpi-result.ts';

/** What one image's `lmp -h` said. */
export interface StylesProbe {
  image: string;
  /** How many pair styles it lists. */
  pairStyles: number;
  /** ReaxFF's pair style as it names it, if it has it. */
  reaxff: string | undefined;
}

/** The images to ask, in order: the LAMMPS with REAXFF when the node has it, then Debian's. */
export function hnsCandidates(nodeImages: readonly string[]): string[] {
  return [...(nodeImages.includes(LAMMPS_REAXFF_IMAGE) ? [LAMMPS_REAXFF_IMAGE] : []), LAMMPS_OPENMPI_IMAGE];
}

/** The first image with ReaxFF, or why there is none. */
export function hnsAvailability(probes: readonly StylesProbe[]): HnsAvailability {
  const found = probes.find((probe) => probe.reaxff !== undefined);
  if (found !== undefined) return { available: true, image: found.image };
  const missing = probes.some((probe) => probe.image === LAMMPS_REAXFF_IMAGE)
    ? []
    : [`the real node has no ${LAMMPS_REAXFF_IMAGE} (LAMMPS built with REAXFF)`];
  const lacking = probes.map(
    (probe) =>
      `${probe.image}'s ${LAMMPS_PROGRAM} has no ReaxFF pair style (its -h lists ${probe.pairStyles} pair ` +
      `styles, neither reaxff nor reax/c${probe.image === LAMMPS_OPENMPI_IMAGE ? ": Debian's lammps is built without REAXFF" : ''})`,
  );
  return { available: false, reason: [...missing, ...lacking].join('; ') };
}

/** Asks each candidate image for its pair styles, until one has ReaxFF. */
export async function probeHns(target: PodTarget, nodeImages: readonly string[]): Promise<HnsAvailability> {
  const probes: StylesProbe[] = [];
  for (const [index, image] of hnsCandidates(nodeImages).entries()) {
    const pod = floorPod(target.namespace, `lammps-styles-${index}`, { ...LJ, image }, LAMMPS_HELP);
    const { log } = await runPodOnce(target, pod);
    const probe = { image, pairStyles: lammpsPairStyles(log).length, reaxff: reaxffPairStyle(log) };
    probes.push(probe);
    if (probe.reaxff !== undefined) break;
  }
  return hnsAvailability(probes);
}
