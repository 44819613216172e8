// Builds the plain images (plain-image.ts), each once per recipe into
// <cache>/images/plain-<suite>-<key>/: one layer from mmdebstrap, packed with our image writer.
import type { Progress } from '../tooling/hack-script.ts';
import { cachedImageSet, ensureImageSet, imageCacheDir, readImageBuild } from './cached-build.ts';
import type { BuiltImage, ImageBuildOptions, ImageBuildRecord } from './cached-build.ts';
import { ensureDebianFolderImage } from './folder-image-build.ts';
import { PLAIN_SUITES, plainFolderImage, plainImageKey, plainImageRecipe } from './plain-image.ts';
import type { PlainImageRecipe, PlainSuite } from './plain-image.ts';

export const plainProgress: Progress = (line) => process.stderr.write(`[plain-images] ${line}\n`);

export type PlainImage = BuiltImage;

export interface PlainImageBuild extends ImageBuildRecord {
  suite: PlainSuite;
}

export type PlainImages = Record<PlainSuite, PlainImage>;

export type EnsurePlainImagesOptions = ImageBuildOptions;

export function plainImageDir(recipe: PlainImageRecipe, env: NodeJS.ProcessEnv = process.env): string {
  return imageCacheDir(`plain-${recipe.suite}-${plainImageKey(recipe)}`, env);
}

export function readPlainImageBuild(dir: string): PlainImageBuild | undefined {
  return readImageBuild<PlainImageBuild>(dir);
}

/** One plain image's build record, building it first when the cache lacks it (as root, about a minute). */
export async function ensurePlainImageBuild(
  suite: PlainSuite,
  options: EnsurePlainImagesOptions = {},
): Promise<PlainImageBuild> {
  const recipe = plainImageRecipe(suite);
  return ensureDebianFolderImage(plainFolderImage(recipe), {
    dir: plainImageDir(recipe, options.env),
    what: `the plain image ${recipe.reference}`,
    fields: { suite },
    progress: options.progress ?? plainProgress,
    env: options.env,
  });
}

/** Both plain images, building what the cache lacks. */
export async function ensurePlainImages(options: EnsurePlainImagesOptions = {}): Promise<PlainImages> {
  return ensureImageSet(PLAIN_SUITES, (suite) => ensurePlainImageBuild(suite, options));
}

/** The plain images of the current recipes when both are built, without building anything. */
export function cachedPlainImages(options: { env?: NodeJS.ProcessEnv } = {}): PlainImages | undefined {
  return cachedImageSet(PLAIN_SUITES, (suite) => plainImageDir(plainImageRecipe(suite), options.env));
}
