/**
 * Names and settings of the operator's own install: one place for what install.yaml, the Helm chart,
 * `flux-operator install` and the Dockerfile agree on.
 */
import { LABEL_APP_COMPONENT, LABEL_APP_NAME } from '../api/index.ts';
import { DEFAULT_FLUX_VIEW_IMAGE } from '../api/index.ts';

/** The operator's version; a unit test keeps it equal to package.json's. */
export const OPERATOR_VERSION = '0.1.0';

export const OPERATOR_IMAGE_REPOSITORY = 'ghcr.io/flux-framework/flux-operator-ts';
export const DEFAULT_OPERATOR_IMAGE = `${OPERATOR_IMAGE_REPOSITORY}:${OPERATOR_VERSION}`;
/**
 * Environment variable carrying the operator's own image into its pod, so the install it makes on a
 * burst target runs the same image (a mirror, a custom build) rather than the release default.
 */
export const OPERATOR_IMAGE_ENV = 'OPERATOR_IMAGE';

/** Where the operator runs by default (its Deployment, ServiceAccount and leader-election Lease). */
export const OPERATOR_NAMESPACE = 'flux-operator-system';

/** Name of the Deployment, ServiceAccount, ClusterRole and ClusterRoleBinding. */
export const OPERATOR_NAME = 'flux-operator';
/** Name of the Role and RoleBinding that let the operator hold its Lease in its own namespace. */
export const LEADER_ELECTION_ROLE_NAME = 'flux-operator-leader-election';
/** Name of the Role and RoleBinding of the conversion webhook's certificate Secret (the operator's namespace). */
export const WEBHOOK_ROLE_NAME = 'flux-operator-webhook-cert';

/** Field manager of every server-side apply by the operator and by `flux-operator install`. */
export const FIELD_MANAGER = 'flux-operator';

/** reportingController of every event the operator records (both controllers'). */
export const REPORTING_CONTROLLER = 'flux-framework.org/flux-operator';

/** The operator container: the executable on the image's PATH and its name in the pod. */
export const OPERATOR_COMMAND = 'flux-operator';
export const OPERATOR_CONTAINER_NAME = 'operator';

/** HTTPS, to the tokens allowed to get /metrics (`--metrics-secure`: observability/metrics-auth.ts). */
export const METRICS_PORT = 8443;
export const METRICS_PORT_NAME = 'metrics';
export const HEALTH_PORT = 8081;
export const HEALTH_PORT_NAME = 'health';
export const LIVENESS_PATH = '/healthz';
export const READINESS_PATH = '/readyz';

/**
 * The conversion webhook (v1alpha1 <-> v1alpha2): the port the operator serves it on in its pod, the
 * Service the CRD names (port 443 to that port), and the Secret of its CA and serving certificate,
 * in the operator's namespace, which its replicas share and the operator renews.
 */
export const WEBHOOK_PORT = 9443;
export const WEBHOOK_PORT_NAME = 'webhook';
export const WEBHOOK_SERVICE_NAME = 'flux-operator-webhook';
export const WEBHOOK_SERVICE_PORT = 443;
export const WEBHOOK_CERT_SECRET = 'flux-operator-webhook-cert';

/**
 * The Flux view image MiniClusters copy Flux from when they name none: the API's default (the Go
 * operator's public one). `flux-operator run --flux-view-image`, `install --flux-view-image` and the
 * Helm value change it.
 */
export { DEFAULT_FLUX_VIEW_IMAGE };
export const FLUX_VIEW_IMAGE_FLAG = '--flux-view-image';
/**
 * The operator serves conversions but leaves the CRD's conversion webhook where it points: an
 * install beside another operator (or a test's webhook) that holds the CRD.
 */
export const LEAVE_CRD_CONVERSION_FLAG = '--leave-crd-conversion';

export const RUN_SUBCOMMAND = 'run';
export const LEADER_ELECT_FLAG = '--leader-elect';
/** Where the operator serves /metrics and /healthz, /readyz (the ports the Deployment declares). */
export const SERVE_ARGS: readonly string[] = [
  `--metrics-addr=:${METRICS_PORT}`,
  '--metrics-secure',
  `--health-addr=:${HEALTH_PORT}`,
  `--webhook-addr=:${WEBHOOK_PORT}`,
];

/** The flag telling the operator in its pod which Service the CRD sends conversions to. */
export function webhookServiceArg(namespace: string, service: string = WEBHOOK_SERVICE_NAME): string {
  return `--webhook-service=${namespace}/${service}`;
}

/** The operator's arguments in the Deployment (after the command). */
export const OPERATOR_ARGS: readonly string[] = [RUN_SUBCOMMAND, LEADER_ELECT_FLAG, ...SERVE_ARGS];

/**
 * Node sizes its heap from the machine, or from a cgroup limit as if the heap could take all of it;
 * then the kubelet kills the pod before V8 collects. Half the container's limit for the old space
 * leaves the rest for code, the young space and buffers, and follows a changed limit (Helm values).
 * A 2 MiB semi-space (V8's default grows to 16 MiB, three of them resident under load) keeps the
 * young generation small: ~25 MiB less RSS at 50 x 8 for the same CPU (docs/performance.md).
 */
export const OPERATOR_NODE_OPTIONS = '--max-old-space-size-percentage=50 --max-semi-space-size=2';

/**
 * Requests fit the measured operator (docs/performance.md): ~90 MiB idle, ~100 MiB after 50
 * MiniClusters x 8 pods, 170-200 MiB at 1,000 x 8 (210-225 MiB at its peak, 64-70 MiB of live
 * heap). Only memory is limited (a CPU limit would throttle bursts); 512Mi leaves V8 256 MiB of old
 * space (OPERATOR_NODE_OPTIONS), nearly four times the live heap at 1,000 x 8, for larger fleets.
 */
export const OPERATOR_RESOURCES = {
  requests: { cpu: '50m', memory: '128Mi' },
  limits: { memory: '512Mi' },
} as const;

/** Kubernetes recommended labels: the operator's value of app.kubernetes.io/name and component. */
export const OPERATOR_APP_NAME = 'flux-operator';
export const OPERATOR_COMPONENT = 'controller';

/** Labels on every object of the install. */
export function operatorLabels(): Record<string, string> {
  return { [LABEL_APP_NAME]: OPERATOR_APP_NAME };
}

/** Labels selecting the operator's pods (the Deployment selector: immutable once created). */
export function operatorSelectorLabels(): Record<string, string> {
  return { [LABEL_APP_NAME]: OPERATOR_APP_NAME, [LABEL_APP_COMPONENT]: OPERATOR_COMPONENT };
}
