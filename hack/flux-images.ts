// npm run images:flux [-- --check] [-- --json]: builds (once per recipe) the plain and awkward Flux image
// archives into the cache and prints where they are; --check also runs each image's chroot check (root).
import { parseArgs } from 'node:util';
import {
  FLUX_IMAGE_NAMES,
  checkFluxImage,
  ensureFluxImages,
  fluxImageRecipe,
  fluxImagesDir,
  readFluxCoreVersion,
  readFluxImagesBuild,
} from '../src/images/index.ts';

const usage = 'usage: node hack/flux-images.ts [--check] [--json]';

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
  const seconds = (Date.now() - t0) / 1000;
  const build = readFluxImagesBuild(fluxImagesDir(fluxImageRecipe(readFluxCoreVersion())));
  if (values.json) {
    console.log(JSON.stringify({ images, build, seconds }, null, 2));
  } else {
    for (const name of FLUX_IMAGE_NAMES) {
      const image = build?.images[name] ?? { ...images[name], bytes: 0 };
      console.log(
        `${image.reference} ${image.archive} (${(image.bytes / 2 ** 20).toFixed(0)} MiB, ${image.imageId})`,
      );
    }
    console.error(`[flux-images] ready in ${seconds.toFixed(1)} s`);
  }
  if (values.check) {
    for (const name of FLUX_IMAGE_NAMES) {
      console.error(`[flux-images] checking ${images[name].reference}`);
      process.stdout.write(await checkFluxImage(images[name].archive));
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
