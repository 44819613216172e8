// Builds the plain images (plain-image.ts), each once per recipe into
// <cache>/images/plain-<suite>-<key>/: one layer from mmdebstrap, packed with our image writer.
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runCommand } from '../tooling/command.ts';
import type { Progress } from '../tooling/hack-script.ts';
import { cacheRoot } from '../tooling/project.ts';
import { ensureCachedBuild, readBuildRecord, stepTimer } from './cached-build.ts';
import { writeDirectoryLayer } from './directory-layer.ts';
import { runMmdebstrap } from './debian-rootfs.ts';
import { archiveFileName, writeImageArchive } from './image-archive.ts';
import { PLAIN_FIXES, PLAIN_SUITES, plainImageArgs, plainImageKey, plainImageRecipe } from './plain-image.ts';
import type { PlainImageRecipe, PlainSuite } from './plain-image.ts';

export const plainProgress: Progress = (line) => process.stderr.write(`[plain-images] ${line}\n`);

export interface PlainImage {
  reference: string;
  archive: string;
  imageId: string;
}

export interface PlainImageBuild extends PlainImage {
  key: string;
  suite: PlainSuite;
  bytes: number;
  seconds: Record<string, number>;
  builtAt: string;
}

export type PlainImages = Record<PlainSuite, PlainImage>;

export function plainImageDir(recipe: PlainImageRecipe, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheRoot(env), 'images', `plain-${recipe.suite}-${plainImageKey(recipe)}`);
}

export function readPlainImageBuild(dir: string): PlainImageBuild | undefined {
  return readBuildRecord<PlainImageBuild>(dir, (record) => [record.archive]);
}

export interface EnsurePlainImagesOptions {
  progress?: Progress;
  env?: NodeJS.ProcessEnv;
}

/** One plain image's build record, building it first when the cache lacks it (as root, about a minute). */
export async function ensurePlainImageBuild(
  suite: PlainSuite,
  options: EnsurePlainImagesOptions = {},
): Promise<PlainImageBuild> {
  const progress = options.progress ?? plainProgress;
  const env = options.env ?? process.env;
  const recipe = plainImageRecipe(suite);
  const dir = plainImageDir(recipe, env);
  return ensureCachedBuild<PlainImageBuild>({
    dir,
    what: `the plain image ${recipe.reference}`,
    command: 'npm run images:flux',
    files: (record) => [record.archive],
    progress,
    env,
    build: (childEnv) => buildPlainImage(recipe, dir, childEnv, progress),
  });
}

/** Both plain images, building what the cache lacks. */
export async function ensurePlainImages(options: EnsurePlainImagesOptions = {}): Promise<PlainImages> {
  const images = {} as PlainImages;
  for (const suite of PLAIN_SUITES) {
    const { reference, archive, imageId } = await ensurePlainImageBuild(suite, options);
    images[suite] = { reference, archive, imageId };
  }
  return images;
}

/** The plain images of the current recipes when both are built, without building anything. */
export function cachedPlainImages(options: { env?: NodeJS.ProcessEnv } = {}): PlainImages | undefined {
  const images = {} as PlainImages;
  for (const suite of PLAIN_SUITES) {
    const build = readPlainImageBuild(plainImageDir(plainImageRecipe(suite), options.env));
    if (build === undefined) return undefined;
    images[suite] = { reference: build.reference, archive: build.archive, imageId: build.imageId };
  }
  return images;
}

/** PLAIN_FIXES applied to the root file system mmdebstrap made. */
async function applyFixes(rootfs: string): Promise<void> {
  for (const p of PLAIN_FIXES.remove) await rm(path.join(rootfs, p), { recursive: true, force: true });
  for (const dir of PLAIN_FIXES.emptyDirs) {
    for (const name of await readdir(path.join(rootfs, dir))) {
      await rm(path.join(rootfs, dir, name), { recursive: true, force: true });
    }
  }
  for (const [file, text] of Object.entries(PLAIN_FIXES.write)) {
    await rm(path.join(rootfs, file), { force: true });
    await writeFile(path.join(rootfs, file), text, { mode: 0o644 });
  }
}

async function buildPlainImage(
  recipe: PlainImageRecipe,
  dir: string,
  env: NodeJS.ProcessEnv,
  progress: Progress,
): Promise<PlainImageBuild> {
  const { seconds, timed } = stepTimer();
  const work = path.join(dir, 'work');
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { recursive: true });
  const rootfs = path.join(work, 'rootfs');
  const layer = path.join(work, 'rootfs.tar');
  progress(`mmdebstrap: ${recipe.suite} with ${recipe.packages.join(', ')} (under a minute here)`);
  await timed('mmdebstrap', () => runMmdebstrap(plainImageArgs(recipe, rootfs), recipe, { env, progress }));
  await applyFixes(rootfs);
  await timed('layer', () => writeDirectoryLayer({ directory: rootfs, output: layer, owner: 'keep' }));
  const archive = path.join(dir, archiveFileName(recipe.reference));
  const res = await timed('pack', () =>
    writeImageArchive({
      reference: recipe.reference,
      layers: [layer],
      config: recipe.config,
      output: archive,
      history: [`mmdebstrap --variant=extract ${recipe.suite} ${recipe.packages.join(' ')}`],
    }),
  );
  const bytes = (await stat(archive)).size;
  await runCommand('rm', ['-rf', '--one-file-system', work], { env });
  progress(
    `${recipe.reference}: ${archive} (${(bytes / 2 ** 20).toFixed(0)} MiB) in ${seconds.mmdebstrap} s`,
  );
  return {
    key: plainImageKey(recipe),
    suite: recipe.suite,
    reference: recipe.reference,
    archive,
    imageId: res.imageId,
    bytes,
    seconds,
    builtAt: new Date().toISOString(),
  };
}
