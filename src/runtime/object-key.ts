import type { KubernetesObject } from '@kubernetes/client-node';
import { namespaceOf } from '../kube/namespaced.ts';

/**
 * What a work queue holds: an object's `namespace/name` (client-go's "key"). Named ObjectKey here so
 * that it is never read as a crypto key, which the MiniCluster controller also handles.
 */
export type ObjectKey = string;

export function objectKey(namespace: string, name: string): ObjectKey {
  return `${namespace}/${name}`;
}

/** The key of a namespaced object, in the namespace Kubernetes gives one that names none. */
export function objectKeyOf(object: KubernetesObject): ObjectKey {
  return objectKey(namespaceOf(object), object.metadata?.name ?? '');
}

export function splitObjectKey(key: ObjectKey): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
