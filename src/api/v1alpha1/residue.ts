/**
 * The residue of a conversion: what one version of a MiniCluster holds that the other cannot say,
 * kept in an annotation of the converted object (as Kubernetes API conventions do for round trips)
 * and given back when it is converted back.
 *
 * It is computed, not listed: the differences between the original and what converting the result
 * back would give, as steps "at this path, the converted-back value is `had`; put `set` there" (a
 * step without `set` removes the field, one without `had` expects none). Applied to the unchanged
 * converted-back object, every step holds, so a round trip gives the original exactly. When a client
 * changed the object in the other version meanwhile, the steps are applied by group (one top-level
 * field, or one container): a group whose expectations no longer hold is left out whole, so what the
 * client changed wins, and what it could not see (the other version's own fields) is kept.
 */
import { applySchemaDefaults } from '../shared/defaulting.ts';
import { isObject, jsonEqual } from '../shared/json.ts';

export type JsonPath = (string | number)[];

export interface ResidueStep {
  path: JsonPath;
  /** The converted-back value at `path`; absent: no field there. */
  had?: unknown;
  /** The original value at `path`; absent: remove the field. */
  set?: unknown;
}

/** Steps that turn `back` into `original`, at the deepest paths where they differ. */
export function residueSteps(original: unknown, back: unknown): ResidueStep[] {
  const steps: ResidueStep[] = [];
  collect(original, back, [], steps);
  return withGuards(steps, back);
}

function step(path: JsonPath, original: { value?: unknown }, back: { value?: unknown }): ResidueStep {
  return {
    path,
    ...('value' in back ? { had: back.value } : {}),
    ...('value' in original ? { set: original.value } : {}),
  };
}

function collect(original: unknown, back: unknown, path: JsonPath, steps: ResidueStep[]): void {
  if (jsonEqual(original, back)) return;
  if (isObject(original) && isObject(back)) {
    const keys = [
      ...Object.keys(original),
      ...Object.keys(back).filter((key) => !Object.hasOwn(original, key)),
    ];
    for (const key of keys) {
      const inOriginal = Object.hasOwn(original, key);
      const inBack = Object.hasOwn(back, key);
      if (inOriginal && inBack) collect(original[key], back[key], [...path, key], steps);
      else
        steps.push(
          step(
            [...path, key],
            inOriginal ? { value: original[key] } : {},
            inBack ? { value: back[key] } : {},
          ),
        );
    }
    return;
  }
  if (Array.isArray(original) && Array.isArray(back) && original.length === back.length) {
    original.forEach((item, index) => collect(item, back[index], [...path, index], steps));
    return;
  }
  steps.push(step(path, { value: original }, { value: back }));
}

/** The group a step belongs to: its top-level field, or the list item under it (a container). */
export function groupOf(path: JsonPath): string {
  const anchor = typeof path[2] === 'number' ? path.slice(0, 3) : path.slice(0, 2);
  return JSON.stringify(anchor);
}

/** The fields that tell one list item (a container) from another when the list changed. */
const IDENTITY_FIELDS = ['name', 'image'];

/**
 * For each group anchored at a list item, steps that check the item is still the same one (its
 * name and image as they were), so its residue never lands on another item of a changed list.
 */
function withGuards(steps: ResidueStep[], back: unknown): ResidueStep[] {
  const guarded = new Set<string>();
  const guards: ResidueStep[] = [];
  for (const { path } of steps) {
    if (typeof path[2] !== 'number') continue;
    const anchor = path.slice(0, 3);
    const key = JSON.stringify(anchor);
    if (guarded.has(key)) continue;
    guarded.add(key);
    const item = valueAt(back, anchor);
    for (const field of IDENTITY_FIELDS) {
      const fieldPath = [...anchor, field];
      if (steps.some((existing) => JSON.stringify(existing.path) === JSON.stringify(fieldPath))) continue;
      const current =
        isObject(item.value) && Object.hasOwn(item.value, field) ? { value: item.value[field] } : {};
      guards.push(step(fieldPath, current, current));
    }
  }
  return [...steps, ...guards];
}

