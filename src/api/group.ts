/**
 * Identity of the MiniCluster API: one place for the names the CRD, the clients and the tests share.
 * VERSION is the hub: the version the CRD stores, the controller watches and the renderer reads
 * (v1alpha2, the Go Flux Operator's current API). The older version the CRD still serves, and its
 * conversion to and from this one, are the spoke in v1alpha1/.
 */
export const GROUP = 'flux-framework.org';
export const VERSION = 'v1alpha2';
export const API_VERSION = `${GROUP}/${VERSION}`;
export const KIND = 'MiniCluster';
export const LIST_KIND = 'MiniClusterList';
export const PLURAL = 'miniclusters';
export const SINGULAR = 'minicluster';
export const SHORT_NAMES: readonly string[] = ['mc'];
/** `kubectl get flux` lists every resource of these categories. */
export const CATEGORIES: readonly string[] = ['flux'];
/** The CRD's own name, as Kubernetes requires: `<plural>.<group>`. */
export const CRD_NAME = `${PLURAL}.${GROUP}`;
