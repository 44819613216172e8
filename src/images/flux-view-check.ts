// The Flux view run as a pod runs it, in chroots (as root, no cluster): hack/check-flux-view-rootfs.sh
// over the unpacked view image and an unpacked application image (a plain one).
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCommand } from '../tooling/command.ts';
import type { Progress } from '../tooling/hack-script.ts';
import { mountsUnder } from '../tooling/mounts.ts';
import { findProjectRoot } from '../tooling/project.ts';
import { viewProgress } from './flux-view-build.ts';
import { unpackImageArchive } from './unpack.ts';

/**
 * Unpacks the view image and the application image, then runs the check: the view image's command copies
 * the view (as uid 1000, then again as root), and hack/flux-view-checks.sh runs in the application's
 * root file system as root and as uid 1000. Returns the check's output; throws when a check fails.
 */
export async function checkFluxView(
  viewArchive: string,
  appArchive: string,
  options: { progress?: Progress; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  const progress = options.progress ?? viewProgress;
  const env = options.env ?? process.env;
  if (process.getuid?.() !== 0) throw new Error('the chroot check of the Flux view needs root');
  const work = await mkdtemp(path.join(tmpdir(), 'flux-view-check-'));
  const viewRoot = path.join(work, 'view-image');
  const appRoot = path.join(work, 'app-image');
  const shared = path.join(work, 'shared');
  try {
    await unpackImageArchive(viewArchive, viewRoot);
    await unpackImageArchive(appArchive, appRoot);
    await mkdir(shared);
    progress(`checking the view of ${path.basename(viewArchive)} in ${path.basename(appArchive)} (chroots)`);
    return await runCommand(
      'bash',
      [path.join(findProjectRoot(), 'hack', 'check-flux-view-rootfs.sh'), viewRoot, appRoot, shared],
      {
        env: { ...env, PATH: `/usr/sbin:/usr/bin:/sbin:/bin:${env.PATH ?? ''}` },
        onLine: (l) => progress(l),
      },
    );
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