function valueAt(root: unknown, path: JsonPath): { value?: unknown } {
  let current: unknown = root;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === 'number' && segment < current.length)
      current = current[segment];
    else if (isObject(current) && typeof segment === 'string' && Object.hasOwn(current, segment))
      current = current[segment];
    else return {};
  }
  return { value: current };
}

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  patternProperties?: Record<string, SchemaNode>;
  items?: SchemaNode;
}

/** The schema of the field at `path` (undefined where the schema says nothing). */
function schemaAt(schema: SchemaNode | undefined, path: JsonPath): SchemaNode | undefined {
  let node = schema;
  for (const segment of path) {
    if (node === undefined) return undefined;
    if (typeof segment === 'number') node = node.items;
    else node = node.properties?.[segment] ?? Object.values(node.patternProperties ?? {})[0];
  }
  return node;
}

/**
 * The step's expectation holds: the value at its path is `had` (or none), up to the schema's
 * defaults, which the API server may have filled in between two conversions.
 */
function holds(root: unknown, residue: ResidueStep, schema: object | undefined): boolean {
  const found = valueAt(root, residue.path);
  // A step below the top of its group was made where both objects had the parent (residueSteps only
  // descends into what both hold): with the parent gone, the client removed it, and it stays removed.
  if (!('had' in residue)) return !('value' in found) && 'value' in valueAt(root, residue.path.slice(0, -1));
  if (!('value' in found)) return false;
  if (jsonEqual(found.value, residue.had)) return true;
  const node = schemaAt(schema as SchemaNode | undefined, residue.path);
  return (
    node !== undefined &&
    jsonEqual(applySchemaDefaults(node, found.value), applySchemaDefaults(node, residue.had))
  );
}

/** Sets (or, with no value, removes) the field at `path`, making the objects on the way. */
function put(root: Record<string, unknown>, path: JsonPath, value: { value?: unknown }): void {
  let current: unknown = root;
  for (const [index, segment] of path.entries()) {
    const last = index === path.length - 1;
    const container = current as Record<string | number, unknown>;
    if (last) {
      if ('value' in value) container[segment] = structuredClone(value.value);
      else if (Array.isArray(container)) return;
      else Reflect.deleteProperty(container, segment);
      return;
    }
    if (!isObject(container[segment]) && !Array.isArray(container[segment])) {
      if (!('value' in value)) return;
      container[segment] = {};
    }
    current = container[segment];
  }
}

/**
 * `target` with the residue applied, group by group (see above); `schema` is the target version's,
 * whose defaults do not count as changes. `target` is not modified.
 */
export function applyResidue<T extends Record<string, unknown>>(
  target: T,
  steps: readonly ResidueStep[],
  schema?: object,
): T {
  const result = structuredClone(target);
  const groups = new Map<string, ResidueStep[]>();
  for (const residue of steps) {
    const key = groupOf(residue.path);
    groups.set(key, [...(groups.get(key) ?? []), residue]);
  }
  for (const group of groups.values()) {
    if (!group.every((residue) => holds(target, residue, schema))) continue;
    for (const residue of group) put(result, residue.path, 'set' in residue ? { value: residue.set } : {});
  }
  return result;
}

/** Whether `value` is a list of residue steps (an annotation a client may have changed). */
export function isResidue(value: unknown): value is ResidueStep[] {
  return (
    Array.isArray(value) &&
    value.every(
      (item) =>
        isObject(item) &&
        Array.isArray(item.path) &&
        item.path.length > 0 &&
        item.path.every((segment) => typeof segment === 'string' || typeof segment === 'number') &&
        Object.keys(item).every((key) => key === 'path' || key === 'had' || key === 'set'),
    )
  );
}
