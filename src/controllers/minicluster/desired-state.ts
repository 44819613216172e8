import type { KubeObject } from '../../render/index.ts';

/**
 * Whether a live object already has everything the desired one says. The API server adds defaults
 * and other controllers add labels, so "has everything" is a subset test, not equality; it lets the
 * controller skip writes that would change nothing (no writes at steady state).
 */

function isEmptyValue(value: unknown): boolean {
  if (value === false || value === 0 || value === '' || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.keys(value as object).length === 0;
  return false;
}

/**
 * True when every field of `desired` is in `live` with the same value. Lists must have the same
 * length (an extra live element is a difference: we own these lists); a desired zero value
 * (false, 0, '', empty list or map) matches a missing live field, since the API omits those.
 */
export function containsDesired(desired: unknown, live: unknown): boolean {
  if (live === undefined) return desired === undefined || isEmptyValue(desired);
  if (Array.isArray(desired)) {
    return (
      Array.isArray(live) &&
      live.length === desired.length &&
      desired.every((item, index) => containsDesired(item, live[index]))
    );
  }
  if (desired !== null && typeof desired === 'object') {
    if (live === null || typeof live !== 'object' || Array.isArray(live)) return false;
    const liveRecord = live as Record<string, unknown>;
    return Object.entries(desired as Record<string, unknown>).every(([key, value]) =>
      containsDesired(value, liveRecord[key]),
    );
  }
  return desired === live;
}

interface OwnedObject {
  kind?: string;
  metadata?: { name?: string; ownerReferences?: { uid?: string; controller?: boolean }[] };
}

/**
 * The live children a MiniCluster controls (by its uid) that the rendered objects no longer
 * include: what a changed spec left behind (the services Deployment once `spec.services` is
 * removed). Objects of anyone else, the user's own among them, are never in the answer.
 */
export function staleChildren<T extends OwnedObject>(
  desired: readonly KubeObject[],
  live: readonly T[],
  ownerUid: string,
): T[] {
  if (ownerUid === '') return [];
  const wanted = new Set(desired.map((object) => `${object.kind}/${object.metadata.name}`));
  return live.filter(
    (object) =>
      !wanted.has(`${object.kind}/${object.metadata?.name ?? ''}`) &&
      (object.metadata?.ownerReferences ?? []).some(
        (reference) => reference.uid === ownerUid && reference.controller === true,
      ),
  );
}
