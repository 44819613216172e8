// The scripts of a MiniCluster's pods, files of this folder (linted with shellcheck, tested as shell):
// the entrypoint's body, the stay-up wrapper, the rc1 script, the sidecar wrapper, the view's copy and its sidecar.
import { packagedFiles } from '../packaged-files.ts';

export const FLUX_SCRIPTS = packagedFiles(import.meta.url, [
  'entrypoint.sh',
  'forget-certificate.sh',
  'one-step-cleanup.py',
  'sidecar.sh',
  'stay-up.sh',
  'view-init.sh',
  'view-sidecar.sh',
]);
