/**
 * The pod sandbox image of the real node: the static `pause` binary built from the Kubernetes module's
 * source (hack/build-real-node.sh), as an image archive written once into the cache.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { writeImageArchive } from '../../images/index.ts';
import { cacheRoot, readVersions } from '../../tooling/project.ts';

export interface PauseImage {
  reference: string;
  archive: string;
}

export async function pauseImage(binDir: string, env: NodeJS.ProcessEnv = process.env): Promise<PauseImage> {
  const version = readVersions().kubernetes;
  const reference = `localhost/pause:${version}`;
  const dir = path.join(cacheRoot(env), 'images');
  const archive = path.join(dir, `pause-${version}.tar`);
  if (existsSync(archive)) return { reference, archive };
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(path.join(dir, '.pause-'));
  try {
    const layer = path.join(work, 'layer.tar');
    execFileSync('tar', [
      '--create',
      '--file',
      layer,
      '--owner=0',
      '--group=0',
      '--numeric-owner',
      '--mtime=@0',
      '--directory',
      binDir,
      'pause',
    ]);
    const partial = path.join(work, 'image.tar');
    await writeImageArchive({
      reference,
      layers: [layer],
      config: { entrypoint: ['/pause'] },
      output: partial,
    });
    renameSync(partial, archive);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return { reference, archive };
}
