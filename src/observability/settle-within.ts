/**
 * A promise's value if it settles in time, else a fallback: a rejection or a slow answer counts as
 * the fallback, and nothing waits for the rest. The health checks (a check that hangs fails, not the
 * probe) and install's reads while it waits for its operator (a read that hangs is retried on the
 * next poll) both need exactly that.
 */
export function settleWithin<T>(promise: Promise<T>, timeoutMs: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), timeoutMs);
  });
  return Promise.race([promise.catch(() => fallback), timeout]).finally(() => clearTimeout(timer));
}
