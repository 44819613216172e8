/**
 * JSON merge patches (RFC 7386) computed from what the server holds to what it should hold. A merge
 * patch leaves the fields it does not name as they were, so one made of the next object alone would
 * keep what that object dropped: here a dropped field is named with null, which removes it.
 */

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The merge patch from `previous` to `next`: every field of `next`, and null for each field of
 * `previous` that `next` no longer has, in nested objects too (a rank set status.autoscale no longer
 * lists). Lists are replaced whole, as a merge patch always does.
 */
export function mergePatch(previous: object, next: object): Record<string, unknown> {
  const before = previous as Record<string, unknown>;
  const patch: Record<string, unknown> = { ...next };
  for (const [key, value] of Object.entries(patch)) {
    const old = before[key];
    if (isPlainObject(value) && isPlainObject(old)) patch[key] = mergePatch(old, value);
  }
  for (const key of Object.keys(before)) {
    if (!(key in next)) patch[key] = null;
  }
  return patch;
}
