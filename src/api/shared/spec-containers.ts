/**
 * The containers and services of a MiniCluster spec read loosely (either version, defaulted or not,
 * even not yet validated), each with its path in the spec: what the checks of what reaches the node
 * walk (host-storage.ts, node-access.ts).
 */
export type LooseObject = Readonly<Record<string, unknown>>;

export function looseObject(value: unknown): LooseObject | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as LooseObject)
    : undefined;
}

/** `spec.containers[i]` and `spec.services[i]` that are objects, in order, with their paths. */
export function specContainers(spec: unknown): { path: string; container: LooseObject }[] {
  const { containers, services } = looseObject(spec) ?? {};
  const found: { path: string; container: LooseObject }[] = [];
  for (const [field, list] of [
    ['containers', containers],
    ['services', services],
  ] as const) {
    if (!Array.isArray(list)) continue;
    list.forEach((item: unknown, index) => {
      const container = looseObject(item);
      if (container !== undefined) found.push({ path: `spec.${field}[${index}]`, container });
    });
  }
  return found;
}
