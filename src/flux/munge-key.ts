/**
 * The munge key: random bytes shared by every pod of an instance (and its burst clusters), mounted
 * from a Secret and copied to `/etc/munge/munge.key` with mode 0400, owned by munge.
 */

export const MUNGE_KEY_BYTES = 1024;

/** A source of random bytes, such as node:crypto's `randomBytes`; injected to keep this module pure. */
export type RandomBytes = (size: number) => Uint8Array;

export function mungeKey(randomBytes: RandomBytes): Uint8Array {
  const key = randomBytes(MUNGE_KEY_BYTES);
  if (key.length !== MUNGE_KEY_BYTES) {
    throw new Error(`random source returned ${key.length} bytes, expected ${MUNGE_KEY_BYTES}`);
  }
  // A copy, so a caller-owned buffer (e.g. Node's pooled Buffer) is never shared.
  return Uint8Array.from(key);
}
