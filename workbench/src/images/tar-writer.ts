// A small deterministic tar writer (POSIX ustar, with pax records only for what ustar cannot hold).
// Every entry carries its own owner and mode; all entries share one mtime. File contents are either
// given in memory or streamed from a file in fixed-size chunks, so layers of any size never sit in memory.
import { mkdir, open, rename, rm } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';

const BLOCK = 512;
const CHUNK = 1 << 20;
const MAX_OCTAL_7 = 0o7777777;
const MAX_OCTAL_11 = 0o77777777777;

interface EntryBase {
  /** Path inside the archive, relative (`etc/passwd`, `run/munge`): no leading `/`, no `.` or `..` parts. */
  path: string;
  /** Permission bits (and setuid/setgid/sticky), e.g. 0o644. */
  mode: number;
  uid?: number;
  gid?: number;
}

export type TarEntry =
  | (EntryBase & { type: 'directory' })
  | (EntryBase & { type: 'file'; data: string | Uint8Array })
  /** A file streamed from `source` on disk; its size is read when it is written and checked after. */
  | (EntryBase & { type: 'file'; source: string })
  | (EntryBase & { type: 'symlink'; target: string })
  /** A hard link to an earlier entry of the same archive (`target` is that entry's path). */
  | (EntryBase & { type: 'hardlink'; target: string });

export interface WriteTarOptions {
  /** The mtime of every entry (default: the epoch, for reproducible archives). */
  mtime?: Date;
}

/** Checks and normalises an archive path: `a/b` (no leading `/`, no empty, `.` or `..` parts). */
export function archivePath(p: string): string {
  const trimmed = p.replace(/^\.?\/+/, '').replace(/\/+$/, '');
  const parts = trimmed.split('/');
  if (trimmed === '' || parts.some((s) => s === '' || s === '.' || s === '..') || p.includes('\0')) {
    throw new Error(`invalid path in archive: ${JSON.stringify(p)}`);
  }
  return trimmed;
}

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

/** One pax record: `<length> <key>=<value>\n`, where the length counts the whole record. */
export function paxRecord(key: string, value: string): Buffer {
  const body = Buffer.byteLength(` ${key}=${value}\n`);
  let length = body + 1;
  while (String(length).length + body > length) length++;
  return Buffer.from(`${length} ${key}=${value}\n`);
}

interface Header {
  name: string;
  mode: number;
  uid: number;
  gid: number;
  size: number;
  mtime: number;
  typeflag: string;
  linkname: string;
}

function ustarHeader(h: Header): Buffer {
  const b = Buffer.alloc(BLOCK);
  const put = (text: string, offset: number, width: number): void => {
    const bytes = Buffer.from(text);
    if (bytes.length > width) throw new Error(`tar header field too long: ${JSON.stringify(text)}`);
    bytes.copy(b, offset);
  };
  put(h.name, 0, 100);
  put(octal(h.mode & 0o7777, 8), 100, 8);
  put(octal(h.uid, 8), 108, 8);
  put(octal(h.gid, 8), 116, 8);
  put(octal(h.size, 12), 124, 12);
  put(octal(h.mtime, 12), 136, 12);
  put('        ', 148, 8);
  put(h.typeflag, 156, 1);
  put(h.linkname, 157, 100);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  put(octal(0, 8), 329, 8);
  put(octal(0, 8), 337, 8);
  let sum = 0;
  for (const byte of b) sum += byte;
  put(octal(sum, 7) + ' ', 148, 8);
  return b;
}

function padding(size: number): Buffer {
  const rest = size % BLOCK;
  return Buffer.alloc(rest === 0 ? 0 : BLOCK - rest);
}

/**
 * The header block(s) of one entry: a pax extended header first when the path, link target, size or
 * ids do not fit the ustar fields, then the ustar header (with truncated fields the pax record overrides).
 */
