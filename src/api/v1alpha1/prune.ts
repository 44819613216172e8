/**
 * Pruning as the API server prunes a custom resource: fields its structural schema does not declare
 * are dropped, everywhere but under `x-kubernetes-preserve-unknown-fields`. The conversion prunes
 * what it made to the target version's schema, so a field that version lacks never leaks into it
 * (the residue keeps it, residue.ts). Values of the wrong type are left as they are.
 */
import { isObject } from '../shared/json.ts';

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  patternProperties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

export function pruneToSchema(schema: object, value: unknown): unknown {
  const node = schema as SchemaNode;
  if (node['x-kubernetes-preserve-unknown-fields'] === true) return value;
  if (Array.isArray(value)) {
    const itemSchema = node.items;
    return itemSchema ? value.map((item) => pruneToSchema(itemSchema, item)) : value;
  }
  if (!isObject(value)) return value;
  if (node.properties) {
    const properties = node.properties;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => Object.hasOwn(properties, key))
        .map(([key, field]) => [key, pruneToSchema(properties[key] as SchemaNode, field)]),
    );
  }
  const [valueSchema] = Object.values(node.patternProperties ?? {});
  if (valueSchema) {
    return Object.fromEntries(
      Object.entries(value).map(([key, field]) => [key, pruneToSchema(valueSchema, field)]),
    );
  }
  return value;
}
