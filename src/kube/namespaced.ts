/**
 * The namespace of an object that names none, for the layers that see Kubernetes objects but not the
 * MiniCluster API (the runtime): the one spelling is src/api/namespaced.ts.
 */
export { DEFAULT_NAMESPACE, namespaceOf, namespacedName } from '../api/shared/namespaced.ts';
