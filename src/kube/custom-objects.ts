/**
 * Requests on this operator's custom resources (MiniClusters, BurstTargets) by plural: the same
 * shapes for both kinds, in one namespace or (namespace undefined) in all.
 */
import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import { collectionPath, type CustomObjectsApi } from './api-clients.ts';
import { GROUP, VERSION_V1ALPHA1 } from '../api/index.ts';
import { isNotFound } from './api-errors.ts';
import { namespaceOf } from '../api/index.ts';

/** The reads and the delete used here. */
export type CustomObjectReader = Pick<
  CustomObjectsApi,
  | 'listClusterCustomObject'
  | 'listNamespacedCustomObject'
  | 'getNamespacedCustomObject'
  | 'deleteNamespacedCustomObject'
>;

/** The collection path, for watches. */
export function customObjectsPath(plural: string, namespace: string | undefined): string {
  return collectionPath(`/apis/${GROUP}/${VERSION_V1ALPHA1}`, plural, namespace);
}

export async function listCustomObjects<T extends KubernetesObject>(
  custom: CustomObjectReader,
  plural: string,
  namespace: string | undefined,
  labelSelector?: string,
): Promise<KubernetesListObject<T>> {
  return (
    namespace === undefined
      ? await custom.listClusterCustomObject({
          group: GROUP,
          version: VERSION_V1ALPHA1,
          plural,
          labelSelector,
        })
      : await custom.listNamespacedCustomObject({
          group: GROUP,
          version: VERSION_V1ALPHA1,
          namespace,
          plural,
          labelSelector,
        })
  ) as KubernetesListObject<T>;
}

/** Deletes one object (dependents in the background); false when it was already gone. */
export async function deleteCustomObject(
  custom: Pick<CustomObjectReader, 'deleteNamespacedCustomObject'>,
  plural: string,
  namespace: string,
  name: string,
): Promise<boolean> {
  try {
    await custom.deleteNamespacedCustomObject({
      group: GROUP,
      version: VERSION_V1ALPHA1,
      namespace,
      plural,
      name,
      propagationPolicy: 'Background',
    });
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

/** Replaces an object's finalizers with a merge patch. */
export async function patchFinalizers(
  custom: Pick<CustomObjectsApi, 'patchNamespacedCustomObject'>,
  plural: string,
  object: { metadata: { name: string; namespace?: string; resourceVersion?: string } },
  finalizers: string[],
): Promise<void> {
  await custom.patchNamespacedCustomObject({
    group: GROUP,
    version: VERSION_V1ALPHA1,
    namespace: namespaceOf(object),
    plural,
    name: object.metadata.name,
    // resourceVersion makes this fail rather than drop a finalizer another writer added meanwhile.
    body: { metadata: { finalizers, resourceVersion: object.metadata.resourceVersion } },
  });
}
