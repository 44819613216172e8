/**
 * What runs against a test's namespace (an in-process operator) and must be stopped even when the
 * namespace's deletion fails: node runs a test's `after` hooks in the order they were added and skips
 * the rest once one throws, so an operator whose `stop` came after a failed deletion kept its watches
 * and timers, and its test file never ended (a CI run timed out on it).
 */
const users = new Map<string, Set<() => Promise<void>>>();

/** Registers `stop` for `namespace`; returns a stop that runs once and unregisters itself. */
export function usesNamespace(namespace: string, stop: () => Promise<void>): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  const once = (): Promise<void> => {
    stopping ??= (async () => {
      users.get(namespace)?.delete(once);
      await stop();
    })();
    return stopping;
  };
  const set = users.get(namespace) ?? new Set();
  set.add(once);
  users.set(namespace, set);
  return once;
}

/** Stops whatever still uses `namespace`, each within `timeoutMs`; returns what did not stop in time. */
export async function stopNamespaceUsers(namespace: string, timeoutMs = 30_000): Promise<number> {
  const stops = [...(users.get(namespace) ?? [])];
  const results = await Promise.all(
    stops.map(async (stop) => {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), timeoutMs);
      });
      const stopped = stop().then(
        () => false,
        () => false,
      );
      const late = await Promise.race([stopped, timedOut]);
      clearTimeout(timer);
      return late;
    }),
  );
  return results.filter(Boolean).length;
}
