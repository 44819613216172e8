// The operator's rc1 script, which every broker runs from a folder the entrypoint puts on
// FLUX_RC_EXTRA (flux modprobe's rc1 runs each executable `rc1.d/*` of those folders, after every
// module: the broker has read its certificate by then). It removes the broker's private copy of the
// CURVE certificate, so the jobs, which run as the broker's user, cannot read it (docs/security.md).
// The script is scripts/forget-certificate.sh.
import { FLUX_SCRIPTS } from './scripts/files.ts';

/** Its name in the MiniCluster's ConfigMap. */
export const FORGET_CERTIFICATE_FILE = 'forget-certificate.sh';
/** Where it is under the FLUX_RC_EXTRA folder. */
export const FORGET_CERTIFICATE_RC_PATH = `rc1.d/${FORGET_CERTIFICATE_FILE}`;

export function forgetCertificateScript(): string {
  return FLUX_SCRIPTS.text('forget-certificate.sh');
}

// The instance's cleanup in one process instead of flux-core's four `flux` commands (about 0.8 s less
// at the end of every MiniCluster with a command): an rc1 file of `flux modprobe`, which reads
// `<dir>/rc1.d/*.py` of each folder on FLUX_MODPROBE_PATH_APPEND (the entrypoint puts MODPROBE_DIR of
// the FLUX_RC_EXTRA folder there). A folder of its own, because FLUX_RC_EXTRA's rc1.d runs every file
// it holds as a program, and an older Flux's shell rc1 would fail on one it cannot run.

/** Its name in the MiniCluster's ConfigMap. */
export const ONE_STEP_CLEANUP_FILE = 'one-step-cleanup.py';
/** The modprobe folder under the FLUX_RC_EXTRA folder. */
export const MODPROBE_DIR = 'modprobe';
/** Where it is under the FLUX_RC_EXTRA folder. */
export const ONE_STEP_CLEANUP_RC_PATH = `${MODPROBE_DIR}/rc1.d/${ONE_STEP_CLEANUP_FILE}`;

export function oneStepCleanupScript(): string {
  return FLUX_SCRIPTS.text(ONE_STEP_CLEANUP_FILE);
}
