/**
 * How loudly to report a failed API call: a server that is away, overloaded or still initialising (a
 * CRD just established answers 429 for a moment) heals by itself and is no error of the object at
 * hand; a refusal is.
 */
import type { Logger } from 'pino';
import { describeApiError, isTransient } from '../kube/api-errors.ts';

/** Retries of a watch shorter than this are the server settling, not yet worth a warning. */
const SETTLING_RETRY_MS = 4_000;

/**
 * The informers' onError: a watch that fails while the server is known to be away, or for the first
 * few short retries of a transient failure, is logged at debug; one that keeps failing, at warn.
 */
export function watchFailureLogger(
  log: Logger,
  serverAway: () => boolean,
): (kind: string, error: unknown, retryInMs: number) => void {
  return (kind, error, retryInMs) => {
    const quiet = serverAway() || (isTransient(error) && retryInMs < SETTLING_RETRY_MS);
    const fields = { kind, retryInMs, error: describeApiError(error) };
    if (quiet) log.debug(fields, 'watch failed; restarting it');
    else log.warn(fields, 'watch failed; restarting it');
  };
}
