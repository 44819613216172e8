// A layer tar made from a folder on disk: the folder's content becomes the layer's root (or `prefix`),
// entries in name order, one mtime, owners set for the whole layer (or kept), modes kept or normalised.
import { lstat, readdir, readlink } from 'node:fs/promises';
import path from 'node:path';
import { archivePath, writeTar } from './tar-writer.ts';
import type { TarEntry } from './tar-writer.ts';

export interface Owner {
  uid: number;
  gid: number;
}

export interface DirectoryLayerOptions {
  /** The folder whose content becomes the layer. */
  directory: string;
  /** The layer tar to write. */
  output: string;
  /** Where the folder's content goes inside the layer (e.g. `app`); its parents are made 0755 and owned by root. Default: the root. */
  prefix?: string;
  /** Owner of every entry (default root, 0:0); `keep` keeps the owners on disk. */
  owner?: Owner | 'keep';
  /**
   * `keep` (default) keeps the permission bits on disk; `normalize` makes folders 0755 and files 0755
   * when anyone may execute them, else 0644 (so the layer does not depend on the umask of a checkout).
   */
  modes?: 'keep' | 'normalize';
  /** mtime of every entry (default: the epoch). */
  mtime?: Date;
}

function normalizedMode(isDirectory: boolean, mode: number): number {
  if (isDirectory) return 0o755;
  return mode & 0o111 ? 0o755 : 0o644;
}

/** The entries of a folder, depth first in byte order of the names; hard-linked files become hard links. */
export async function* directoryEntries(
  options: Pick<DirectoryLayerOptions, 'directory' | 'prefix' | 'owner' | 'modes'>,
): AsyncGenerator<TarEntry> {
  const owner = options.owner ?? { uid: 0, gid: 0 };
  const prefix = options.prefix === undefined || options.prefix === '' ? '' : archivePath(options.prefix);
  const seen = new Map<string, string>();
  if (prefix !== '') {
    const parts = prefix.split('/');
    for (let i = 1; i < parts.length; i++) {
      yield { type: 'directory', path: parts.slice(0, i).join('/'), mode: 0o755 };
    }
  }

  async function* walk(dir: string, rel: string): AsyncGenerator<TarEntry> {
    const names = (await readdir(dir)).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    for (const name of names) {
      const full = path.join(dir, name);
      const inLayer = rel === '' ? name : `${rel}/${name}`;
      yield* entry(full, inLayer);
    }
  }

  async function* entry(full: string, inLayer: string): AsyncGenerator<TarEntry> {
    const st = await lstat(full);
    const ids = owner === 'keep' ? { uid: st.uid, gid: st.gid } : owner;
    const mode = options.modes === 'normalize' ? normalizedMode(st.isDirectory(), st.mode) : st.mode & 0o7777;
    if (st.isDirectory()) {
      if (inLayer !== '') yield { type: 'directory', path: inLayer, mode, ...ids };
      yield* walk(full, inLayer);
    } else if (st.isSymbolicLink()) {
      yield { type: 'symlink', path: inLayer, target: await readlink(full), mode: 0o777, ...ids };
    } else if (st.isFile()) {
      const inode = `${st.dev}:${st.ino}`;
      const first = st.nlink > 1 ? seen.get(inode) : undefined;
      if (first !== undefined) {
        yield { type: 'hardlink', path: inLayer, target: first, mode, ...ids };
      } else {
        if (st.nlink > 1) seen.set(inode, inLayer);
        yield { type: 'file', path: inLayer, source: full, mode, ...ids };
      }
    } else {
      throw new Error(`${full}: only folders, files and symbolic links can go into a layer`);
    }
  }

  yield* entry(options.directory, prefix);
}

/** Writes the layer tar of a folder (see DirectoryLayerOptions); the same folder gives the same bytes. */
export async function writeDirectoryLayer(options: DirectoryLayerOptions): Promise<string> {
  const st = await lstat(options.directory);
  if (!st.isDirectory()) throw new Error(`${options.directory} is not a folder`);
  await writeTar(options.output, directoryEntries(options), { mtime: options.mtime ?? new Date(0) });
  return options.output;
}
