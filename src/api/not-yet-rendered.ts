/**
 * The v1alpha2 fields the operator does not act on yet. The controller refuses a MiniCluster that
 * sets one (by name, with `notYetRenderedProblems`) rather than run it without; a field set to what
 * the renderer does anyway (its default) is no refusal.
 */
import type { Problem } from './shared/problems.ts';
import { isObject } from './shared/json.ts';

export interface NotYetRendered {
  /** Field path; `*` stands for any list item or map key. */
  readonly path: string;
  /** What it does in v1alpha2, for the refusal. */
  readonly what: string;
  /** Values the renderer already gives it (as it renders everything today). Unset: none. */
  readonly accepts?: (
    value: unknown,
    parent: Record<string, unknown>,
    spec: Record<string, unknown>,
  ) => boolean;
  /** The value an absent field stands for, when that is a value the renderer does not give it. */
  readonly absentMeans?: (parent: Record<string, unknown>, spec: Record<string, unknown>) => unknown;
}

/**
 * Empty: the renderer acts on every v1alpha2 field (src/render reads the v1alpha2 model). The table
 * and its check stay for a field added to the API before the renderer knows it.
 */
export const NOT_YET_RENDERED: readonly NotYetRendered[] = [];

/** The values at `segments` under `node`, with their parents and field paths. */
function found(
  node: unknown,
  segments: readonly string[],
  path: string,
): { path: string; parent: Record<string, unknown>; present: boolean; value: unknown }[] {
  const [head, ...rest] = segments;
  if (head === undefined || !isObject(node)) return [];
  const [field, wildcard] = head.endsWith('[*]') ? [head.slice(0, -3), true] : [head, false];
  const childPath = path === '' ? field : `${path}.${field}`;
  const present = Object.hasOwn(node, field);
  if (!wildcard) {
    if (rest.length === 0) return [{ path: childPath, parent: node, present, value: node[field] }];
    // An absent object reads as an empty one: its fields are absent, which may mean something.
    return found(present ? node[field] : {}, rest, childPath);
  }
  const collection = node[field];
  const items: [string, unknown][] = Array.isArray(collection)
    ? collection.map((item, index) => [String(index), item])
    : isObject(collection)
      ? Object.entries(collection)
      : [];
  return items.flatMap(([key, item]) => found(item, rest, `${childPath}[${key}]`));
}

/** The fields of a v1alpha2 MiniCluster (as given) that the operator does not act on yet. */
export function notYetRenderedProblems(miniCluster: unknown): Problem[] {
  if (!isObject(miniCluster) || !isObject(miniCluster.spec)) return [];
  const spec = miniCluster.spec;
  return NOT_YET_RENDERED.flatMap((entry) =>
    found(miniCluster, entry.path.split('.'), '').flatMap(({ path, parent, present, value }) => {
      const effective = present ? value : entry.absentMeans?.(parent, spec);
      if (effective === undefined || entry.accepts?.(effective, parent, spec) === true) return [];
      return [
        {
          path,
          message: `is not acted on by this operator yet (${entry.what}); remove it, or wait for the renderer's v1alpha2 port`,
        },
      ];
    }),
  );
}
