// The command of a MiniCluster's flux-view init container: scripts/view-init.sh (embedded by `npm run
// generate`), run with the view image's own /bin/sh, so one command copies a view of either layout,
// this project's (its flux-view-copy) or the Go Flux Operator's (a Spack view and /opt/software), and
// refuses, naming the image and both layouts, an image that has neither (docs/flux-view.md).
import { VIEW_INIT_SH } from './scripts/embedded.ts';

/** What the script is called in its own messages and `ps` ($0 of `sh -c`). */
export const VIEW_INIT_NAME = 'flux-view-init';
/** The shell every view image has: busybox's in this project's, Ubuntu's or Rocky's in the Go operator's. */
export const VIEW_INIT_SHELL = '/bin/sh';
/** Where the Go operator's view images hold the software their Spack view's programs load. */
export const SPACK_SOFTWARE_DIR = '/opt/software';
/** The folder of the shared volume the init container copies a Spack view's software to. */
export const SPACK_SOFTWARE_COPY = 'software';

/** `sh -c SCRIPT flux-view-init MOUNT_PATH IMAGE`: the init container's command. */
export function viewInitCommand(mountPath: string, image: string): string[] {
  if (!mountPath.startsWith('/')) throw new Error(`mountPath ${JSON.stringify(mountPath)} must be absolute`);
  if (image.trim() === '') throw new Error('image must name the view image');
  return [VIEW_INIT_SHELL, '-c', VIEW_INIT_SH, VIEW_INIT_NAME, mountPath, image];
}
