// Checks of unpacked images in chroots (as root, no cluster): a hack/ script run over root file systems
// unpacked into a temporary folder, which is removed afterwards unless something is still mounted in it.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCommand } from '../tooling/command.ts';
import type { Progress } from '../tooling/hack-script.ts';
import { mountsUnder } from '../tooling/mounts.ts';
import { findProjectRoot } from '../tooling/project.ts';
import { withSystemPath } from './cached-build.ts';
import { unpackImageArchive } from './unpack.ts';

export interface ChrootCheck {
  /** Starts the temporary folder's name. */
  prefix: string;
  /** The script, in hack/. */
  script: string;
  /** Fills the temporary folder (unpacks the images into it) and returns the script's arguments. */
  prepare: (work: string) => Promise<string[]>;
  progress: Progress;
  env: NodeJS.ProcessEnv;
}

/** Runs the check and returns the script's output; throws when it fails. */
export async function runChrootCheck(check: ChrootCheck): Promise<string> {
  const { progress, env } = check;
  const script = path.join(findProjectRoot(), 'hack', check.script);
  const work = await mkdtemp(path.join(tmpdir(), check.prefix));
  try {
    const args = await check.prepare(work);
    return await runCommand('bash', [script, ...args], {
      env: withSystemPath(env),
      onLine: (l) => progress(l),
    });
  } finally {
    const left = mountsUnder([work]);
    if (left.length > 0) {
      progress(`not removing ${work}: still mounted: ${left.join(' ')}`);
    } else {
      // --one-file-system: never descend into a mount, whatever happened above.
      await runCommand('rm', ['-rf', '--one-file-system', work], { env });
    }
  }
}

export interface ImageChrootCheck {
  /** Starts the temporary folder's name. */
  prefix: string;
  /** The script, in hack/. */
  script: string;
  /** The docker-archive of the image to check. */
  archive: string;
  /** The script's arguments, given the folder the image is unpacked into. */
  args: (rootfs: string) => string[];
  progress: Progress;
  env: NodeJS.ProcessEnv;
}

/**
 * Unpacks one image archive into a temporary folder and runs the check's script over it (as root, in a
 * chroot). Returns the script's output; throws when not root or when a check fails.
 */
export async function checkImageInChroot(check: ImageChrootCheck): Promise<string> {
  const { archive, progress } = check;
  if (process.getuid?.() !== 0) throw new Error('the chroot check of an image needs root');
  return runChrootCheck({
    prefix: check.prefix,
    script: check.script,
    prepare: async (work) => {
      const rootfs = path.join(work, 'rootfs');
      const t0 = Date.now();
      await unpackImageArchive(archive, rootfs);
      progress(
        `unpacked ${path.basename(archive)} in ${((Date.now() - t0) / 1000).toFixed(1)} s; checking it in a chroot`,
      );
      return check.args(rootfs);
    },
    progress,
    env: check.env,
  });
}
