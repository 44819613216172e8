// Reading docker-archives back: the manifest, and the layers applied in order onto a folder (what a
// runtime's snapshotter does, minus whiteouts, which the images made here never have).
import { mkdir } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export interface ArchiveManifestEntry {
  Config: string;
  RepoTags: string[];
  Layers: string[];
}

/** manifest.json of a docker-archive. */
export async function readArchiveManifest(archive: string): Promise<ArchiveManifestEntry[]> {
  const { stdout } = await execFileAsync('tar', ['-xOf', archive, 'manifest.json'], { maxBuffer: 1 << 24 });
  return JSON.parse(stdout) as ArchiveManifestEntry[];
}

/** A member of a tar file, as text (small members only: configs, /etc files). */
export async function readTarMember(tar: string, member: string): Promise<string> {
  const { stdout } = await execFileAsync('tar', ['-xOf', tar, member], { maxBuffer: 1 << 26 });
  return stdout;
}

/**
 * Unpacks the image of a one-image docker-archive into `rootfs`: each layer in order, streamed from the
 * archive, with the owners it records (as root).
 */
export async function unpackImageArchive(archive: string, rootfs: string): Promise<void> {
  const [image] = await readArchiveManifest(archive);
  if (image === undefined) throw new Error(`${archive} holds no image`);
  await mkdir(rootfs, { recursive: true });
  for (const layer of image.Layers) {
    await execFileAsync('bash', [
      '-c',
      'set -o pipefail; tar -xOf "$1" "$2" | tar -x --numeric-owner --same-owner -C "$3"',
      'unpack',
      archive,
      layer,
      rootfs,
    ]);
  }
}
