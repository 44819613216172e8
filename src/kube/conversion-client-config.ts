/**
 * Applying a CRD whose conversion webhook is reached another way than the live one's: a URL (an
 * operator run out of cluster wrote it) where the applied CRD names a Service, or the reverse. A
 * server-side apply cannot remove the field another manager owns, and a clientConfig with both is
 * invalid, so the live clientConfig is first replaced whole by a merge patch (the caBundle kept).
 */
import { PatchStrategy, type KubernetesObject } from '@kubernetes/client-node';
import { isNotFound } from './api-errors.ts';

interface ClientConfig {
  url?: string;
  service?: object;
  caBundle?: string;
}

interface CrdLike extends KubernetesObject {
  spec?: { conversion?: { strategy?: string; webhook?: { clientConfig?: ClientConfig } } };
}

export interface CrdObjectClient {
  read(header: KubernetesObject): Promise<KubernetesObject>;
  patch(
    body: KubernetesObject,
    pretty?: string,
    dryRun?: string,
    fieldManager?: string,
    force?: boolean,
    patchStrategy?: PatchStrategy,
  ): Promise<KubernetesObject>;
}

function way(config: ClientConfig | undefined): 'url' | 'service' | undefined {
  if (config?.url) return 'url';
  if (config?.service) return 'service';
  return undefined;
}

/** True when it had to switch (the live CRD then sends conversions where `crd` says). */
export async function switchConversionClientConfig(
  client: CrdObjectClient,
  crd: CrdLike,
  fieldManager: string,
): Promise<boolean> {
  const wanted = crd.spec?.conversion?.webhook?.clientConfig;
  if (!wanted || !crd.metadata?.name) return false;
  let live: CrdLike;
  try {
    live = (await client.read({
      apiVersion: crd.apiVersion ?? 'apiextensions.k8s.io/v1',
      kind: crd.kind ?? 'CustomResourceDefinition',
      metadata: { name: crd.metadata.name },
    })) as CrdLike;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
  const current = live.spec?.conversion?.webhook?.clientConfig;
  const from = way(current);
  const to = way(wanted);
  if (from === undefined || from === to) return false;
  const { caBundle: _ignored, ...where } = wanted;
  const clientConfig = { ...where, [from]: null };
  await client.patch(
    {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: crd.metadata.name },
      spec: { conversion: { webhook: { clientConfig } } },
    } as KubernetesObject,
    undefined,
    undefined,
    fieldManager,
    undefined,
    PatchStrategy.MergePatch,
  );
  return true;
}
