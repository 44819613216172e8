/**
 * Specs that differ from each other in one field only (a schema field path such as
 * `containers[*].volumes[*].path`), so that a test can ask whether that field alone changes what the
 * renderer makes. The other values a field is given come from its schema node and its value.
 */
import { isObject } from '../../../src/api/shared/json.ts';

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  patternProperties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  const?: unknown;
}

/** Where a value is in a spec: object keys and list indexes. */
type Location = readonly (string | number)[];

/** A value standing for "the field is not set". */
export const ABSENT = Symbol('absent');

/** The schema node of a field path of `schema`. */
export function schemaNodeAt(schema: object, path: string): SchemaNode {
  let node = schema as SchemaNode;
  for (const segment of path.split('.')) {
    const name = segment.replace(/\[\*\]$/, '');
    const child = node.properties?.[name];
    if (child === undefined) throw new Error(`${path}: no field ${name} in the schema`);
    node = segment.endsWith('[*]')
      ? (child.items ?? Object.values(child.patternProperties ?? {})[0] ?? child)
      : child;
  }
  return node;
}

/** Every location where `spec` sets the field `path`. */
export function locationsOf(spec: unknown, path: string): Location[] {
  const found: Location[] = [];
  const visit = (value: unknown, segments: readonly string[], at: Location): void => {
    const [head, ...rest] = segments;
    if (head === undefined) {
      found.push(at);
      return;
    }
    if (!isObject(value)) return;
    const name = head.replace(/\[\*\]$/, '');
    if (!Object.hasOwn(value, name)) return;
    const child = value[name];
    if (!head.endsWith('[*]')) visit(child, rest, [...at, name]);
    else if (Array.isArray(child)) child.forEach((item, index) => visit(item, rest, [...at, name, index]));
    else if (isObject(child)) {
      for (const [key, item] of Object.entries(child)) visit(item, rest, [...at, name, key]);
    }
  };
  visit(spec, path.split('.'), []);
  return found;
}

function valueAt(spec: unknown, at: Location): unknown {
  return at.reduce<unknown>((value, key) => {
    if (Array.isArray(value)) return typeof key === 'number' ? value[key] : undefined;
    return isObject(value) ? value[String(key)] : undefined;
  }, spec);
}

/** `spec` with `value` at `at` (ABSENT: without the field), copied along the way. */
function withValueAt(spec: unknown, at: Location, value: unknown): unknown {
  const [head, ...rest] = at;
  if (head === undefined) return value;
  if (Array.isArray(spec))
    return spec.map((item, index) => (index === head ? withValueAt(item, rest, value) : item));
  const object = isObject(spec) ? spec : {};
  const key = String(head);
  const next = withValueAt(object[key], rest, value);
  // Set again, a key keeps its place: the spec's order is the renderer's input order.
  const entries = Object.entries(object).filter(([each]) => next !== ABSENT || each !== key);
  return Object.fromEntries(next === ABSENT ? entries : [...entries, [key, next]]);
}

/** Other values of a scalar: the enum's others, the other boolean, neighbours, changed text. */
function otherScalars(value: unknown, node: SchemaNode): unknown[] {
  const others: unknown[] = [];
  if (node.anyOf?.every((option) => 'const' in option)) {
    others.push(...node.anyOf.map((option) => option.const).filter((option) => option !== value));
  }
  if (typeof value === 'boolean') others.push(!value);
  if (typeof value === 'number') others.push(value + 1, value - 1);
  if (typeof value === 'string') {
    // A quantity or duration stays one with its number changed ('768Mi' -> '769Mi').
    const digits = /\d+/.exec(value)?.[0];
    if (digits !== undefined) others.push(value.replace(digits, String(Number(digits) + 1)));
    others.push(`${value}x`, `x${value}`);
  }
  return others;
}

/** Other values a field may take, from its value and its schema node. */
function otherValues(value: unknown, node: SchemaNode): unknown[] {
  if (Array.isArray(value)) {
    const item = node.items ?? {};
    return [
      [],
      ...value.flatMap((element, index) =>
        otherValues(element, item).map((other) => value.map((each, at) => (at === index ? other : each))),
      ),
    ];
  }
  if (isObject(value)) {
    const entry = Object.values(node.patternProperties ?? {})[0] ?? {};
    return [
      {},
      ...Object.entries(value).flatMap(([key, element]) => [
        ...otherValues(element, entry).map((other) => ({ ...value, [key]: other })),
        { ...value, [`${key}x`]: element },
      ]),
    ];
  }
  return otherScalars(value, node);
}

/**
 * Groups of specs that differ from each other only in the field `path`: for each location where
 * `spec` sets it, and in `spec` as it is or without one of the field's siblings (a value may only
 * be valid without them), the field as it is, absent, given its other values, or exchanged with the
 * same field of another list item or map entry.
 */
export function sameButFor(spec: unknown, path: string, schema: object): unknown[][] {
  const node = schemaNodeAt(schema, path);
  const locations = locationsOf(spec, path);
  return locations.flatMap((at) => {
    const parent = valueAt(spec, at.slice(0, -1)) as Record<string, unknown>;
    const siblings = Object.keys(parent).filter((key) => key !== at.at(-1));
    const contexts = [spec, ...siblings.map((key) => withValueAt(spec, [...at.slice(0, -1), key], ABSENT))];
    return contexts.map((context) => {
      const value = valueAt(context, at);
      const exchanged = locations
        .filter((other) => other !== at)
        .map((other) => withValueAt(withValueAt(context, at, valueAt(context, other)), other, value));
      return [
        context,
        ...[ABSENT, ...otherValues(value, node)].map((other) => withValueAt(context, at, other)),
        ...exchanged,
      ];
    });
  });
}
