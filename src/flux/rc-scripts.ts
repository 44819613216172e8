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
