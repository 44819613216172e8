// One build of an image per recipe, kept in the cache: a folder named for the recipe whose build.json
// records what the build made. A folder without a record (or whose files are gone) builds again, as
// root, under an exclusive lock, so two processes asking at once build once. Most builds make one image
// archive (ensureImageBuild); named sets of them are ensured and read together.
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runHackScript, type Progress } from '../tooling/hack-script.ts';
import { cacheRoot } from '../tooling/project.ts';
import { withExclusiveLock } from './lock.ts';

const BUILD_RECORD = 'build.json';

/** The record of a complete build in `dir` when every file `files` names exists, else undefined. */
export function readBuildRecord<R>(dir: string, files: (record: R) => readonly string[]): R | undefined {
  try {
    const record = JSON.parse(readFileSync(path.join(dir, BUILD_RECORD), 'utf8')) as R;
    return files(record).every((file) => existsSync(file)) ? record : undefined;
  } catch {
    return undefined;
  }
}

export interface CachedBuildOptions<R> {
  /** The recipe's cache folder. */
  dir: string;
  /** What is built, for messages (`the Flux view image`). */
  what: string;
  /** `what` names several images (`the Flux images`). */
  plural?: boolean;
  /** The npm script that builds it by hand, for the message when not root. */
  command: string;
  /** The files a complete record names (its archives). */
  files: (record: R) => readonly string[];
  /** Makes the files and returns the record; gets a PATH with the sbin folders. */
  build: (env: NodeJS.ProcessEnv) => Promise<R>;
  progress: Progress;
  env: NodeJS.ProcessEnv;
}

/** The record of `dir`'s build, building it first when the cache lacks it (as root, mmdebstrap). */
export async function ensureCachedBuild<R>(options: CachedBuildOptions<R>): Promise<R> {
  const { dir, progress } = options;
  const cached = readBuildRecord(dir, options.files);
  if (cached !== undefined) return cached;
  if (process.getuid?.() !== 0) {
    const [is, it] = options.plural ? ['are', 'them'] : ['is', 'it'];
    throw new Error(
      `${options.what} ${is} not built yet (${dir}) and building ${it} needs root (mmdebstrap in root mode, ` +
        `file owners of the image): run \`${options.command}\` as root once`,
    );
  }
  const env = withSystemPath(options.env);
  await runHackScript('ensure-packages.sh', ['the container images', 'mmdebstrap'], { progress, env });
  return withExclusiveLock(
    `${dir}.lock`,
    () => progress(`another process is building ${path.basename(dir)}; waiting for it`),
    async () => {
      const again = readBuildRecord(dir, options.files);
      if (again !== undefined) return again;
      const record = await options.build(env);
      await writeFile(path.join(dir, BUILD_RECORD), `${JSON.stringify(record, null, 2)}\n`);
      return record;
    },
  );
}

/** An image a build made. */
export interface BuiltImage {
  reference: string;
  /** The docker-archive tar for `ctr -n k8s.io images import`. */
  archive: string;
  imageId: string;
}

/** The record of a build that made one image archive. */
export interface ImageBuildRecord extends BuiltImage {
  /** The recipe's key, which names the cache folder. */
  key: string;
  /** Size of the archive. */
  bytes: number;
  /** Seconds per step of the build that made the archive. */
  seconds: Record<string, number>;
  builtAt: string;
}

/** How the images' ensure functions are called: where their progress goes, and the environment. */
export interface ImageBuildOptions {
  progress?: Progress;
  env?: NodeJS.ProcessEnv;
}

/** A recipe's cache folder, <cache>/images/<name>. */
export function imageCacheDir(name: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheRoot(env), 'images', name);
}

/** The record of a complete one-image build in `dir` (its archive is there), else undefined. */
export function readImageBuild<R extends BuiltImage>(dir: string): R | undefined {
  return readBuildRecord<R>(dir, (record) => [record.archive]);
}

/** The image of a build record, without the build's details. */
export function imageOf(build: BuiltImage): BuiltImage {
  return { reference: build.reference, archive: build.archive, imageId: build.imageId };
}

/** The record of `dir`'s one-image build, building it first when the cache lacks it (ensureCachedBuild). */
export async function ensureImageBuild<R extends BuiltImage>(
  options: Omit<CachedBuildOptions<R>, 'command' | 'files' | 'plural'>,
): Promise<R> {
  return ensureCachedBuild<R>({
    ...options,
    command: 'npm run images:flux',
    files: (record) => [record.archive],
  });
}

/** The images of `names`, each ensured in turn (built when the cache lacks it). */
export async function ensureImageSet<N extends string>(
  names: readonly N[],
  ensure: (name: N) => Promise<BuiltImage>,
): Promise<Record<N, BuiltImage>> {
  const images = {} as Record<N, BuiltImage>;
  for (const name of names) images[name] = imageOf(await ensure(name));
  return images;
}

/** The images of `names` when every one is built (in its cache folder `dirOf`), without building any. */
export function cachedImageSet<N extends string>(
  names: readonly N[],
  dirOf: (name: N) => string,
): Record<N, BuiltImage> | undefined {
  const images = {} as Record<N, BuiltImage>;
  for (const name of names) {
    const build = readImageBuild(dirOf(name));
    if (build === undefined) return undefined;
    images[name] = imageOf(build);
  }
  return images;
}

/** `env` with the system's sbin and bin folders first on PATH (mmdebstrap, chroot, mount run as root). */
export function withSystemPath(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, PATH: `/usr/sbin:/usr/bin:/sbin:/bin:${env.PATH ?? ''}` };
}

function secondsSince(t0: number): number {
  return Math.round((Date.now() - t0) / 100) / 10;
}

/**
 * Runs steps and records each one's seconds (one decimal) under its name; `finish` records the `total`
 * since the timer was made and says it with every step's (`12.3 s (flux-core 10 s, ..., total 12.3 s)`).
 */
export interface StepTimer {
  seconds: Record<string, number>;
  timed<T>(step: string, fn: () => Promise<T>): Promise<T>;
  finish(): string;
}

export function stepTimer(): StepTimer {
  const seconds: Record<string, number> = {};
  const started = Date.now();
  return {
    seconds,
    async timed<T>(step: string, fn: () => Promise<T>): Promise<T> {
      const t0 = Date.now();
      const res = await fn();
      seconds[step] = secondsSince(t0);
      return res;
    },
    finish(): string {
      seconds.total = secondsSince(started);
      const steps = Object.entries(seconds).map(([step, s]) => `${step} ${s} s`);
      return `${seconds.total} s (${steps.join(', ')})`;
    },
  };
}
