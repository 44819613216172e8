// The plain images, localhost/plain:bookworm and localhost/plain:trixie: Debian 12 and 13 with bash and
// coreutils and only what those need (libc, base-files and base-files' awk), the stand-ins for a user's
// application image that has no Flux, no Python and no munge. No /bin/sh (dash is not needed by
// either), no sed or grep, no package manager. Pure: the recipes and the mmdebstrap command lines.
import { createHash } from 'node:crypto';
import { canonicalJson } from './image-archive.ts';
import type { ImageConfig } from './image-archive.ts';
import { IMAGE_PATH, SOURCE_DATE_EPOCH, hookPath, mmdebstrapOptions } from './debian-rootfs.ts';

export const PLAIN_IMAGE_REPOSITORY = 'localhost/plain';

/** Bump when the build changes in a way the recipe data does not show, so caches rebuild. */
export const PLAIN_IMAGE_REVISION = 1;

export type PlainSuite = 'bookworm' | 'trixie';
export const PLAIN_SUITES: readonly PlainSuite[] = ['bookworm', 'trixie'];

/** The packages asked for; apt adds their dependencies (libc6, libtinfo6, mawk for base-files, ...). */
export const PLAIN_PACKAGES = ['bash', 'base-files', 'coreutils'];

const MIRRORS: Record<PlainSuite, string[]> = {
  bookworm: [
    'deb http://deb.debian.org/debian bookworm main',
    'deb http://deb.debian.org/debian bookworm-updates main',
    'deb http://deb.debian.org/debian-security bookworm-security main',
  ],
  trixie: [
    'deb http://deb.debian.org/debian trixie main',
    'deb http://deb.debian.org/debian trixie-updates main',
    'deb http://deb.debian.org/debian-security trixie-security main',
  ],
};

/** Users and groups as an image's minimal /etc has them: root alone (uid 1000 is free). */
export const PLAIN_PASSWD = 'root:x:0:0:root:/root:/bin/bash\n';
export const PLAIN_GROUP = 'root:x:0:\n';

export interface PlainImageRecipe {
  revision: number;
  suite: PlainSuite;
  reference: string;
  mirrors: string[];
  packages: string[];
  sourceDateEpoch: number;
  config: ImageConfig;
}

export function plainImageRecipe(suite: PlainSuite): PlainImageRecipe {
  return {
    revision: PLAIN_IMAGE_REVISION,
    suite,
    reference: `${PLAIN_IMAGE_REPOSITORY}:${suite}`,
    mirrors: [...MIRRORS[suite]],
    packages: [...PLAIN_PACKAGES],
    sourceDateEpoch: SOURCE_DATE_EPOCH,
    config: { env: [`PATH=${IMAGE_PATH}`], cmd: ['/bin/bash'] },
  };
}

/**
 * The mmdebstrap command line (without `mmdebstrap`) of a plain image's root file system, a folder. The
 * `extract` variant unpacks the packages and their dependencies without running their maintainer scripts,
 * so nothing that only installing needs (dpkg, apt, a shell for the scripts) comes along; /bin, /lib and
 * /sbin link into /usr as in Debian's images. That variant runs no customize hook: PLAIN_FIXES is applied
 * to the folder afterwards.
 */
export function plainImageArgs(recipe: PlainImageRecipe, output: string): string[] {
  hookPath('output', output);
  return [
    ...mmdebstrapOptions('extract', 'directory', recipe.packages),
    '--setup-hook=/usr/share/mmdebstrap/hooks/merged-usr/setup00.sh',
    recipe.suite,
    output,
    ...recipe.mirrors,
  ];
}

/**
 * What the image's root file system gets after mmdebstrap: files written (relative path -> content, mode
 * 0644, root's), and paths removed: what mmdebstrap left for apt and dpkg, which the image does not have,
 * and the device nodes (the runtime makes /dev). The runtime provides the host name and resolver.
 */
export const PLAIN_FIXES = {
  write: {
    'etc/passwd': PLAIN_PASSWD,
    'etc/group': PLAIN_GROUP,
    'etc/hostname': '',
    'etc/resolv.conf': '',
  } as Record<string, string>,
  remove: ['etc/apt', 'var/lib/apt', 'var/cache/apt', 'etc/dpkg/dpkg.cfg.d/99mmdebstrap'],
  emptyDirs: ['dev'],
};

/** Hex digest naming a recipe's cache folder: changes with the recipe and the mmdebstrap command. */
export function plainImageKey(recipe: PlainImageRecipe): string {
  const args = plainImageArgs(recipe, '/OUT');
  return createHash('sha256')
    .update(canonicalJson({ recipe, args, fixes: PLAIN_FIXES }))
    .digest('hex')
    .slice(0, 16);
}