export function entryHeader(entry: TarEntry, size: number, mtime: number): Buffer {
  const name = archivePath(entry.path) + (entry.type === 'directory' ? '/' : '');
  const uid = entry.uid ?? 0;
  const gid = entry.gid ?? 0;
  for (const id of [uid, gid, entry.mode]) {
    if (!Number.isSafeInteger(id) || id < 0) throw new Error(`invalid id or mode for ${name}: ${id}`);
  }
  const linkname =
    entry.type === 'symlink' ? entry.target : entry.type === 'hardlink' ? archivePath(entry.target) : '';
  const pax: Buffer[] = [];
  if (Buffer.byteLength(name) > 100) pax.push(paxRecord('path', name));
  if (Buffer.byteLength(linkname) > 100) pax.push(paxRecord('linkpath', linkname));
  if (size > MAX_OCTAL_11) pax.push(paxRecord('size', String(size)));
  if (uid > MAX_OCTAL_7) pax.push(paxRecord('uid', String(uid)));
  if (gid > MAX_OCTAL_7) pax.push(paxRecord('gid', String(gid)));
  const typeflag = { file: '0', hardlink: '1', symlink: '2', directory: '5' }[entry.type];
  const header = ustarHeader({
    name: truncateBytes(name, 100),
    mode: entry.mode,
    uid: Math.min(uid, MAX_OCTAL_7),
    gid: Math.min(gid, MAX_OCTAL_7),
    size: size > MAX_OCTAL_11 ? 0 : size,
    mtime,
    typeflag,
    linkname: truncateBytes(linkname, 100),
  });
  if (pax.length === 0) return header;
  const records = Buffer.concat(pax);
  const base = path.posix
    .basename(name)
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .slice(0, 80);
  const paxHeader = ustarHeader({
    name: `PaxHeaders/${base}`,
    mode: 0o644,
    uid: 0,
    gid: 0,
    size: records.length,
    mtime,
    typeflag: 'x',
    linkname: '',
  });
  return Buffer.concat([paxHeader, records, padding(records.length), header]);
}

function truncateBytes(text: string, max: number): string {
  let out = text;
  while (Buffer.byteLength(out) > max) out = out.slice(0, -1);
  return out;
}

/** Collects small writes (headers, in-memory files) into 1 MiB chunks before they reach the file. */
class ChunkedWriter {
  private readonly buffer = Buffer.alloc(CHUNK);
  private used = 0;
  private readonly file: FileHandle;

  constructor(file: FileHandle) {
    this.file = file;
  }

  async write(data: Uint8Array): Promise<void> {
    if (this.used + data.length > this.buffer.length) await this.flush();
    if (data.length >= this.buffer.length) {
      await this.file.write(data);
      return;
    }
    this.buffer.set(data, this.used);
    this.used += data.length;
  }

  async flush(): Promise<void> {
    if (this.used === 0) return;
    await this.file.write(this.buffer, 0, this.used);
    this.used = 0;
  }

  /** Streams a file of `size` bytes through the same buffer; fails if the file changed size meanwhile. */
  async copyFrom(source: string, size: number): Promise<void> {
    await this.flush();
    const input = await open(source, 'r');
    try {
      let copied = 0;
      for (;;) {
        const { bytesRead } = await input.read(this.buffer, 0, this.buffer.length, null);
        if (bytesRead === 0) break;
        copied += bytesRead;
        if (copied > size) break;
        await this.file.write(this.buffer, 0, bytesRead);
      }
      if (copied !== size) throw new Error(`${source} changed size while it was archived`);
    } finally {
      await input.close();
    }
  }
}

async function sizeOf(source: string): Promise<number> {
  const handle = await open(source, 'r');
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new Error(`${source} is not a regular file`);
    return st.size;
  } finally {
    await handle.close();
  }
}

/**
 * Writes `entries` in the given order to `output` (through `<output>.partial-<pid>`, renamed at the end,
 * so a reader never sees half an archive). The same entries and mtime give the same bytes.
 */
export async function writeTar(
  output: string,
  entries: Iterable<TarEntry> | AsyncIterable<TarEntry>,
  options: WriteTarOptions = {},
): Promise<void> {
  const mtime = Math.floor((options.mtime ?? new Date(0)).getTime() / 1000);
  if (!Number.isSafeInteger(mtime) || mtime < 0) throw new Error(`invalid mtime ${String(options.mtime)}`);
  await mkdir(path.dirname(output), { recursive: true });
  const partial = `${output}.partial-${process.pid}`;
  const file = await open(partial, 'w');
  try {
    const out = new ChunkedWriter(file);
    for await (const entry of entries) {
      if (entry.type === 'file' && 'source' in entry) {
        const size = await sizeOf(entry.source);
        await out.write(entryHeader(entry, size, mtime));
        await out.copyFrom(entry.source, size);
        await out.write(padding(size));
      } else if (entry.type === 'file') {
        const data = typeof entry.data === 'string' ? Buffer.from(entry.data) : entry.data;
        await out.write(entryHeader(entry, data.length, mtime));
        await out.write(data);
        await out.write(padding(data.length));
      } else {
        await out.write(entryHeader(entry, 0, mtime));
      }
    }
    await out.write(Buffer.alloc(2 * BLOCK));
    await out.flush();
    await file.close();
    await rename(partial, output);
  } catch (err) {
    await file.close().catch(() => undefined);
    await rm(partial, { force: true });
    throw err;
  }
}
