// The Flux images of the real-node tests, made without docker or a registry: a bookworm root file system
// from mmdebstrap (Debian's runtime packages plus flux-core built by hack/build-flux-core.sh) as the
// shared base layer, and one small layer per variant:
//   plain    localhost/flux:<version>          /run/munge made and owned by munge, as a Dockerfile would;
//   awkward  localhost/flux:<version>-awkward  a user `ubuntu` with uid 1000 (like Ubuntu 24.04 images)
//                                              and munge as Debian installs it (no /run/munge).
// Built once per recipe into <cache>/images/flux-<version>-<recipe hash>/, then reused.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runHackScript } from '../localcluster/build.ts';
import { runCommand } from '../localcluster/command.ts';
import { cacheRoot, findProjectRoot, readVersions } from '../localcluster/paths.ts';
import { mountsUnder } from '../localcluster/real-node/host.ts';
import { canonicalJson, writeImageArchive } from './image-archive.ts';
import type { ImageConfig } from './image-archive.ts';
import { withExclusiveLock } from './lock.ts';
import { archivePath, writeTar } from './tar-writer.ts';
import type { TarEntry } from './tar-writer.ts';
import { unpackImageArchive } from './unpack.ts';

export type Progress = (line: string) => void;

export const stderrProgress: Progress = (line) => process.stderr.write(`[flux-images] ${line}\n`);

/** Bump when the build changes in a way the recipe data does not show, so caches rebuild. */
export const RECIPE_REVISION = 1;

export const FLUX_IMAGE_REPOSITORY = 'localhost/flux';

/** The same suites as this Debian 12 machine, where flux-core is built: same library versions. */
export const DEBIAN_SUITE = 'bookworm';
export const DEBIAN_MIRRORS = [
  'deb http://deb.debian.org/debian bookworm main',
  'deb http://deb.debian.org/debian bookworm-updates main',
  'deb http://deb.debian.org/debian-security bookworm-security main',
];

/** What flux-core's programs, libraries and Python commands load at run time (checked with ldd). */
export const FLUX_RUNTIME_PACKAGES = [
  'libarchive13',
  'libhwloc15',
  'libjansson4',
  'liblua5.1-0',
  'liblz4-1',
  'libmunge2',
  'libncursesw6',
  'libpython3.11',
  'libsqlite3-0',
  'libuuid1',
  'libzmq5',
  'lua-posix',
  'lua5.1',
  'munge',
  'procps',
  'python3',
  'python3-cffi',
  'python3-ply',
  'python3-yaml',
];

/** 2025-01-01T00:00:00Z. */
export const SOURCE_DATE_EPOCH = 1_735_689_600;

export const IMAGE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** A customisation of a variant, applied as a small layer over the shared base. */
export type VariantStep =
  /** A folder owned by a user of the image (e.g. /run/munge, which systemd would otherwise make). */
  | { kind: 'owned-dir'; path: string; owner: string; mode: number }
  /** A user with its own group (gid = uid) and home made from /etc/skel, as `useradd -m -U` makes it. */
  | { kind: 'user'; name: string; uid: number; comment: string; home: string; shell: string };

export type FluxImageName = 'plain' | 'awkward';
export const FLUX_IMAGE_NAMES: readonly FluxImageName[] = ['plain', 'awkward'];

export interface FluxImageVariant {
  reference: string;
  steps: VariantStep[];
}

export interface FluxImageRecipe {
  revision: number;
  fluxCoreVersion: string;
  /**
   * SOURCE_DATE_EPOCH for mmdebstrap: file times clamped to it and no run-specific files, so the same
   * mirror content gives the same base layer (and image ids); also the password-change day of its users.
   */
  sourceDateEpoch: number;
  suite: string;
  mirrors: string[];
  packages: string[];
  config: ImageConfig;
  variants: Record<FluxImageName, FluxImageVariant>;
}

export function fluxImageRecipe(fluxCoreVersion: string): FluxImageRecipe {
  return {
    revision: RECIPE_REVISION,
    fluxCoreVersion,
    sourceDateEpoch: SOURCE_DATE_EPOCH,
    suite: DEBIAN_SUITE,
    mirrors: [...DEBIAN_MIRRORS],
    packages: [...FLUX_RUNTIME_PACKAGES],
    config: { env: [`PATH=${IMAGE_PATH}`], cmd: ['/bin/bash'] },
    variants: {
      plain: {
        reference: `${FLUX_IMAGE_REPOSITORY}:${fluxCoreVersion}`,
        steps: [{ kind: 'owned-dir', path: '/run/munge', owner: 'munge', mode: 0o755 }],
      },
      awkward: {
        reference: `${FLUX_IMAGE_REPOSITORY}:${fluxCoreVersion}-awkward`,
        steps: [
          {
            kind: 'user',
            name: 'ubuntu',
            uid: 1000,
            comment: 'Ubuntu',
            home: '/home/ubuntu',
            shell: '/bin/bash',
          },
        ],
      },
    },
  };
}

