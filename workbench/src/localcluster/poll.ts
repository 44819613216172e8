// Waiting for the local cluster's parts to come up or go.
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Calls `fn` every 250 ms until it returns something other than undefined (errors count as "not yet")
 * and returns that; past `deadline` (epoch ms) throws, quoting the last error.
 */
export async function until<T>(
  what: string,
  deadline: number,
  fn: () => Promise<T | undefined> | T | undefined,
): Promise<T> {
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await fn();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    await sleep(250);
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

/** `promise`, or a rejection naming `what` once `ms` have passed (the call itself is left to finish). */
export async function within<T>(what: string, ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
