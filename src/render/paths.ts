import { SECRET_DATA_KEYS } from '../api/index.ts';
import { SPACK_SOFTWARE_COPY } from '../flux/index.ts';

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
/** In a folder the entrypoint makes anew at each broker start (root's, then the flux user's). */
export const CURVE_CERT_DIR = 'curve';
export const CURVE_CERT_PATH = `${STATE_DIR}/${CURVE_CERT_DIR}/${CURVE_CERT_FILE}`;
export const POD_RESOURCE_SPEC_PATH = `${STATE_DIR}/R`;
export const FLUX_STATE_DIR = `${STATE_DIR}/state`;
export const RESTFUL_CREDENTIALS_PATH = `${STATE_DIR}/restful/credentials.json`;

/** The rundir gives the instance's local URI, `local:///run/flux/local`, which users pass to `flux proxy`. */
export const RUN_DIR = '/run/flux';

/** The Flux view in the shared volume: where the init container puts it (flux/view-init.ts). */
export const VIEW_DIR = 'view';

/**
 * Where the writable files of a pod are: the state volume's mount (an emptyDir) and what the
 * entrypoint puts there. Flux from the image: STATE_DIR, with the rundir in the container. Flux from
 * a view: the view's mount path, where the init container copied the view, with the rundir there
 * too, so the containers beside Flux reach the instance (`fluxsocket` of the environment file).
 */
export interface PodLayout {
  readonly stateRoot: string;
  readonly curveCertPath: string;
  readonly podResourceSpecPath: string;
  readonly fluxStateDir: string;
  readonly restfulCredentialsPath: string;
  readonly runDir: string;
  /** Flux from the view: where it is, and the files the entrypoint writes beside it. */
  readonly view?: {
    readonly path: string;
    readonly commandDir: string;
    readonly environmentFile: string;
    /** Where the init container copies a Spack view's /opt/software (the Go operator's layout). */
    readonly spackSoftware: string;
    /**
     * The view and the Spack software are in a memory-backed volume of their own, mounted at `path`
     * and `spackSoftware` (flux.container.medium: Memory), not in the state volume on the node's disk.
     */
    readonly inMemory: boolean;
    readonly munge: {
      readonly daemon: string;
      readonly keyPath: string;
      readonly socketDir: string;
      readonly seedDir: string;
      readonly logDir: string;
    };
  };
}

/**
 * The layout of a pod: `viewMountPath` when Flux comes from the view (`flux.container.mountPath`);
 * `sharedRunDir` puts the rundir in the state volume when Flux comes from the image, for containers
 * beside Flux that wait for its socket; `viewInMemory` puts the view in a memory-backed volume of its own.
 */
export function podLayout(
  viewMountPath: string | undefined,
  sharedRunDir: boolean,
  viewInMemory = false,
): PodLayout {
  const root = viewMountPath?.replace(/\/+$/, '') ?? STATE_DIR;
  const layout = {
    stateRoot: root,
    curveCertPath: `${root}/${CURVE_CERT_DIR}/${CURVE_CERT_FILE}`,
    podResourceSpecPath: `${root}/R`,
    fluxStateDir: `${root}/state`,
    // In a folder of its own, given to the flux user: the server removes the file once read.
    restfulCredentialsPath: `${root}/restful/credentials.json`,
    runDir: viewMountPath !== undefined || sharedRunDir ? `${root}/run/flux` : RUN_DIR,
  };
  if (viewMountPath === undefined) return layout;
  const view = `${root}/${VIEW_DIR}`;
  return {
    ...layout,
    view: {
      path: view,
      commandDir: `${root}/bin`,
      environmentFile: `${root}/flux-view.sh`,
      spackSoftware: `${root}/${SPACK_SOFTWARE_COPY}`,
      inMemory: viewInMemory,
      munge: {
        daemon: `${view}/sbin/munged`,
        keyPath: `${root}/munge/key/${MUNGE_KEY_FILE}`,
        socketDir: `${root}/munge/run`,
        seedDir: `${root}/munge/lib`,
        logDir: `${root}/munge/log`,
      },
    },
  };
}

/** The ConfigMap file (under OPERATOR_DIR) of a container's `commands.script`. */
export function scriptFile(containerName: string): string {
  return `script-${containerName}.sh`;
}

/** The ConfigMap file (under OPERATOR_DIR) of the wrapper of a container beside the Flux container. */
export function wrapperFile(containerName: string): string {
  return `wrapper-${containerName}.sh`;
}

/** Where a batch command's jobs write their output and errors when the container names no `logs`. */
export const DEFAULT_BATCH_OUTPUT_DIR = '/tmp/fluxout';
