/**
 * The orphan collector: burst MiniClusters and copied key Secrets whose local MiniCluster no longer
 * exists (deleted while a target was unreachable, or with the finalizer removed by hand). Only
 * objects made by this cluster (origin-cluster label = its identity) are ever considered.
 */
import { DEFAULT_NAMESPACE, PLURAL } from '../../api/index.ts';
import { LABEL_BURST_ORIGIN_CLUSTER, LABEL_BURST_ORIGIN_UID } from '../../burst/external-minicluster.ts';
import { isNotFound } from '../../kube/api-errors.ts';
import type { ConnectedTarget } from './burst-step.ts';
import { deleteCustomObject, listCustomObjects } from '../../kube/custom-objects.ts';

interface Labelled {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
}

/** The objects whose origin MiniCluster (by uid) is not among the living ones. Pure. */
export function orphansOf<T extends Labelled>(objects: readonly T[], livingUids: ReadonlySet<string>): T[] {
  return objects.filter((object) => {
    const origin = object.metadata?.labels?.[LABEL_BURST_ORIGIN_UID];
    return origin !== undefined && origin !== '' && !livingUids.has(origin);
  });
}

export interface OrphanSweep {
  readonly miniClusters: string[];
  readonly secrets: string[];
}

/** Deletes the orphans this cluster made on one target; returns what it deleted (`namespace/name`). */
export async function collectOrphans(
  target: { readonly clients: ConnectedTarget['clients']; readonly namespace: string | undefined },
  clusterId: string,
  livingUids: ReadonlySet<string>,
): Promise<OrphanSweep> {
  const labelSelector = `${LABEL_BURST_ORIGIN_CLUSTER}=${clusterId}`;
  const { custom, core } = target.clients;
  const { namespace } = target;
  const miniClusters = (await listCustomObjects<Labelled>(custom, PLURAL, namespace, labelSelector)).items;
  const secrets = (
    namespace === undefined
      ? await core.listSecretForAllNamespaces({ labelSelector })
      : await core.listNamespacedSecret({ namespace, labelSelector })
  ).items;
  const deleted: OrphanSweep = { miniClusters: [], secrets: [] };
  for (const orphan of orphansOf(miniClusters, livingUids)) {
    const name = orphan.metadata?.name ?? '';
    const where = orphan.metadata?.namespace ?? namespace ?? DEFAULT_NAMESPACE;
    if (await deleteCustomObject(custom, PLURAL, where, name)) deleted.miniClusters.push(`${where}/${name}`);
  }
  for (const orphan of orphansOf(secrets, livingUids)) {
    const name = orphan.metadata?.name ?? '';
    const where = orphan.metadata?.namespace ?? namespace ?? DEFAULT_NAMESPACE;
    try {
      await core.deleteNamespacedSecret({ name, namespace: where });
      deleted.secrets.push(`${where}/${name}`);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  return deleted;
}
