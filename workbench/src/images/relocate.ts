// Copies an install tree made for one prefix to another prefix of the same length, rewriting the prefix
// wherever it occurs: in text, in ELF files (RUNPATH, compiled-in paths), in Python byte code (marshalled
// strings keep their length prefix) and in symbolic links. Equal lengths keep every offset and length
// field in those files valid; file times are kept, so Python's byte code still matches its sources.
import {
  chmod,
  lstat,
  mkdir,
  readFile,
  readdir,
  readlink,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';

export interface Relocated {
  /** Regular files copied. */
  files: number;
  /** Files and links whose content or target named the old prefix. */
  rewritten: number;
}

/** `data` with every occurrence of `from` replaced by `to` (same length), or undefined when it has none. */
export function replaceSameLength(data: Buffer, from: Buffer, to: Buffer): Buffer | undefined {
  if (from.length !== to.length) throw new Error('the prefixes must have the same length');
  let at = data.indexOf(from);
  if (at < 0) return undefined;
  const out = Buffer.from(data);
  while (at >= 0) {
    to.copy(out, at);
    at = out.indexOf(from, at + to.length);
  }
  return out;
}

/**
 * Copies the tree `source` (installed for `oldPrefix`) to `target` (which must not exist yet), for
 * `newPrefix`. Throws when the prefixes differ in length: a shorter or longer string would shift what
 * follows it inside binary files.
 */
export async function relocateTree(
  source: string,
  target: string,
  oldPrefix: string,
  newPrefix: string,
): Promise<Relocated> {
  if (
    oldPrefix.length !== newPrefix.length ||
    Buffer.byteLength(oldPrefix) !== Buffer.byteLength(newPrefix)
  ) {
    throw new Error(`cannot relocate ${oldPrefix} to ${newPrefix}: the prefixes must have the same length`);
  }
  const from = Buffer.from(oldPrefix);
  const to = Buffer.from(newPrefix);
  const result: Relocated = { files: 0, rewritten: 0 };
  const copy = async (src: string, dst: string): Promise<void> => {
    const st = await lstat(src);
    if (st.isSymbolicLink()) {
      const link = await readlink(src);
      const relocated = link.startsWith(oldPrefix) ? newPrefix + link.slice(oldPrefix.length) : link;
      if (relocated !== link) result.rewritten++;
      await symlink(relocated, dst);
    } else if (st.isDirectory()) {
      await mkdir(dst);
      for (const name of (await readdir(src)).sort()) await copy(path.join(src, name), path.join(dst, name));
      // Modes set after the fact: the process's umask would narrow them at creation.
      await chmod(dst, st.mode & 0o7777);
      await utimes(dst, st.atime, st.mtime);
    } else if (st.isFile()) {
      const data = await readFile(src);
      const rewritten = replaceSameLength(data, from, to);
      if (rewritten !== undefined) result.rewritten++;
      await writeFile(dst, rewritten ?? data);
      await chmod(dst, st.mode & 0o7777);
      await utimes(dst, st.atime, st.mtime);
      result.files++;
    } else {
      throw new Error(`${src} is neither a file, a folder nor a link`);
    }
  };
  await copy(source, target);
  return result;
}
