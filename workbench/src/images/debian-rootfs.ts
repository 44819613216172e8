// The Debian root file systems of the images made here, from mmdebstrap: the suite, its mirrors and the
// recipe fields the images share; the minbase base layer of the Flux images and the operator's, slimmed
// like the official slim images, plus a copy of its /etc user files for the layers that go on top of it;
// and the command line of an image's root file system made as a folder (the plain, MPI and LAMMPS images).
import { lstat, readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { runCommand } from '../tooling/command.ts';
import type { Progress } from '../tooling/hack-script.ts';
import type { ImageConfig } from './image-archive.ts';
import type { RootfsFixes } from './rootfs-fixes.ts';

/** The same suites as this Debian 12 machine, where flux-core is built: same library versions. */
export const DEBIAN_SUITE = 'bookworm';

/** A Debian suite's archive, its updates and its security updates, as mmdebstrap takes them. */
export function debianMirrors(suite: string): string[] {
  return [
    `deb http://deb.debian.org/debian ${suite} main`,
    `deb http://deb.debian.org/debian ${suite}-updates main`,
    `deb http://deb.debian.org/debian-security ${suite}-security main`,
  ];
}

export const DEBIAN_MIRRORS = debianMirrors(DEBIAN_SUITE);

/** 2025-01-01T00:00:00Z. */
export const SOURCE_DATE_EPOCH = 1_735_689_600;

export const IMAGE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export interface DebianRootfs {
  suite: string;
  mirrors: string[];
  /** Packages beyond those of mmdebstrap's variant (minbase, essential; extract brings none). */
  packages: string[];
  /**
   * SOURCE_DATE_EPOCH for mmdebstrap: file times clamped to it and no run-specific files, so the same
   * mirror content gives the same base layer (and image ids); also the password-change day of its users.
   */
  sourceDateEpoch: number;
  /** mmdebstrap's hook folders (e.g. its merged-usr one) to run, in order. */
  hookDirs?: string[];
}

/**
 * mmdebstrap's hooks that make /bin, /lib and /sbin symlinks into /usr and install usr-is-merged, as the
 * Debian images have it: without them apt meets init-system-helpers' dependency with usrmerge, which
 * brings the whole of perl (50 MB).
 */
export const MERGED_USR_HOOKS = '/usr/share/mmdebstrap/hooks/merged-usr';

/**
 * What the recipes of the images that run bash from a Debian root file system share (the Flux images and
 * the plain, MPI and LAMMPS images): the suite and its mirrors, SOURCE_DATE_EPOCH, and a config that runs
 * bash with IMAGE_PATH and no user, as root, as the operator's entrypoint expects.
 */
export interface DebianImageFields extends DebianRootfs {
  config: ImageConfig;
}

/** The shared fields of a recipe whose root file system holds `packages` (copied) of `suite`. */
export function debianImageFields<S extends string>(
  suite: S,
  packages: readonly string[],
): DebianImageFields & { suite: S } {
  return {
    suite,
    mirrors: debianMirrors(suite),
    packages: [...packages],
    sourceDateEpoch: SOURCE_DATE_EPOCH,
    config: { env: [`PATH=${IMAGE_PATH}`], cmd: ['/bin/bash'] },
  };
}

export interface DebianRootfsPaths {
  /** The root file system tar to write. */
  output: string;
  /** Where /etc/passwd, group, shadow, gshadow and skel of the result are copied (for the layers above). */
  etcCopy: string;
}

/** Files of /etc the layers above the base start from, copied out of it by mmdebstrap. */
export const BASE_ETC_FILES = ['passwd', 'group', 'shadow', 'gshadow'] as const;

/** Checks that a path can go into an mmdebstrap special hook, which splits its arguments at spaces. */
export function hookPath(what: string, p: string): string {
  if (/\s/.test(p) || !path.isAbsolute(p))
    throw new Error(`${what} must be an absolute path without spaces: ${p}`);
  return p;
}

/** Like the slim Debian images: no manuals, info pages or translations; licences stay. */
export const SLIM_DPKG_OPTIONS = [
  '--dpkgopt=path-exclude=/usr/share/man/*',
  '--dpkgopt=path-exclude=/usr/share/info/*',
  '--dpkgopt=path-exclude=/usr/share/doc/*',
  '--dpkgopt=path-include=/usr/share/doc/*/copyright',
  '--dpkgopt=path-exclude=/usr/share/locale/*',
];

/**
 * How every mmdebstrap command line here starts: the variant, root mode (file owners), the output
 * format, amd64, the packages (sorted) and SLIM_DPKG_OPTIONS.
 */
export function mmdebstrapOptions(
  variant: 'minbase' | 'essential' | 'extract',
  format: 'tar' | 'directory' | 'null',
  packages: readonly string[],
): string[] {
  return [
    `--variant=${variant}`,
    '--mode=root',
    `--format=${format}`,
    '--architectures=amd64',
    `--include=${[...packages].sort().join(',')}`,
    ...SLIM_DPKG_OPTIONS,
  ];
}

/**
 * The mmdebstrap command line (without `mmdebstrap`) of an image's root file system made as the folder
 * `output` (in root mode, amd64, slim: mmdebstrapOptions): `options` (dpkg options, hooks) come between
 * those and the suite, the folder and the suite's mirrors.
 */
export function debianFolderArgs(
  variant: 'essential' | 'extract',
  rootfs: Pick<DebianRootfs, 'suite' | 'mirrors' | 'packages'>,
  output: string,
  options: readonly string[],
): string[] {
  hookPath('output', output);
  return [
    ...mmdebstrapOptions(variant, 'directory', rootfs.packages),
    ...options,
    rootfs.suite,
    output,
    ...rootfs.mirrors,
  ];
}

/**
 * An image of one layer made from Debian packages as a folder (the plain, MPI and LAMMPS images), as
 * folder-image-build.ts builds it: its recipe and key, how mmdebstrap makes the folder, what the folder
 * gets afterwards and the layer's history line.
 */
export interface DebianFolderImage {
  recipe: DebianImageFields & { reference: string };
  /** The recipe's key, which names its cache folder. */
  key: string;
  /** The mmdebstrap command line (without `mmdebstrap`) that makes the folder `rootfs`. */
  args: (rootfs: string) => string[];
  /** Applied to the folder mmdebstrap made. */
  fixes: RootfsFixes;
  history: string;
  /** Said of mmdebstrap after its packages while it runs, e.g. `and their dependencies (1-3 minutes here)`. */
  expect: string;
}

/** The history line of a layer mmdebstrap made: `mmdebstrap --variant=<variant> <suite> <packages>`. */
export function mmdebstrapHistory(
  variant: 'essential' | 'extract',
  suite: string,
  packages: readonly string[],
): string {
  return `mmdebstrap --variant=${variant} ${suite} ${packages.join(' ')}`;
}

/**
 * The mmdebstrap command line (without `mmdebstrap` itself) that makes a base layer; `hooks` are
 * customize-hooks of the image, run before the common clean-up and the copy of /etc.
 */
export function debianRootfsArgs(
  rootfs: DebianRootfs,
  paths: DebianRootfsPaths,
  hooks: string[] = [],
): string[] {
  for (const [what, p] of Object.entries(paths)) hookPath(what, p);
  return [
    ...mmdebstrapOptions('minbase', 'tar', rootfs.packages),
    '--dpkgopt=path-include=/usr/share/locale/locale.alias',
    ...(rootfs.hookDirs ?? []).map((dir) => `--hook-dir=${dir}`),
    ...hooks.map((hook) => `--customize-hook=${hook}`),
    // mmdebstrap copies the build machine's hostname and resolver into the chroot; the runtime provides both.
    '--customize-hook=rm -f "$1/etc/hostname" "$1/etc/resolv.conf" && touch "$1/etc/hostname" "$1/etc/resolv.conf"',
    `--customize-hook=copy-out ${BASE_ETC_FILES.map((f) => `/etc/${f}`).join(' ')} /etc/skel ${paths.etcCopy}`,
    rootfs.suite,
    paths.output,
    ...rootfs.mirrors,
  ];
}

/**
 * Runs mmdebstrap with `args` (see debianRootfsArgs; as root) and drops the device nodes from the tar it
 * wrote: the runtime makes /dev, and only the folder itself stays.
 */
export async function makeDebianRootfs(
  args: string[],
  rootfs: Pick<DebianRootfs, 'sourceDateEpoch'>,
  output: string,
  options: { env: NodeJS.ProcessEnv; progress: Progress },
): Promise<void> {
  await runMmdebstrap(args, rootfs, options);
  await runCommand('tar', ['--delete', '--wildcards', '-f', output, './dev/?*'], { env: options.env });
}

/** Runs mmdebstrap with `args` (as root) and the recipe's SOURCE_DATE_EPOCH; its `I:` lines go to `progress`. */
export async function runMmdebstrap(
  args: string[],
  rootfs: Pick<DebianRootfs, 'sourceDateEpoch'>,
  options: { env: NodeJS.ProcessEnv; progress: Progress },
): Promise<void> {
  await runCommand('mmdebstrap', args, {
    env: { ...options.env, SOURCE_DATE_EPOCH: String(rootfs.sourceDateEpoch) },
    onLine: (l) => l.startsWith('I: ') && options.progress(`mmdebstrap ${l}`),
  });
}

/** A file of the base image: its content and metadata as the layers above must keep them. */
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

async function readBaseFile(file: string): Promise<BaseFile> {
  const st = await stat(file);
  return { data: await readFile(file), mode: st.mode & 0o7777, uid: st.uid, gid: st.gid };
}

/** Reads the /etc files mmdebstrap copied out (see debianRootfsArgs). */
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
