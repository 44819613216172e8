/**
 * Bounds of the API. Every list and string a CEL rule reads has a bound, because the API server
 * estimates a rule's worst-case cost from them and refuses a CRD whose rules could cost too much.
 */

/** A DNS label (RFC 1035 / RFC 1123): host names, Service names, container names. */
export const DNS_LABEL_MAX_LENGTH = 63;
/** A DNS subdomain (RFC 1123): Secret, ConfigMap, PVC and ServiceAccount names. */
export const DNS_SUBDOMAIN_MAX_LENGTH = 253;

/**
 * Most brokers one MiniCluster may list: its own `maxSize` plus burst clusters plus an external
 * lead broker. The host list, R and the broker config grow with it, and DNS for thousands of pods
 * already needs `connectTimeout` tuning; raise it when someone needs more and has measured.
 */
export const MAX_BROKERS = 10000;

export const MAX_CONTAINERS = 16;
/** Service containers (v1alpha1 `spec.services`): few, since the CRD's CEL budget prices each. */
export const MAX_SERVICES = 4;
export const MAX_PORTS_PER_CONTAINER = 32;
export const MAX_VOLUMES_PER_CONTAINER = 32;
export const MAX_BURST_CLUSTERS = 32;
export const MAX_TOLERATIONS = 32;
export const MAX_MAP_ENTRIES = 64;
export const MAX_CAPABILITIES = 32;

/**
 * Largest integer any field takes: JavaScript numbers hold integers exactly up to 2^53-1, so a
 * larger one would reach the rendered objects as a different number than the one stored.
 */
export const MAX_INTEGER = Number.MAX_SAFE_INTEGER;
/** Tasks of the command (`flux submit -n`): Flux counts them in a C int. */
export const MAX_TASKS = 2147483647;
/** Largest quantity (resources, emptyDir size): the same bound, so quantities compare exactly. */
export const MAX_QUANTITY = MAX_INTEGER;
/** A quantity string: a number and a suffix; the bound keeps CEL's cost estimates low. */
export const QUANTITY_MAX_LENGTH = 64;
/** Kubernetes refuses a pod whose annotations (keys and values) exceed 256 KiB. */
export const ANNOTATIONS_MAX_BYTES = 262144;
/** Kubernetes refuses a ConfigMap whose data exceeds 1 MiB. */
export const CONFIG_MAP_MAX_BYTES = 1048576;

/** Label values (Kubernetes: at most 63 characters). */
export const LABEL_VALUE_MAX_LENGTH = 63;
/** Shell snippets (commands.pre, ...), the command, batch scripts: generous but bounded. */
export const SCRIPT_MAX_LENGTH = 65536;
/** A whole broker.toml given by hand. */
export const BROKER_CONFIG_MAX_LENGTH = 65536;
/** A zcert text: about 400 bytes; the bound leaves room for comments. */
export const CURVE_CERT_MAX_LENGTH = 4096;
/** File system paths (PATH_MAX on Linux). */
export const PATH_MAX_LENGTH = 4096;
/**
 * Mount paths and host paths: CEL compares them pairwise (unique mount paths, one source per pod
 * volume), and the API server prices such rules by the bound; PATH_MAX would price them out.
 */
export const VOLUME_PATH_MAX_LENGTH = 1024;
/** Free-form short strings: image references, option flags, addresses. */
export const SHORT_STRING_MAX_LENGTH = 1024;
/** Condition messages, as metav1.Condition. */
export const CONDITION_MESSAGE_MAX_LENGTH = 32768;
/** Condition reasons and types, as metav1.Condition. */
export const CONDITION_REASON_MAX_LENGTH = 1024;
export const CONDITION_TYPE_MAX_LENGTH = 316;
/** Flux's default overlay port (`[bootstrap] default_port`). */
export const DEFAULT_BROKER_PORT = 8050;