export interface MmdebstrapPaths {
  /** The flux-core install (prefix /usr) to put into the root file system. */
  fluxRoot: string;
  /** The root file system tar to write. */
  output: string;
  /** Where /etc/passwd, group, shadow, gshadow and skel of the result are copied (for the variant layers). */
  etcCopy: string;
}

/** Files of /etc the variant layers start from, copied out of the base by mmdebstrap. */
export const BASE_ETC_FILES = ['passwd', 'group', 'shadow', 'gshadow'] as const;

/** The mmdebstrap command line (without `mmdebstrap` itself) that makes the base layer. */
export function mmdebstrapArgs(recipe: FluxImageRecipe, paths: MmdebstrapPaths): string[] {
  for (const [what, p] of Object.entries(paths)) {
    // mmdebstrap splits special hooks (sync-in, copy-out) at spaces.
    if (/\s/.test(p) || !path.isAbsolute(p))
      throw new Error(`${what} must be an absolute path without spaces: ${p}`);
  }
  return [
    '--variant=minbase',
    '--mode=root',
    '--format=tar',
    '--architectures=amd64',
    `--include=${[...recipe.packages].sort().join(',')}`,
    // Like the slim Debian images: no manuals, info pages or translations; licences stay.
    '--dpkgopt=path-exclude=/usr/share/man/*',
    '--dpkgopt=path-exclude=/usr/share/info/*',
    '--dpkgopt=path-exclude=/usr/share/doc/*',
    '--dpkgopt=path-include=/usr/share/doc/*/copyright',
    '--dpkgopt=path-exclude=/usr/share/locale/*',
    '--dpkgopt=path-include=/usr/share/locale/locale.alias',
    `--customize-hook=sync-in ${paths.fluxRoot} /`,
    '--customize-hook=chroot "$1" ldconfig',
    // flux-core's Python package lives in /usr/lib/python3.X/site-packages, which Debian's python3 does
    // not search (the flux command adds it for its own subcommands): a .pth file makes `import flux` work.
    '--customize-hook=for d in "$1"/usr/lib/python3*/site-packages; do if [ -d "$d/flux" ]; then echo "${d#"$1"}"; fi; done >"$1/usr/lib/python3/dist-packages/flux-core.pth"',
    // mmdebstrap copies the build machine's hostname and resolver into the chroot; the runtime provides both.
    '--customize-hook=rm -f "$1/etc/hostname" "$1/etc/resolv.conf" && touch "$1/etc/hostname" "$1/etc/resolv.conf"',
    `--customize-hook=copy-out ${BASE_ETC_FILES.map((f) => `/etc/${f}`).join(' ')} /etc/skel ${paths.etcCopy}`,
    recipe.suite,
    paths.output,
    ...recipe.mirrors,
  ];
}

/** Hex digest naming a recipe's cache folder: changes with the recipe and with the mmdebstrap command. */
export function recipeKey(recipe: FluxImageRecipe): string {
  const args = mmdebstrapArgs(recipe, { fluxRoot: '/FLUX', output: '/OUT.tar', etcCopy: '/ETC' });
  return createHash('sha256').update(canonicalJson({ recipe, args })).digest('hex').slice(0, 16);
}

/** A file of the base image: its content and metadata as the variant layers must keep them. */
export interface BaseFile {
  data: Buffer;
  mode: number;
  uid: number;
  gid: number;
}

export interface BaseEtc {
  passwd: BaseFile;
  group: BaseFile;
  shadow: BaseFile;
  gshadow: BaseFile;
  /** The files of /etc/skel by name. */
  skel: Record<string, BaseFile>;
}

interface PasswdEntry {
  name: string;
  uid: number;
  gid: number;
}

function parsePasswd(text: string): PasswdEntry[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const [name = '', , uid = '', gid = ''] = l.split(':');
      return { name, uid: Number(uid), gid: Number(gid) };
    });
}

function parseGroup(text: string): { name: string; gid: number }[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const [name = '', , gid = ''] = l.split(':');
      return { name, gid: Number(gid) };
    });
}

