/**
 * The operator's copy of a gke/eks BurstTarget's credentials Secret, which outlives the user's.
 *
 * Deleting a namespace deletes the BurstTarget and its credentials Secret at once. The BurstTarget's
 * finalizer waits for its cloud cluster to be deleted, which needs the credentials; with the Secret
 * gone (and none can be made in a terminating namespace), the namespace would stay Terminating for
 * good, or the cluster be left running. So while a BurstTarget provisions with a `credentialsSecret`,
 * the operator keeps a copy of it, `<target>-burst-credentials`, held by a finalizer of its own and
 * owned by the BurstTarget: deleting the cluster uses the copy, then the copy is released. The user's
 * Secret is only read, never changed.
 */
import type { V1Secret } from '@kubernetes/client-node';
import {
  BURST_TARGET_API_VERSION,
  BURST_TARGET_KIND,
  LABEL_APP_COMPONENT,
  type BurstTarget,
  type DefaultedBurstTarget,
} from '../../api/index.ts';
import { operatorLabels } from '../../deploy/constants.ts';
import { dnsLabel } from '../../render/names.ts';

/** Holds the copy until the cloud cluster it lets the operator delete is gone. */
export const CREDENTIALS_COPY_FINALIZER = 'flux-framework.org/burst-credentials';

/** The Secret the spec names for the cloud's credentials, if any. */
export function credentialsSecretOf(target: Pick<BurstTarget, 'spec'>): string | undefined {
  const { spec } = target;
  if (spec.provider === 'gke') return spec.gke?.credentialsSecret;
  if (spec.provider === 'eks') return spec.eks?.credentialsSecret;
  return undefined;
}

export function credentialsCopyName(targetName: string): string {
  return dnsLabel([targetName, 'burst-credentials']);
}

/** The copy as applied: the original's type and data, the finalizer, the BurstTarget as owner. */
export function credentialsCopy(
  target: { metadata: { name: string; namespace?: string; uid?: string } },
  original: V1Secret,
): V1Secret {
  const { name, namespace, uid } = target.metadata;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: credentialsCopyName(name),
      ...(namespace === undefined ? {} : { namespace }),
      labels: { ...operatorLabels(), [LABEL_APP_COMPONENT]: 'burst-credentials' },
      finalizers: [CREDENTIALS_COPY_FINALIZER],
      ...(uid === undefined
        ? {}
        : {
            ownerReferences: [
              { apiVersion: BURST_TARGET_API_VERSION, kind: BURST_TARGET_KIND, name, uid, controller: true },
            ],
          }),
    },
    ...(original.type === undefined ? {} : { type: original.type }),
    data: { ...(original.data ?? {}) },
  };
}

/** Whether the live copy already holds what `wanted` would apply (no write needed). */
export function copyUpToDate(live: V1Secret | undefined, wanted: V1Secret): boolean {
  if (!live || live.metadata?.deletionTimestamp) return false;
  const data = (secret: V1Secret) => JSON.stringify(Object.entries(secret.data ?? {}).sort());
  return (
    data(live) === data(wanted) && (live.metadata?.finalizers ?? []).includes(CREDENTIALS_COPY_FINALIZER)
  );
}

/** The target reading its credentials from `secretName` instead (the copy). */
export function withCredentialsSecret(
  target: DefaultedBurstTarget,
  secretName: string,
): DefaultedBurstTarget {
  const { spec } = target;
  if (spec.provider === 'gke' && spec.gke)
    return { ...target, spec: { ...spec, gke: { ...spec.gke, credentialsSecret: secretName } } };
  if (spec.provider === 'eks' && spec.eks)
    return { ...target, spec: { ...spec, eks: { ...spec.eks, credentialsSecret: secretName } } };
  return target;
}
