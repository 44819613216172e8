import type { V1ObjectMeta, V1OwnerReference } from '@kubernetes/client-node';

/** Any Kubernetes object as rendered: enough for the CLI to print and the controller to apply. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: V1ObjectMeta & { name: string };
}

/** A rendered object of a client model type: the type, with the fields every rendered object has. */
export type Rendered<T> = T & KubeObject;

/** The MiniCluster that owns the rendered objects, once it exists in a cluster (it has a uid). */
export interface Owner {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
}

export function ownerReference(owner: Owner): V1OwnerReference {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.name,
    uid: owner.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** Returns the entries of a string map in key order, so rendered lists do not depend on input order. */
export function sortedEntries<T>(map: Readonly<Record<string, T>> | undefined): [string, T][] {
  return Object.entries(map ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
