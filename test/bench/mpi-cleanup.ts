// Clean-up that runs whatever happened, without hiding why the work failed; waits that Ctrl-C ends.

/**
 * Runs `work`, then `cleanUp` whether or not it succeeded. When both fail, the work's error is the one
 * thrown (the clean-up's is added to its message): it says why the bench stopped.
 */
export async function withCleanUp<T>(work: () => Promise<T>, cleanUp: () => Promise<void>): Promise<T> {
  let result: T;
  try {
    result = await work();
  } catch (error) {
    await cleanUp().catch((cleanUpError: unknown) => {
      if (error instanceof Error) error.message += `\n(then cleaning up failed too: ${String(cleanUpError)})`;
    });
    throw error;
  }
  await cleanUp();
  return result;
}

/** `promise`, or the signal's reason once it is aborted (Ctrl-C: the bench stops waiting at once). */
export async function orAbort<T>(signal: AbortSignal, promise: Promise<T>): Promise<T> {
  signal.throwIfAborted();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
