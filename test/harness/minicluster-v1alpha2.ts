// MiniClusters written, read and scaled at v1alpha2, the stored version: no request of these goes
// through the conversion webhook. Tests of fields the shared test webhook's code may not know yet (it
// runs from whichever checkout started it) use these, so that no conversion drops them.
import { GROUP, PLURAL, type MiniClusterStatus } from '../../src/api/index.ts';
import type { ApiClients } from '../../src/kube/api-clients.ts';

export const V1ALPHA2 = 'v1alpha2';

/** The object as v1alpha2 with Flux from its image (what v1alpha1 meant), spec otherwise as given. */
export function asV1alpha2(object: Record<string, unknown>): Record<string, unknown> {
  const spec = object.spec as Record<string, unknown>;
  return {
    ...object,
    apiVersion: `${GROUP}/${V1ALPHA2}`,
    spec: { ...spec, flux: { ...(spec.flux as object | undefined), container: { disable: true } } },
  };
}

async function read(clients: ApiClients, namespace: string, name: string) {
  return (await clients.custom.getNamespacedCustomObject({
    group: GROUP,
    version: V1ALPHA2,
    namespace,
    plural: PLURAL,
    name,
  })) as { spec: { size: number }; status?: MiniClusterStatus };
}

export async function readStatusV1alpha2(
  clients: ApiClients,
  namespace: string,
  name: string,
): Promise<MiniClusterStatus> {
  return (await read(clients, namespace, name)).status ?? {};
}

export async function specSizeV1alpha2(
  clients: ApiClients,
  namespace: string,
  name: string,
): Promise<number> {
  return (await read(clients, namespace, name)).spec.size;
}

/** `kubectl scale` at v1alpha2 (the scale subresource). */
export async function scaleV1alpha2(
  clients: ApiClients,
  namespace: string,
  name: string,
  replicas: number,
): Promise<void> {
  await clients.custom.patchNamespacedCustomObjectScale({
    group: GROUP,
    version: V1ALPHA2,
    namespace,
    plural: PLURAL,
    name,
    body: { spec: { replicas } },
  });
}
