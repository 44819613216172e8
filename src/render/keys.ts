import { randomBytes } from 'node:crypto';
import { curveCertificateText, generateCurveKeyPair, mungeKey } from '../flux/index.ts';

/** The secret material of one MiniCluster. Rendered only into Secrets, never into a ConfigMap. */
export interface MiniClusterKeys {
  /** zcert text of the CURVE certificate shared by every broker. */
  readonly curveCertificate: string;
  /** Raw munge key bytes. */
  readonly mungeKey: Uint8Array;
  /** Random bytes the RESTful API's generated token, signing key and passwords derive from. */
  readonly restfulSeed?: Uint8Array;
}

export const RESTFUL_SEED_BYTES = 32;

export const KEY_GENERATOR = 'flux-operator';

/**
 * New keys for a MiniCluster: the one impure step of rendering (randomness and the clock), kept
 * apart so render itself stays a pure function of the spec and the keys.
 */
export function generateMiniClusterKeys(miniClusterName: string, now = new Date()): MiniClusterKeys {
  const { publicKey, secretKey } = generateCurveKeyPair();
  return {
    curveCertificate: curveCertificateText({
      name: miniClusterName,
      leadHostname: `${miniClusterName}-0`,
      publicKey,
      secretKey,
      generatedAt: now,
      generator: KEY_GENERATOR,
    }),
    mungeKey: mungeKey((size) => randomBytes(size)),
    restfulSeed: new Uint8Array(randomBytes(RESTFUL_SEED_BYTES)),
  };
}
