/**
 * A cache's objects grouped by the object they belong to (client-go's indexer with one index): a
 * controller reads "the pods of this MiniCluster" without scanning every pod.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { ObjectKey } from './object-key.ts';

export class ObjectIndex<T extends KubernetesObject> {
  private readonly groups = new Map<ObjectKey, Map<string, T>>();
  private readonly groupOf: (object: T) => ObjectKey | undefined;

  /** `groupOf`: the key of the object `object` belongs to, undefined for none (then it is not kept). */
  constructor(groupOf: (object: T) => ObjectKey | undefined) {
    this.groupOf = groupOf;
  }

  /** Keeps (or replaces) the object under its group. */
  set(object: T): void {
    const group = this.groupOf(object);
    const name = object.metadata?.name;
    if (!group || !name) return;
    let members = this.groups.get(group);
    if (!members) this.groups.set(group, (members = new Map()));
    members.set(name, object);
  }

  delete(object: T): void {
    const group = this.groupOf(object);
    const name = object.metadata?.name;
    if (!group || !name) return;
    const members = this.groups.get(group);
    members?.delete(name);
    if (members?.size === 0) this.groups.delete(group);
  }

  /** The objects of one group, in no particular order. */
  list(group: ObjectKey): T[] {
    return [...(this.groups.get(group)?.values() ?? [])];
  }
}
