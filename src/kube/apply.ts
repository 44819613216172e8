import type { KubernetesObject } from '@kubernetes/client-node';
import type { ObjectApplier } from './api-clients.ts';

/** What applies an object as its JSON (the clients' `objects`). */
export type Applier = Pick<ObjectApplier, 'apply'>;

/**
 * Server-side apply with one field manager, taking ownership of the fields it sets (force). With
 * `dryRun`, the API server validates and admits the object but stores nothing. The object is sent
 * as its JSON, every field kept (the client's models would drop those they do not know).
 */
export async function serverSideApply<T extends KubernetesObject>(
  api: Applier,
  object: T,
  fieldManager: string,
  options: { dryRun?: boolean } = {},
): Promise<T> {
  return api.apply(object, fieldManager, options.dryRun ?? false);
}
