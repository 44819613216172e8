import { SECRET_DATA_KEYS } from '../api/index.ts';

/**
 * Where things live inside a MiniCluster pod. One place, because broker.toml, the entrypoint and
 * the Job's volume mounts must agree on every one of them.
 */

/** broker.toml, alone in its directory: `flux start --config` reads every .toml file there. */
export const CONFIG_DIR = '/etc/flux/config';
export const BROKER_CONFIG_FILE = 'broker.toml';

/** The entrypoint script and R, from the MiniCluster's ConfigMap (read-only). */
export const OPERATOR_DIR = '/flux_operator';
export const ENTRYPOINT_FILE = 'entrypoint.sh';
export const RESOURCE_SPEC_FILE = 'R';

/**
 * Secret mounts (read-only), each entry a file named after its data key; the entrypoint copies them
 * to their final places with strict modes.
 */
export const CURVE_CERT_MOUNT_DIR = '/etc/flux-operator/curve';
export const CURVE_CERT_FILE = SECRET_DATA_KEYS.curveCert;
export const MUNGE_KEY_MOUNT_DIR = '/etc/flux-operator/munge';
export const MUNGE_KEY_FILE = SECRET_DATA_KEYS.mungeKey;
export const MUNGE_KEY_PATH = '/etc/munge/munge.key';
/** The RESTful API's users and keys (read by its server; the lead copies it, 0400, for the flux user). */
export const RESTFUL_MOUNT_DIR = '/etc/flux-operator/restful';
export const RESTFUL_CREDENTIALS_FILE = SECRET_DATA_KEYS.restful.credentials;
/**
 * munged's compiled-in directories in the distributions' packages (Debian, Ubuntu, RHEL): the
 * entrypoint makes them, since without systemd nobody makes the socket's.
 */
export const MUNGE_SOCKET_DIR = '/run/munge';
export const MUNGE_SEED_DIR = '/var/lib/munge';
export const MUNGE_LOG_DIR = '/var/log/munge';

/** A writable emptyDir for what the entrypoint writes: the certificate copy, R, Flux's state. */
export const STATE_DIR = '/mnt/flux';
export const CURVE_CERT_PATH = `${STATE_DIR}/${CURVE_CERT_FILE}`;
export const POD_RESOURCE_SPEC_PATH = `${STATE_DIR}/R`;
export const FLUX_STATE_DIR = `${STATE_DIR}/state`;
export const RESTFUL_CREDENTIALS_PATH = `${STATE_DIR}/restful-credentials.json`;

/** The rundir gives the instance's local URI, `local:///run/flux/local`, which users pass to `flux proxy`. */
export const RUN_DIR = '/run/flux';
