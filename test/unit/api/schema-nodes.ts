/** Every node of a CRD version's structural schema, by path (`.spec.containers[*].name`), for the CRD tests. */
import assert from 'node:assert/strict';
import type { JsonSchemaProps } from '../../../src/api/shared/crd.ts';

export interface VisitedNode {
  path: string;
  node: JsonSchemaProps;
  /** A property of an object (as opposed to a list item, map value or the root). */
  isProperty: boolean;
}

function walk(node: JsonSchemaProps, path: string, isProperty: boolean, into: VisitedNode[]): VisitedNode[] {
  into.push({ path, node, isProperty });
  for (const [name, child] of Object.entries(node.properties ?? {}))
    walk(child, `${path}.${name}`, true, into);
  if (node.additionalProperties) walk(node.additionalProperties, `${path}[*]`, false, into);
  if (node.items) walk(node.items, `${path}[*]`, false, into);
  return into;
}

/** The nodes under `root` (itself first), and the node at a path such as `.spec.flux` (fails the test when absent). */
export function schemaNodes(root: JsonSchemaProps): {
  nodes: VisitedNode[];
  nodeAt: (path: string) => JsonSchemaProps;
} {
  const nodes = walk(root, '', false, []);
  return {
    nodes,
    nodeAt(path) {
      const found = nodes.find((visited) => visited.path === path);
      assert.ok(found, `no schema node at ${path}`);
      return found.node;
    },
  };
}
