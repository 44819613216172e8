/**
 * Where a namespaced object lives when its manifest names no namespace, and how an object is named in
 * messages and keys: one spelling for the whole operator.
 */

/** The namespace Kubernetes (and kubectl) put an object in when it names none. */
export const DEFAULT_NAMESPACE = 'default';

interface Namespaced {
  readonly metadata?: { readonly namespace?: string; readonly name?: string };
}

/** The object's namespace, `default` when its metadata names none. */
export function namespaceOf(object: Namespaced): string {
  return object.metadata?.namespace ?? DEFAULT_NAMESPACE;
}

/** `namespace/name`, as kubectl and the events name an object. */
export function namespacedName(object: Namespaced): string {
  return `${namespaceOf(object)}/${object.metadata?.name ?? ''}`;
}
