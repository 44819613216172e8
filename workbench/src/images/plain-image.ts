// The plain images, localhost/plain:bookworm and localhost/plain:trixie: Debian 12 and 13 with bash and
// coreutils and only what those need (libc, base-files and base-files' awk), the stand-ins for a user's
// application image that has no Flux, no Python and no munge. No /bin/sh (dash is not needed by
// either), no sed or grep, no package manager. Pure: the recipes and the mmdebstrap command lines.
import { digestKey } from './image-archive.ts';
import { MERGED_USR_HOOKS, debianFolderArgs, debianImageFields, mmdebstrapHistory } from './debian-rootfs.ts';
import type { DebianFolderImage, DebianImageFields } from './debian-rootfs.ts';
import { DEBIAN_IMAGE_FIXES } from './rootfs-fixes.ts';
import type { RootfsFixes } from './rootfs-fixes.ts';

export const PLAIN_IMAGE_REPOSITORY = 'localhost/plain';

/** Bump when the build changes in a way the recipe data does not show, so caches rebuild. */
export const PLAIN_IMAGE_REVISION = 1;

export type PlainSuite = 'bookworm' | 'trixie';
export const PLAIN_SUITES: readonly PlainSuite[] = ['bookworm', 'trixie'];

/** The packages asked for; apt adds their dependencies (libc6, libtinfo6, mawk for base-files, ...). */
export const PLAIN_PACKAGES = ['bash', 'base-files', 'coreutils'];

/** Users and groups as an image's minimal /etc has them: root alone (uid 1000 is free). */
export const PLAIN_PASSWD = 'root:x:0:0:root:/root:/bin/bash\n';
export const PLAIN_GROUP = 'root:x:0:\n';

export interface PlainImageRecipe extends DebianImageFields {
  revision: number;
  suite: PlainSuite;
  reference: string;
}

export function plainImageRecipe(suite: PlainSuite): PlainImageRecipe {
  return {
    revision: PLAIN_IMAGE_REVISION,
    reference: `${PLAIN_IMAGE_REPOSITORY}:${suite}`,
    ...debianImageFields(suite, PLAIN_PACKAGES),
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
  return debianFolderArgs('extract', recipe, output, [`--setup-hook=${MERGED_USR_HOOKS}/setup00.sh`]);
}

/**
 * What the image's root file system gets after mmdebstrap: DEBIAN_IMAGE_FIXES (apt's and dpkg's leftovers
 * and the device nodes gone, the runtime's files empty) and root alone as its users and groups.
 */
export const PLAIN_FIXES: RootfsFixes = {
  ...DEBIAN_IMAGE_FIXES,
  write: { 'etc/passwd': PLAIN_PASSWD, 'etc/group': PLAIN_GROUP, ...DEBIAN_IMAGE_FIXES.write },
};

/** Hex digest naming a recipe's cache folder: changes with the recipe and the mmdebstrap command. */
export function plainImageKey(recipe: PlainImageRecipe): string {
  return digestKey({ recipe, args: plainImageArgs(recipe, '/OUT'), fixes: PLAIN_FIXES });
}

/** The history line of the image's one layer (the packages as the recipe lists them). */
export function plainImageHistory(recipe: PlainImageRecipe): string {
  return mmdebstrapHistory('extract', recipe.suite, recipe.packages);
}

/** The plain image as folder-image-build.ts builds it. */
export function plainFolderImage(recipe: PlainImageRecipe): DebianFolderImage {
  return {
    recipe,
    key: plainImageKey(recipe),
    args: (rootfs) => plainImageArgs(recipe, rootfs),
    fixes: PLAIN_FIXES,
    history: plainImageHistory(recipe),
    expect: '(under a minute here)',
  };
}
