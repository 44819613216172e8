// npm run images:flux [-- --check] [-- --json]: builds (once per recipe) the images of the real node into
// the cache and prints where they are: the plain and awkward Flux images, the Flux view image, the
// plain application images (bookworm, trixie) and the view's stand-in of the Go operator's view images
// (localhost/flux-view-spack-layout). --check also runs each Flux image's chroot check and the view's,
// in each plain image (root).
import { parseArgs } from 'node:util';
import {
  FLUX_IMAGE_NAMES,
  PLAIN_SUITES,
  checkFluxImage,
  checkFluxView,
  ensureFluxImages,
  ensureFluxViewBuild,
  ensurePlainImageBuild,
  ensureSpackViewBuild,
  fluxImageRecipe,
  fluxImagesDir,
  readFluxCoreVersion,
  readFluxImagesBuild,
} from '../src/images/index.ts';

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
  const seconds = (Date.now() - t0) / 1000;
  const build = readFluxImagesBuild(fluxImagesDir(fluxImageRecipe(readFluxCoreVersion())));
  if (values.json) {
    console.log(JSON.stringify({ images, build, view, plain, spackView, seconds }, null, 2));
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
