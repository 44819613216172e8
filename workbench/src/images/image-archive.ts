// Container images without docker or a registry: a docker-archive tar (manifest.json, the image config
// and the layer tars under blobs/sha256/) that `ctr -n k8s.io images import` and `docker load` accept.
// The layers are streamed from their files; the same inputs give the same archive, byte for byte.
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { writeTar } from './tar-writer.ts';
import type { TarEntry } from './tar-writer.ts';

export interface ImageConfig {
  entrypoint?: string[];
  cmd?: string[];
  /** `NAME=value` lines. */
  env?: string[];
  /** `uid`, `uid:gid` or a user name of the image. */
  user?: string;
  workingDir?: string;
  /** e.g. `8080/tcp`. */
  exposedPorts?: string[];
  labels?: Record<string, string>;
}

export interface ImageArchiveOptions {
  /** The image name with its tag, e.g. `localhost/flux:0.88.0`. */
  reference: string;
  /** Paths of uncompressed layer tars, bottom first. */
  layers: string[];
  config: ImageConfig;
  /** The archive to write (through a temporary file beside it, renamed at the end). */
  output: string;
  /** The image's creation time (default: the epoch, for reproducible images). */
  created?: Date;
  /** What made each layer, recorded in the config's history (default: `layer <n>`). */
  history?: string[];
}

export interface ImageArchive {
  output: string;
  /** `sha256:<hex>` of the config JSON: what `ctr images ls` and the kubelet show as the image id. */
  imageId: string;
}

export const DEFAULT_CREATED = new Date(0);

/** JSON with object keys sorted at every level and no white space: one text per value. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}

/**
 * The key naming a recipe's cache folder: 16 hex digits of the sha256 of `value`'s canonical JSON (the
 * recipe and what else its build depends on, e.g. the command lines), so it changes with any of them.
 */
export function digestKey(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 16);
}

const REFERENCE =
  /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*:[\w][\w.-]{0,127}$/;

/** Checks that a reference is `name:tag` in the form the container runtimes accept; returns it. */
export function checkReference(reference: string): string {
  if (!REFERENCE.test(reference)) {
    throw new Error(
      `invalid image reference ${JSON.stringify(reference)}: use lower-case [host[:port]/]path:tag, e.g. localhost/flux:0.88.0`,
    );
  }
  return reference;
}

/** The file name of a reference's archive in a build's cache folder: `localhost/flux:0.88.0` -> `flux_0.88.0.tar`. */
export function archiveFileName(reference: string): string {
  return `${reference.replace(/^.*\//, '').replace(':', '_')}.tar`;
}

/** `sha256:<hex>` of a file, read in chunks. */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(1 << 20);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
  return `sha256:${hash.digest('hex')}`;
}

export function sha256Text(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

/** The image config JSON (OCI image config, as docker writes it), canonical. */
export function imageConfigJson(
  config: ImageConfig,
  diffIds: string[],
  created: Date = DEFAULT_CREATED,
  history?: string[],
): string {
  if (history !== undefined && history.length !== diffIds.length) {
    throw new Error(`history has ${history.length} entries for ${diffIds.length} layers`);
  }
  for (const port of config.exposedPorts ?? []) {
    if (!/^[0-9]{1,5}(\/(tcp|udp|sctp))?$/.test(port)) throw new Error(`invalid exposed port ${port}`);
  }
  for (const line of config.env ?? []) {
    if (!/^[^=]+=/.test(line))
      throw new Error(`invalid environment line ${JSON.stringify(line)}: use NAME=value`);
  }
  const when = created.toISOString().replace(/\.000Z$/, 'Z');
  const runtime: Record<string, unknown> = {
    Entrypoint: config.entrypoint,
    Cmd: config.cmd,
    Env: config.env,
    User: config.user,
    WorkingDir: config.workingDir,
    ExposedPorts:
      config.exposedPorts === undefined
        ? undefined
        : Object.fromEntries(config.exposedPorts.map((p) => [p.includes('/') ? p : `${p}/tcp`, {}])),
    Labels: config.labels,
  };
  return canonicalJson({
    architecture: 'amd64',
    os: 'linux',
    created: when,
    config: Object.fromEntries(Object.entries(runtime).filter(([, v]) => v !== undefined)),
    rootfs: { type: 'layers', diff_ids: diffIds },
    history: diffIds.map((_, i) => ({ created: when, created_by: history?.[i] ?? `layer ${i + 1}` })),
  });
}

function blobPath(digest: string): string {
  return `blobs/sha256/${digest.replace(/^sha256:/, '')}`;
}

/** manifest.json of a docker-archive with one image. */
export function archiveManifestJson(reference: string, configDigest: string, diffIds: string[]): string {
  return canonicalJson([
    { Config: blobPath(configDigest), RepoTags: [checkReference(reference)], Layers: diffIds.map(blobPath) },
  ]);
}

/**
 * Writes a docker-archive of one image: manifest.json, the config and each layer (once, when two layers
 * are the same) under blobs/sha256/. Returns the archive path and the image id.
 */
export async function writeImageArchive(options: ImageArchiveOptions): Promise<ImageArchive> {
  checkReference(options.reference);
  if (options.layers.length === 0) throw new Error('an image needs at least one layer');
  const diffIds: string[] = [];
  for (const layer of options.layers) diffIds.push(await sha256File(layer));
  const configJson = imageConfigJson(
    options.config,
    diffIds,
    options.created ?? DEFAULT_CREATED,
    options.history,
  );
  const imageId = sha256Text(configJson);
  const entries: TarEntry[] = [
    {
      type: 'file',
      path: 'manifest.json',
      mode: 0o644,
      data: archiveManifestJson(options.reference, imageId, diffIds),
    },
    { type: 'directory', path: 'blobs', mode: 0o755 },
    { type: 'directory', path: 'blobs/sha256', mode: 0o755 },
    { type: 'file', path: blobPath(imageId), mode: 0o644, data: configJson },
  ];
  const written = new Set<string>([imageId]);
  options.layers.forEach((layer, i) => {
    const digest = diffIds[i] as string;
    if (written.has(digest)) return;
    written.add(digest);
    entries.push({ type: 'file', path: blobPath(digest), mode: 0o644, source: layer });
  });
  await writeTar(options.output, entries, { mtime: options.created ?? DEFAULT_CREATED });
  return { output: options.output, imageId };
}
