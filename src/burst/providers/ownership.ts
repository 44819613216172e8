/**
 * Which cloud clusters a BurstTarget may adopt, install the operator into and delete: only the one
 * this operator made for that very BurstTarget. Pure: decides from the marks a cluster carries.
 *
 * A cluster gets two marks when the operator creates it, in the create request itself (GKE resource
 * labels, EKS tags; the node group too on EKS): `managed-by: flux-operator`, and
 * `flux-operator-burst-target-uid: <metadata.uid of the BurstTarget>`. The uid, not the name: a
 * BurstTarget deleted and created again under the same name, or one of the same name in another
 * namespace, is another BurstTarget. Every provider call that would act on an existing cluster
 * (adopt it, install the operator there with the operator's cloud identity, delete it) reads the
 * marks back first and leaves the cluster alone unless the uid is this BurstTarget's.
 */
import { ProviderError, type ProviderKind } from './cluster-provider.ts';

export const MANAGED_BY_KEY = 'managed-by';
export const MANAGED_BY_VALUE = 'flux-operator';
/** Label (GKE) / tag (EKS) key holding the uid of the BurstTarget the cluster was made for. */
export const OWNER_UID_KEY = 'flux-operator-burst-target-uid';

/**
 * What a uid must look like to be a GKE label value (lowercase letters, digits, `-`, `_`; at most 63)
 * and an EKS tag value. Kubernetes uids are lowercase UUIDs (36 characters).
 */
const OWNER_UID = /^[a-z0-9]([-_a-z0-9]{0,61}[a-z0-9])?$/;

/** The labels/tags a created cluster carries. */
export function ownerMarks(ownerUid: string): Record<string, string> {
  return { [MANAGED_BY_KEY]: MANAGED_BY_VALUE, [OWNER_UID_KEY]: ownerUid };
}

export type Ownership = { readonly owned: true } | { readonly owned: false; readonly why: string };

/**
 * Whether a cluster carrying `marks` (its labels or tags; undefined: none) was made for the
 * BurstTarget whose uid is `ownerUid`, and when not, why not, in words for a condition message.
 */
export function ownershipOf(
  marks: Readonly<Record<string, string | undefined>> | null | undefined,
  ownerUid: string,
  mark: 'label' | 'tag',
): Ownership {
  const owner = marks?.[OWNER_UID_KEY];
  if (owner === ownerUid) return { owned: true };
  if (owner !== undefined && owner !== '') {
    return {
      owned: false,
      why: `it was made for another BurstTarget (its ${mark} ${OWNER_UID_KEY} is ${owner}, this BurstTarget's uid is ${ownerUid})`,
    };
  }
  if (marks?.[MANAGED_BY_KEY] === MANAGED_BY_VALUE) {
    return {
      owned: false,
      why: `it has the ${mark} ${MANAGED_BY_KEY}: ${MANAGED_BY_VALUE} but no ${OWNER_UID_KEY}, so nothing says which BurstTarget it was made for (an earlier version of the operator made it, or someone marked it by hand); if it is this BurstTarget's, whoever administers the cloud account can add the ${mark} ${OWNER_UID_KEY}=${ownerUid} to it`,
    };
  }
  return { owned: false, why: `it has no ${mark} ${OWNER_UID_KEY}, so this operator did not make it` };
}

/** Checks a spec's owner uid before any call: every cluster is made for, and checked against, one. */
export function requireOwnerUid(provider: ProviderKind, value: unknown): string {
  if (typeof value !== 'string' || !OWNER_UID.test(value)) {
    throw new ProviderError(
      provider,
      "spec.ownerUid must be the BurstTarget's metadata.uid (lowercase letters, digits and -, at most 63): every cluster is marked with it and checked against it",
    );
  }
  return value;
}
