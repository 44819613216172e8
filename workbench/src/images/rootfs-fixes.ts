// Changes made to a root file system folder after mmdebstrap, before it is packed as a layer.
import { readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface RootfsFixes {
  /** Files written (relative path -> content; mode 0644, owned by the writer: root). */
  write: Record<string, string>;
  /** Relative paths removed, folders with what they hold. */
  remove: readonly string[];
  /** Relative folders emptied (kept themselves). */
  emptyDirs: readonly string[];
}

/**
 * What every image folder made by mmdebstrap here gets: what it left for apt (the images have none) and its
 * dpkg options go, the device nodes too (the runtime makes /dev), and the runtime's files are left empty
 * (it provides the host name and resolver).
 */
export const DEBIAN_IMAGE_FIXES: RootfsFixes = {
  write: { 'etc/hostname': '', 'etc/resolv.conf': '' },
  remove: ['etc/apt', 'var/lib/apt', 'var/cache/apt', 'etc/dpkg/dpkg.cfg.d/99mmdebstrap'],
  emptyDirs: ['dev'],
};

/** Applies `fixes` to the folder `rootfs`: removals first, then the emptied folders, then the writes. */
export async function applyRootfsFixes(rootfs: string, fixes: RootfsFixes): Promise<void> {
  for (const p of fixes.remove) await rm(path.join(rootfs, p), { recursive: true, force: true });
  for (const dir of fixes.emptyDirs) {
    for (const name of await readdir(path.join(rootfs, dir))) {
      await rm(path.join(rootfs, dir, name), { recursive: true, force: true });
    }
  }
  for (const [file, text] of Object.entries(fixes.write)) {
    await rm(path.join(rootfs, file), { force: true });
    await writeFile(path.join(rootfs, file), text, { mode: 0o644 });
  }
}
