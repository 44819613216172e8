import { GROUP, PLURAL, VERSION_V1ALPHA1, type MiniClusterStatus } from '../../api/index.ts';
import { isNotFound } from '../../kube/api-errors.ts';
import type { CustomObjectReader } from '../../kube/custom-objects.ts';

/** A MiniCluster's status as the API server has it now; undefined when the MiniCluster does not exist. */
export async function readMiniClusterStatus(
  clients: { readonly custom: CustomObjectReader },
  namespace: string,
  name: string,
): Promise<MiniClusterStatus | undefined> {
  try {
    const object = (await clients.custom.getNamespacedCustomObject({
      group: GROUP,
      version: VERSION_V1ALPHA1,
      namespace,
      plural: PLURAL,
      name,
    })) as { status?: MiniClusterStatus };
    return object.status ?? {};
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}
