import { PatchStrategy, type KubernetesObject, type KubernetesObjectApi } from '@kubernetes/client-node';
// The client's own serializer (not re-exported by its index): the one KubernetesObjectApi uses.
import { ObjectSerializer } from '@kubernetes/client-node/dist/serializer.js';

/** API groups whose kinds the client knows as model classes (it serializes those through them). */
function isBuiltInGroup(group: string): boolean {
  return group === '' || group.endsWith('.k8s.io') || !group.includes('.');
}

/** The client's model type name for a built-in kind (`V1Job`), or undefined for custom resources. */
export function modelTypeOf(apiVersion: string, kind: string): string | undefined {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  if (!isBuiltInGroup(group ?? '') || !version) return undefined;
  return `${version.charAt(0).toUpperCase()}${version.slice(1)}${kind}`;
}

/**
 * The object in the shape the client serializes from. The client writes a built-in kind through its
 * model classes, which name fields in TypeScript style (`x_kubernetes_validations`): a plain JSON
 * object would silently lose every field whose JSON name differs. Deserializing first maps them.
 */
export function toClientModel<T extends KubernetesObject>(object: T): T {
  const type = modelTypeOf(object.apiVersion ?? '', object.kind ?? '');
  return type === undefined ? object : (ObjectSerializer.deserialize(object, type) as T);
}

/** What the client would send for the object: the JSON of its model form. */
export function asSent(object: KubernetesObject): unknown {
  const type = modelTypeOf(object.apiVersion ?? '', object.kind ?? '');
  return type === undefined ? object : ObjectSerializer.serialize(toClientModel(object), type);
}

/**
 * Server-side apply with one field manager, taking ownership of the fields it sets (force). With
 * `dryRun`, the API server validates and admits the object but stores nothing.
 */
export async function serverSideApply<T extends KubernetesObject>(
  api: KubernetesObjectApi,
  object: T,
  fieldManager: string,
  options: { dryRun?: boolean } = {},
): Promise<T> {
  return api.patch(
    toClientModel(object),
    undefined,
    options.dryRun ? 'All' : undefined,
    fieldManager,
    true,
    PatchStrategy.ServerSideApply,
  );
}
