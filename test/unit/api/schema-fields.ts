/**
 * The field paths a schema declares (`spec.containers[*].volumes[*].path`) and the ones an object
 * sets, so that tests can ask whether fixtures cover every field of a version.
 */
import { isObject } from '../../../src/api/shared/json.ts';

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  patternProperties?: Record<string, SchemaNode>;
  items?: SchemaNode;
}

/** Every field path of `schema` down to its leaves: scalars, lists of scalars, maps of scalars. */
export function schemaFieldPaths(schema: object, prefix = ''): string[] {
  const node = schema as SchemaNode;
  if (node.properties && Object.keys(node.properties).length > 0) {
    return Object.entries(node.properties).flatMap(([name, child]) =>
      schemaFieldPaths(child, prefix === '' ? name : `${prefix}.${name}`),
    );
  }
  const [mapValue] = Object.values(node.patternProperties ?? {});
  if (mapValue?.properties) return schemaFieldPaths(mapValue, `${prefix}[*]`);
  if (node.items?.properties) return schemaFieldPaths(node.items, `${prefix}[*]`);
  return [prefix];
}

/** Every field path `value` sets, in the same form (list indexes and map keys as `[*]`). */
export function setFieldPaths(value: unknown, schema: object, prefix = ''): Set<string> {
  const found = new Set<string>();
  const node = schema as SchemaNode;
  const visit = (child: unknown, childSchema: SchemaNode | undefined, path: string) => {
    if (childSchema === undefined) return;
    for (const path2 of setFieldPaths(child, childSchema, path)) found.add(path2);
  };
  if (node.properties && Object.keys(node.properties).length > 0) {
    if (!isObject(value)) return found;
    for (const [name, child] of Object.entries(value)) {
      visit(child, node.properties[name], prefix === '' ? name : `${prefix}.${name}`);
    }
    return found;
  }
  const [mapValue] = Object.values(node.patternProperties ?? {});
  if (mapValue?.properties && isObject(value)) {
    for (const child of Object.values(value)) visit(child, mapValue, `${prefix}[*]`);
    return found;
  }
  if (node.items?.properties && Array.isArray(value)) {
    for (const child of value) visit(child, node.items, `${prefix}[*]`);
    return found;
  }
  found.add(prefix);
  return found;
}
