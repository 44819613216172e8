// The command of a MiniCluster's flux-view container, a sidecar: scripts/view-sidecar.sh, which copies
// the view with scripts/view-init.sh and stays up (files of the MiniCluster's ConfigMap), run with the
// view image's own /bin/sh, so one command copies a view of
// either layout, this project's (its flux-view-copy) or the Go Flux Operator's (a Spack view and
// /opt/software), and refuses, naming the image and both layouts, an image that has neither
// (docs/flux-view.md). The script is a file, not the command's text: the pod
// template then stays the same when a new operator build changes the script (a running Job's
// template cannot change; the ConfigMap can).
import { FLUX_SCRIPTS } from './scripts/files.ts';

/** The script's file in the MiniCluster's ConfigMap (mounted with the operator's files). */
export const VIEW_INIT_FILE = 'view-init.sh';
/** The script's text. */
export function viewInitScript(): string {
  return FLUX_SCRIPTS.text('view-init.sh');
}
/** The sidecar's script (the container's command), in the same folder as view-init.sh. */
export const VIEW_SIDECAR_FILE = 'view-sidecar.sh';
/** Its text. */
export function viewSidecarScript(): string {
  return FLUX_SCRIPTS.text('view-sidecar.sh');
}
/** The shell every view image has: busybox's in this project's, Ubuntu's or Rocky's in the Go operator's. */
export const VIEW_INIT_SHELL = '/bin/sh';
/** Where the Go operator's view images hold the software their Spack view's programs load. */
export const SPACK_SOFTWARE_DIR = '/opt/software';
/** The folder of the shared volume the init container copies a Spack view's software to. */
export const SPACK_SOFTWARE_COPY = 'software';

/** `sh SCRIPT_PATH MOUNT_PATH IMAGE`: the view container's command, the script mounted at `scriptPath`. */
export function viewInitCommand(scriptPath: string, mountPath: string, image: string): string[] {
  for (const [what, path] of [
    ['scriptPath', scriptPath],
    ['mountPath', mountPath],
  ] as const) {
    if (!path.startsWith('/')) throw new Error(`${what} ${JSON.stringify(path)} must be absolute`);
  }
  if (image.trim() === '') throw new Error('image must name the view image');
  return [VIEW_INIT_SHELL, scriptPath, mountPath, image];
}
