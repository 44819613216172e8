// npm run images:flux [-- --check] [-- --json]: builds (once per recipe) the images of the real node into
// the cache and prints where they are: the plain and awkward Flux images, the Flux view image, the
// plain application images (bookworm, trixie), the view's stand-in of the Go operator's view images
// (localhost/flux-view-spack-layout), the MPI application images (localhost/lammps-openmpi:bookworm,
// localhost/mpich:bookworm), the Flux image with LAMMPS (localhost/flux-lammps:<version>) and LAMMPS with
// REAXFF built here (localhost/lammps:reaxff-bookworm). --check also runs each Flux image's chroot check,
// the view's in each plain image and each MPI image's (its program on 2 ranks), the Flux image with
// LAMMPS's and the REAXFF image's (melt and the HNS example on 2 ranks) too (root).
import { parseArgs } from 'node:util';
import {
  FLUX_IMAGE_NAMES,
  MPI_IMAGE_NAMES,
  PLAIN_SUITES,
  checkFluxImage,
  checkFluxLammpsImage,
  checkFluxView,
  checkLammpsImage,
  checkMpiImage,
  ensureFluxImages,
  ensureFluxLammpsImageBuild,
  ensureFluxViewBuild,
  ensureLammpsImageBuild,
  ensureMpiImageBuild,
  ensurePlainImageBuild,
  ensureSpackViewBuild,
  fluxImageRecipe,
  fluxImagesDir,
  readFluxCoreVersion,
  readFluxImagesBuild,
} from '../workbench/src/images/index.ts';

const usage = 'usage: node hack/flux-images.ts [--check] [--json]';

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(0)} MiB`;
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { check: { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean' } },
  });
  if (values.help || positionals.length > 0) {
    console.error(usage);
    return values.help ? 0 : 2;
  }
  const t0 = Date.now();
  const images = await ensureFluxImages();
  const view = await ensureFluxViewBuild();
  const plain = [];
  for (const suite of PLAIN_SUITES) plain.push(await ensurePlainImageBuild(suite));
  const spackView = await ensureSpackViewBuild();
  const mpi = [];
  for (const name of MPI_IMAGE_NAMES) mpi.push(await ensureMpiImageBuild(name));
  const fluxLammps = await ensureFluxLammpsImageBuild();
  const lammpsReaxff = await ensureLammpsImageBuild();
  const seconds = (Date.now() - t0) / 1000;
  const build = readFluxImagesBuild(fluxImagesDir(fluxImageRecipe(readFluxCoreVersion())));
  if (values.json) {
    console.log(
      JSON.stringify(
        { images, build, view, plain, spackView, mpi, fluxLammps, lammpsReaxff, seconds },
        null,
        2,
      ),
    );
  } else {
    for (const name of FLUX_IMAGE_NAMES) {
      const image = build?.images[name] ?? { ...images[name], bytes: 0 };
      console.log(`${image.reference} ${image.archive} (${mib(image.bytes)}, ${image.imageId})`);
    }
    console.log(
      `${view.reference} ${view.archive} (${mib(view.bytes)}; the view ${mib(view.viewBytes)} in ${view.viewFiles} files, ${view.imageId})`,
    );
    for (const p of plain) console.log(`${p.reference} ${p.archive} (${mib(p.bytes)}, ${p.imageId})`);
    console.log(
      `${spackView.reference} ${spackView.archive} (${mib(spackView.bytes)}; the view at ${spackView.view}, ${spackView.imageId})`,
    );
    for (const m of mpi) console.log(`${m.reference} ${m.archive} (${mib(m.bytes)}, ${m.imageId})`);
    const l = fluxLammps.images.lammps;
    console.log(`${l.reference} ${l.archive} (${mib(l.bytes)}, ${l.imageId})`);
    const r = lammpsReaxff;
    console.log(`${r.reference} ${r.archive} (${mib(r.bytes)}; LAMMPS ${r.lammps}, ${r.imageId})`);
    console.error(`[flux-images] ready in ${seconds.toFixed(1)} s`);
  }
  if (values.check) {
    for (const name of FLUX_IMAGE_NAMES) {
      console.error(`[flux-images] checking ${images[name].reference}`);
      process.stdout.write(await checkFluxImage(images[name].archive));
    }
    for (const p of plain) {
      console.error(`[flux-images] checking ${view.reference} in ${p.reference}`);
      process.stdout.write(await checkFluxView(view.archive, p.archive));
    }
    for (const m of mpi) {
      console.error(`[flux-images] checking ${m.reference}`);
      process.stdout.write(await checkMpiImage(m.name, m.archive));
    }
    console.error(`[flux-images] checking ${fluxLammps.images.lammps.reference}`);
    process.stdout.write(await checkFluxLammpsImage(fluxLammps.images.lammps.archive));
    console.error(`[flux-images] checking ${lammpsReaxff.reference}`);
    process.stdout.write(await checkLammpsImage(lammpsReaxff.archive));
  }
  return 0;
}

main().then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    console.error(`[flux-images] error: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
