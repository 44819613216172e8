/**
 * Reading a Secret the operator may or may not have made, with one rule for what "absent" means: the
 * MiniCluster's own key Secrets are in the cache (the operator watches what it labels), a user's
 * curveCertSecret or mungeSecret, or a BurstTarget's credentials, are not, so a cache miss (or no
 * cache) asks the API server.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { isNotFound } from './api-errors.ts';

export interface SecretSource {
  /** The cache of the Secrets the operator made (an informer), when there is one. */
  readonly cache?: { get(name: string, namespace: string): V1Secret | undefined };
  readonly core: {
    readNamespacedSecret(param: { name: string; namespace: string }): Promise<V1Secret>;
  };
}

/**
 * The Secret, from the cache first, else from the API. Absent (undefined) means the API server
 * answered 404 and nothing else: any other failure (unreachable, throttled, forbidden) is thrown,
 * so that a Secret the operator cannot read now is never taken for one that does not exist.
 */
export async function readSecret(
  source: SecretSource,
  name: string,
  namespace: string,
): Promise<V1Secret | undefined> {
  const cached = source.cache?.get(name, namespace);
  if (cached) return cached;
  try {
    return await source.core.readNamespacedSecret({ name, namespace });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}
