/**
 * Applying a CRD whose conversion webhook an operator points at itself: the live clientConfig (a
 * Service or a URL, and the caBundle of the CA that operator made) is kept, so that an install run
 * again, or an upgrade of the CRD's schema, never cuts the API server off a webhook that answers. A
 * CRD applied for the first time (or over one that converted nothing) gets the clientConfig given.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { apiErrorCode, isNotFound } from './api-errors.ts';

interface ClientConfig {
  url?: string;
  service?: object;
  caBundle?: string;
}

interface Conversion {
  strategy?: string;
  webhook?: { conversionReviewVersions?: string[]; clientConfig?: ClientConfig };
}

interface CrdLike extends KubernetesObject {
  spec?: { conversion?: Conversion } & Record<string, unknown>;
}

export interface CrdReader {
  read(header: KubernetesObject): Promise<KubernetesObject>;
}

/** The live CRD's webhook clientConfig, undefined when it has none (or there is no CRD). */
async function liveClientConfig(client: CrdReader, crd: CrdLike): Promise<ClientConfig | undefined> {
  try {
    const live = (await client.read({
      apiVersion: crd.apiVersion ?? 'apiextensions.k8s.io/v1',
      kind: crd.kind ?? 'CustomResourceDefinition',
      metadata: { name: crd.metadata?.name ?? '' },
    })) as CrdLike;
    const conversion = live.spec?.conversion;
    return conversion?.strategy === 'Webhook' ? conversion.webhook?.clientConfig : undefined;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** `crd` with the live clientConfig in place of its own, when the live CRD has one. */
export async function withLiveClientConfig<T extends CrdLike>(client: CrdReader, crd: T): Promise<T> {
  const wanted = crd.spec?.conversion;
  if (!wanted?.webhook?.clientConfig) return crd;
  const live = await liveClientConfig(client, crd);
  if (!live) return crd;
  // The client's models carry unset fields as undefined: keep only what is set.
  const clientConfig = JSON.parse(JSON.stringify(live)) as ClientConfig;
  return {
    ...crd,
    spec: { ...crd.spec, conversion: { ...wanted, webhook: { ...wanted.webhook, clientConfig } } },
  };
}

/**
 * Applies `crd` (with `apply`) keeping the live clientConfig; again, up to three times, when it is
 * refused as invalid because an operator pointed the CRD elsewhere in between.
 */
export async function applyCrdKeepingClientConfig<T extends CrdLike, R>(
  client: CrdReader,
  crd: T,
  apply: (crd: T) => Promise<R>,
): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await apply(await withLiveClientConfig(client, crd));
    } catch (error) {
      if (attempt >= 3 || apiErrorCode(error) !== 422) throw error;
    }
  }
}
