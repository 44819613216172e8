import type { V1Secret } from '@kubernetes/client-node';
import { SECRET_DATA_KEYS } from '../../api/index.ts';
import { generateMiniClusterKeys, type MiniClusterKeys, type MiniClusterNames } from '../../render/index.ts';

export function curveCertificateFrom(secret: V1Secret | undefined): string | undefined {
  const encoded = secret?.data?.[SECRET_DATA_KEYS.curveCert];
  return encoded === undefined ? undefined : Buffer.from(encoded, 'base64').toString('utf8');
}

export function mungeKeyFrom(secret: V1Secret | undefined): Uint8Array | undefined {
  const encoded = secret?.data?.[SECRET_DATA_KEYS.mungeKey];
  return encoded === undefined ? undefined : new Uint8Array(Buffer.from(encoded, 'base64'));
}

export function restfulSeedFrom(secret: V1Secret | undefined): Uint8Array | undefined {
  const encoded = secret?.data?.[SECRET_DATA_KEYS.restful.seed];
  return encoded === undefined ? undefined : new Uint8Array(Buffer.from(encoded, 'base64'));
}

/**
 * The MiniCluster's keys: those already stored in its generated Secrets, new ones for any that are
 * missing. Keys are made once per MiniCluster: once a Secret exists it is the source forever.
 * Secrets the user provides are mounted as they are, so their content is not needed here.
 */
export function resolveKeys(
  miniClusterName: string,
  names: MiniClusterNames,
  existing: {
    curveCert: V1Secret | undefined;
    mungeKey: V1Secret | undefined;
    restful?: V1Secret | undefined;
  },
  now: Date,
  restful = false,
): { keys: MiniClusterKeys; generated: boolean } {
  const curveCertificate = names.generatesCurveCertSecret ? curveCertificateFrom(existing.curveCert) : '';
  const mungeKey = names.generatesMungeKeySecret ? mungeKeyFrom(existing.mungeKey) : new Uint8Array();
  const restfulSeed = restful ? restfulSeedFrom(existing.restful) : new Uint8Array();
  if (curveCertificate !== undefined && mungeKey !== undefined && restfulSeed !== undefined) {
    return { keys: { curveCertificate, mungeKey, ...(restful ? { restfulSeed } : {}) }, generated: false };
  }
  const fresh = generateMiniClusterKeys(miniClusterName, now);
  return {
    keys: {
      curveCertificate: curveCertificate ?? fresh.curveCertificate,
      mungeKey: mungeKey ?? fresh.mungeKey,
      ...(restful ? { restfulSeed: restfulSeed ?? fresh.restfulSeed ?? new Uint8Array() } : {}),
    },
    generated: true,
  };
}
