// The images the real node holds (loaded, never pulled): the Flux images, the Flux view image, its
// stand-in of the Go operator's layout (a Spack view) and the plain application images, built on first
// use into the cache (src/images), plus the sandbox's pause.
import {
  ensureFluxImages,
  ensureFluxViewImage,
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
  return [flux.plain, flux.awkward, view, plain.bookworm, plain.trixie, spackView];
}