function appendLine(file: BaseFile, line: string): BaseFile {
  const text = file.data.toString('utf8');
  const sep = text === '' || text.endsWith('\n') ? '' : '\n';
  return { ...file, data: Buffer.from(`${text}${sep}${line}\n`) };
}

function parentDirs(p: string): string[] {
  const parts = p.split('/');
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'));
}

/**
 * The entries of a variant's layer over a base whose /etc files are `base`: pure. Parent folders are
 * written as Debian has them (0755, root); entries come out in path order.
 */
export function variantLayerEntries(steps: readonly VariantStep[], base: BaseEtc): TarEntry[] {
  const entries = new Map<string, TarEntry>();
  const etc = { ...base };
  const etcChanged = new Set<(typeof BASE_ETC_FILES)[number]>();
  const addDirWithParents = (entry: TarEntry): void => {
    for (const parent of parentDirs(entry.path)) {
      if (!entries.has(parent)) entries.set(parent, { type: 'directory', path: parent, mode: 0o755 });
    }
    entries.set(entry.path, entry);
  };
  for (const step of steps) {
    if (step.kind === 'owned-dir') {
      const owner = parsePasswd(etc.passwd.data.toString('utf8')).find((u) => u.name === step.owner);
      if (owner === undefined) throw new Error(`${step.path}: the image has no user ${step.owner}`);
      addDirWithParents({
        type: 'directory',
        path: archivePath(step.path),
        mode: step.mode,
        uid: owner.uid,
        gid: owner.gid,
      });
    } else {
      const users = parsePasswd(etc.passwd.data.toString('utf8'));
      const groups = parseGroup(etc.group.data.toString('utf8'));
      const clash =
        users.find((u) => u.uid === step.uid || u.name === step.name) ??
        groups.find((g) => g.gid === step.uid || g.name === step.name);
      if (clash !== undefined) {
        throw new Error(`cannot add user ${step.name} (uid ${step.uid}): ${clash.name} is already there`);
      }
      const { name, uid } = step;
      etc.passwd = appendLine(
        etc.passwd,
        `${name}:x:${uid}:${uid}:${step.comment}:${step.home}:${step.shell}`,
      );
      etc.group = appendLine(etc.group, `${name}:x:${uid}:`);
      // Locked password, no ageing (an empty last-change field), as for an image's default user.
      etc.shadow = appendLine(etc.shadow, `${name}:!::0:99999:7:::`);
      etc.gshadow = appendLine(etc.gshadow, `${name}:!::`);
      for (const f of BASE_ETC_FILES) etcChanged.add(f);
      const home = archivePath(step.home);
      addDirWithParents({ type: 'directory', path: home, mode: 0o750, uid, gid: uid });
      for (const [file, content] of Object.entries(base.skel)) {
        entries.set(`${home}/${file}`, {
          type: 'file',
          path: `${home}/${file}`,
          mode: content.mode,
          uid,
          gid: uid,
          data: content.data,
        });
      }
    }
  }
  for (const f of etcChanged) {
    const { data, mode, uid, gid } = etc[f];
    addDirWithParents({ type: 'file', path: `etc/${f}`, data, mode, uid, gid });
  }
  return [...entries.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function readBaseFile(file: string): Promise<BaseFile> {
  const st = await stat(file);
  return { data: await readFile(file), mode: st.mode & 0o7777, uid: st.uid, gid: st.gid };
}

/** Reads the /etc files mmdebstrap copied out (see mmdebstrapArgs). */
export async function readBaseEtc(dir: string): Promise<BaseEtc> {
  const skel: Record<string, BaseFile> = {};
  for (const name of (await readdir(path.join(dir, 'skel'))).sort()) {
    const full = path.join(dir, 'skel', name);
    if ((await lstat(full)).isFile()) skel[name] = await readBaseFile(full);
  }
  return {
    passwd: await readBaseFile(path.join(dir, 'passwd')),
    group: await readBaseFile(path.join(dir, 'group')),
    shadow: await readBaseFile(path.join(dir, 'shadow')),
    gshadow: await readBaseFile(path.join(dir, 'gshadow')),
    skel,
  };
}

export interface FluxImage {
  reference: string;
  /** The docker-archive tar for `ctr -n k8s.io images import`. */
  archive: string;
  imageId: string;
}

export type FluxImages = Record<FluxImageName, FluxImage>;

export interface FluxImagesBuild {
  key: string;
  fluxCoreVersion: string;
  images: Record<FluxImageName, FluxImage & { bytes: number }>;
  /** Seconds per step of the build that made these archives. */
  seconds: Record<string, number>;
  builtAt: string;
}

export interface EnsureFluxImagesOptions {
  progress?: Progress;
  env?: NodeJS.ProcessEnv;
}

/** FLUX_CORE_VERSION from hack/versions.env. */
export function readFluxCoreVersion(root: string = findProjectRoot()): string {
  return readVersions(root).fluxCore;
}

export function fluxImagesDir(recipe: FluxImageRecipe, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheRoot(env), 'images', `flux-${recipe.fluxCoreVersion}-${recipeKey(recipe)}`);
}

const BUILD_RECORD = 'build.json';

function archiveName(reference: string): string {
  return `${reference.replace(/^.*\//, '').replace(':', '_')}.tar`;
}

/** The build record of a complete cache folder whose archives are all there, else undefined. */
export function readFluxImagesBuild(dir: string): FluxImagesBuild | undefined {
  try {
    const build = JSON.parse(readFileSync(path.join(dir, BUILD_RECORD), 'utf8')) as FluxImagesBuild;
    return FLUX_IMAGE_NAMES.every((n) => existsSync(build.images[n].archive)) ? build : undefined;
  } catch {
    return undefined;
  }
}

function imagesOf(build: FluxImagesBuild): FluxImages {
  const one = (n: FluxImageName): FluxImage => {
    const { reference, archive, imageId } = build.images[n];
    return { reference, archive, imageId };
  };
  return { plain: one('plain'), awkward: one('awkward') };
}

/** The Flux images of the current recipe when they are already built, without building anything. */
export function cachedFluxImages(options: { env?: NodeJS.ProcessEnv } = {}): FluxImages | undefined {
  const recipe = fluxImageRecipe(readFluxCoreVersion());
  const build = readFluxImagesBuild(fluxImagesDir(recipe, options.env));
  return build === undefined ? undefined : imagesOf(build);
}

/**
 * Returns the plain and awkward Flux images, building what the cache lacks (as root: mmdebstrap, under a
 * minute here, plus flux-core once per version, about 12 minutes). One build at a time per recipe.
 */
export async function ensureFluxImages(options: EnsureFluxImagesOptions = {}): Promise<FluxImages> {
  const progress = options.progress ?? stderrProgress;
  const env = options.env ?? process.env;
  const root = findProjectRoot();
  const recipe = fluxImageRecipe(readFluxCoreVersion(root));
  const dir = fluxImagesDir(recipe, env);
  const cached = readFluxImagesBuild(dir);
  if (cached !== undefined) return imagesOf(cached);

  if (process.getuid?.() !== 0) {
    throw new Error(
      `the Flux images are not built yet (${dir}) and building them needs root (mmdebstrap in root mode, ` +
        'file owners of the image): run `npm run images:flux` as root once',
    );
  }
  const childEnv: NodeJS.ProcessEnv = { ...env, PATH: `/usr/sbin:/usr/bin:/sbin:/bin:${env.PATH ?? ''}` };
  await runHackScript('ensure-packages.sh', ['the container images', 'mmdebstrap'], {
    progress,
    env: childEnv,
  });
  return withExclusiveLock(
    `${dir}.lock`,
    () => progress(`another process is building ${path.basename(dir)}; waiting for it`),
    async () => {
      const again = readFluxImagesBuild(dir);
      if (again !== undefined) return imagesOf(again);
      return imagesOf(await buildFluxImages(recipe, dir, root, childEnv, progress));
    },
  );
}

async function buildFluxImages(
  recipe: FluxImageRecipe,
  dir: string,
  root: string,
  env: NodeJS.ProcessEnv,
  progress: Progress,
): Promise<FluxImagesBuild> {
  const seconds: Record<string, number> = {};
  const timed = async <T>(step: string, fn: () => Promise<T>): Promise<T> => {
    const t0 = Date.now();
    const res = await fn();
    seconds[step] = Math.round((Date.now() - t0) / 100) / 10;
    return res;
  };
  const started = Date.now();
  progress(`building the Flux images of recipe ${path.basename(dir)} (flux-core ${recipe.fluxCoreVersion})`);

  const fluxRoot = await timed('flux-core', async () => {
    const built = await runHackScript('build-flux-core.sh', [], { progress, env });
    if (!existsSync(path.join(built, 'usr', 'bin', 'flux'))) {
      throw new Error(`hack/build-flux-core.sh printed ${JSON.stringify(built)}, which has no usr/bin/flux`);
    }
    return built;
  });

  const work = path.join(dir, 'work');
  await rm(work, { recursive: true, force: true });
  const etcCopy = path.join(work, 'etc');
  await mkdir(etcCopy, { recursive: true });
  const baseLayer = path.join(work, 'base.tar');
  progress(
    `mmdebstrap: ${recipe.suite} with ${recipe.packages.length} runtime packages and flux-core (under a minute here)`,
  );
  await timed('mmdebstrap', () =>
    runCommand('mmdebstrap', mmdebstrapArgs(recipe, { fluxRoot, output: baseLayer, etcCopy }), {
      env: { ...env, SOURCE_DATE_EPOCH: String(recipe.sourceDateEpoch) },
      onLine: (l) => l.startsWith('I: ') && progress(`mmdebstrap ${l}`),
    }),
  );
  // Device nodes stay out of the image (the runtime makes /dev); the folder itself stays.
  await runCommand('tar', ['--delete', '--wildcards', '-f', baseLayer, './dev/?*'], { env });

  const base = await readBaseEtc(etcCopy);
  const images = {} as FluxImagesBuild['images'];
  for (const name of FLUX_IMAGE_NAMES) {
    const variant = recipe.variants[name];
    const layer = path.join(work, `${name}-layer.tar`);
    const archive = path.join(dir, archiveName(variant.reference));
    const res = await timed(`pack-${name}`, async () => {
      await writeTar(layer, variantLayerEntries(variant.steps, base));
      return writeImageArchive({
        reference: variant.reference,
        layers: [baseLayer, layer],
        config: recipe.config,
        output: archive,
        history: [
          `mmdebstrap --variant=minbase ${recipe.suite} + ${recipe.packages.length} packages + flux-core ${recipe.fluxCoreVersion}`,
          `${name}: ${variant.steps.map(describeStep).join('; ')}`,
        ],
      });
    });
    const bytes = (await stat(archive)).size;
    images[name] = { reference: variant.reference, archive, imageId: res.imageId, bytes };
    progress(
      `${variant.reference}: ${archive} (${(bytes / 2 ** 20).toFixed(0)} MiB) in ${seconds[`pack-${name}`]} s`,
    );
  }
  seconds.total = Math.round((Date.now() - started) / 100) / 10;
  const build: FluxImagesBuild = {
    key: recipeKey(recipe),
    fluxCoreVersion: recipe.fluxCoreVersion,
    images,
    seconds,
    builtAt: new Date().toISOString(),
  };
  await rm(work, { recursive: true, force: true });
  await writeFile(path.join(dir, BUILD_RECORD), `${JSON.stringify(build, null, 2)}\n`);
  progress(
    `built in ${seconds.total} s (${Object.entries(seconds)
      .map(([k, v]) => `${k} ${v} s`)
      .join(', ')})`,
  );
  return build;
}

export function describeStep(step: VariantStep): string {
  return step.kind === 'owned-dir'
    ? `mkdir ${step.path} owned by ${step.owner} (mode ${step.mode.toString(8)})`
    : `useradd -m -U -u ${step.uid} -s ${step.shell} ${step.name}`;
}

/**
 * Unpacks a Flux image archive into a temporary folder and runs hack/check-image-rootfs.sh there (as
 * root, in a chroot): shared libraries, `flux --version`, `import flux`, `flux start -s 2 flux run -N2
 * hostname`, munged when /run/munge exists. Returns the check's output; throws when a check fails.
 */
export async function checkFluxImage(
  archive: string,
  options: EnsureFluxImagesOptions = {},
): Promise<string> {
  const progress = options.progress ?? stderrProgress;
  const env = options.env ?? process.env;
  if (process.getuid?.() !== 0) throw new Error('the chroot check of an image needs root');
  const root = findProjectRoot();
  const work = await mkdtemp(path.join(tmpdir(), 'flux-image-check-'));
  const rootfs = path.join(work, 'rootfs');
  try {
    const t0 = Date.now();
    await unpackImageArchive(archive, rootfs);
    progress(
      `unpacked ${path.basename(archive)} in ${((Date.now() - t0) / 1000).toFixed(1)} s; checking it in a chroot`,
    );
    return await runCommand('bash', [path.join(root, 'hack', 'check-image-rootfs.sh'), rootfs], {
      env: { ...env, PATH: `/usr/sbin:/usr/bin:/sbin:/bin:${env.PATH ?? ''}` },
      onLine: (l) => progress(l),
    });
  } finally {
    const left = mountsUnder([work]);
    if (left.length > 0) {
      progress(`not removing ${work}: still mounted: ${left.join(' ')}`);
    } else {
      // --one-file-system: never descend into a mount, whatever happened above.
      await runCommand('rm', ['-rf', '--one-file-system', work], { env });
    }
  }
}
