/**
 * The PersistentVolumes the operator made for `spec.volumes` go with their MiniCluster when it says
 * so (`delete: true`). They are cluster-wide and the MiniCluster is not, so no ownerReference can
 * tie them to it (the garbage collector ignores a namespaced owner of a cluster-scoped object): their
 * labels say whose they are, and this collector deletes those whose MiniCluster (by uid) is gone.
 * Only PersistentVolume objects are deleted, and their reclaim policy is Retain: the directory or the
 * CSI volume behind one is never erased. A volume still bound to a claim (pods still running) stays
 * until the claim goes, held by Kubernetes' pv-protection finalizer.
 */
import type { V1PersistentVolume } from '@kubernetes/client-node';
import {
  COMPONENT_STORAGE,
  LABEL_APP_COMPONENT,
  LABEL_DELETE_WITH_MINICLUSTER,
  LABEL_MANAGED_BY,
  LABEL_MINICLUSTER_NAMESPACE,
  LABEL_MINICLUSTER_UID,
  MANAGED_BY,
} from '../../api/index.ts';
import { isNotFound } from '../../kube/api-errors.ts';
import type { ApiClients } from '../../kube/api-clients.ts';

/** The operator's PersistentVolumes that go with their MiniCluster. */
export const COLLECTABLE_VOLUMES_SELECTOR = [
  `${LABEL_MANAGED_BY}=${MANAGED_BY}`,
  `${LABEL_APP_COMPONENT}=${COMPONENT_STORAGE}`,
  `${LABEL_DELETE_WITH_MINICLUSTER}=true`,
].join(',');

/**
 * The volumes to delete: made for a MiniCluster (uid label) that is not among the living ones, in
 * a namespace this operator watches (`namespaces` empty: all), not already being deleted. Pure.
 */
export function collectableVolumes(
  volumes: readonly V1PersistentVolume[],
  livingUids: ReadonlySet<string>,
  namespaces: readonly string[],
): V1PersistentVolume[] {
  return volumes.filter((volume) => {
    const labels = volume.metadata?.labels ?? {};
    const uid = labels[LABEL_MINICLUSTER_UID];
    const namespace = labels[LABEL_MINICLUSTER_NAMESPACE];
    return (
      labels[LABEL_DELETE_WITH_MINICLUSTER] === 'true' &&
      uid !== undefined &&
      uid !== '' &&
      !livingUids.has(uid) &&
      namespace !== undefined &&
      (namespaces.length === 0 || namespaces.includes(namespace)) &&
      volume.metadata?.deletionTimestamp === undefined
    );
  });
}

/** Deletes the collectable volumes; returns their names. */
export async function collectVolumes(
  clients: Pick<ApiClients, 'core'>,
  livingUids: () => ReadonlySet<string>,
  namespaces: readonly string[],
): Promise<string[]> {
  const { items } = await clients.core.listPersistentVolume({ labelSelector: COLLECTABLE_VOLUMES_SELECTOR });
  // The living MiniClusters after the list: a volume listed was applied for one already cached then.
  const living = livingUids();
  const deleted: string[] = [];
  for (const volume of collectableVolumes(items, living, namespaces)) {
    const name = volume.metadata?.name ?? '';
    try {
      await clients.core.deletePersistentVolume({ name });
      deleted.push(name);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  return deleted;
}

/**
 * The operator's PersistentVolumes (among `wanted`, the rendered ones) that are Released: their claim
 * went (deleted by hand, or with a MiniCluster recreated before its volumes were collected) and Kubernetes
 * keeps them reserved for that claim's uid, so the claim the operator makes again would wait forever.
 * Forgetting the old uid lets the volume bind the new claim of the same name. Pure.
 */
export function releasedVolumes(
  wanted: readonly string[],
  live: (name: string) => V1PersistentVolume | undefined,
): string[] {
  return wanted.filter((name) => {
    const volume = live(name);
    return volume?.status?.phase === 'Released' && volume.spec?.claimRef?.uid !== undefined;
  });
}

/** The merge patch that makes a Released volume take a new claim of the same name. */
export const RECLAIM_PATCH = { spec: { claimRef: { uid: null, resourceVersion: null } } };
