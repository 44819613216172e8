/**
 * The storage-version migration's decisions, pure: whether the MiniCluster CRD still records objects
 * stored in a version other than its storage version (`status.storedVersions`), what that list
 * becomes once every object has been rewritten, what one rewrite's answer means, and when a failed
 * attempt is tried again. The runnable (migration.ts) does the reads and writes.
 *
 * Kubernetes' way to retire a stored version: rewrite every object once (an update with the object
 * as read: the API server re-encodes it in the storage version, and writes only when the stored bytes
 * differ), then set `status.storedVersions` to the storage version alone. Until then the old version
 * cannot be removed from the CRD.
 */

/** The parts of the CRD read here. */
export interface CrdVersions {
  readonly spec?: { readonly versions?: readonly { readonly name: string; readonly storage?: boolean }[] };
  readonly status?: { readonly storedVersions?: readonly string[] };
}

export type MigrationPlan =
  /** storedVersions holds the storage version alone: nothing to do. */
  | { readonly kind: 'current' }
  /** The CRD stores another version than this operator's (the CRD from before the upgrade): wait. */
  | { readonly kind: 'crd-not-upgraded'; readonly storageVersion: string | undefined }
  /**
   * Rewrite every MiniCluster (those of the watched namespaces when `storedVersionsAfter` is
   * undefined: then storedVersions stays, since objects elsewhere may still be stored as `stale`).
   */
  | {
      readonly kind: 'migrate';
      readonly stale: readonly string[];
      readonly storedVersionsAfter: readonly string[] | undefined;
    };

/** The version the CRD marks `storage: true` (undefined when none is). */
export function storageVersionOf(crd: CrdVersions): string | undefined {
  return crd.spec?.versions?.find((version) => version.storage === true)?.name;
}

/** Whether to migrate, given the CRD as read, the storage version this operator expects, and its watch. */
export function planStorageMigration(
  crd: CrdVersions,
  expectedStorageVersion: string,
  watchesAllNamespaces: boolean,
): MigrationPlan {
  const storageVersion = storageVersionOf(crd);
  if (storageVersion !== expectedStorageVersion) return { kind: 'crd-not-upgraded', storageVersion };
  const stored = crd.status?.storedVersions ?? [];
  const stale = stored.filter((version) => version !== storageVersion);
  if (stale.length === 0) return { kind: 'current' };
  return {
    kind: 'migrate',
    stale,
    storedVersionsAfter: watchesAllNamespaces ? [storageVersion] : undefined,
  };
}

/** What the answer to one no-op update means for the migration. */
export type RewriteOutcome =
  /** Written back (re-encoded in the storage version when it was stored otherwise). */
  | 'rewritten'
  /** Someone wrote it since it was listed: that write stored it in the storage version. */
  | 'conflict'
  /** Deleted since it was listed: nothing stored any more. */
  | 'gone'
  /** The RBAC refuses the update: no object can be rewritten; stop the attempt. */
  | 'forbidden'
  /** The API server refuses this object (its validation, an admission policy): the others go on. */
  | 'refused'
  /** Unreachable, throttled, a failed conversion or a timeout: stop the attempt, try again later. */
  | 'retry';

/**
 * The outcome of an update answered with `code` (undefined: no answer, 2xx: success) and the Status
 * message: a 403 is the RBAC's only when it says `cannot update resource` (an admission policy's
 * denial is a 403 too, about that object alone).
 */
export function rewriteOutcome(code: number | undefined, message = ''): RewriteOutcome {
  if (code === undefined) return 'retry';
  if (code >= 200 && code < 300) return 'rewritten';
  if (code === 409) return 'conflict';
  if (code === 404) return 'gone';
  if (code === 403) return /cannot update resource/.test(message) ? 'forbidden' : 'refused';
  if (code === 429 || code >= 500) return 'retry';
  return 'refused';
}

/** The wait before attempt `failures + 1` after `failures` failed ones in a row: doubling, capped. */
export function retryDelayMs(failures: number, baseMs: number, maxMs: number): number {
  const exponent = Math.max(0, Math.min(failures - 1, 30));
  return Math.min(maxMs, baseMs * 2 ** exponent);
}
