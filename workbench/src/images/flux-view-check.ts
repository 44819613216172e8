// The Flux view run as a pod runs it, in chroots (as root, no cluster): hack/check-flux-view-rootfs.sh
// over the unpacked view image and an unpacked application image (a plain one).
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Progress } from '../tooling/hack-script.ts';
import { runChrootCheck } from './chroot-check.ts';
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
  if (process.getuid?.() !== 0) throw new Error('the chroot check of the Flux view needs root');
  return runChrootCheck({
    prefix: 'flux-view-check-',
    script: 'check-flux-view-rootfs.sh',
    prepare: async (work) => {
      const viewRoot = path.join(work, 'view-image');
      const appRoot = path.join(work, 'app-image');
      const shared = path.join(work, 'shared');
      await unpackImageArchive(viewArchive, viewRoot);
      await unpackImageArchive(appArchive, appRoot);
      await mkdir(shared);
      progress(
        `checking the view of ${path.basename(viewArchive)} in ${path.basename(appArchive)} (chroots)`,
      );
      return [viewRoot, appRoot, shared];
    },
    progress,
    env: options.env ?? process.env,
  });
}
