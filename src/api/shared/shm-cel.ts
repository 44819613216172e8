/**
 * The brokers' /dev/shm (`spec.pod.shmSize`): what it is, and the CEL rules the CRD carries, twins of
 * the validator's rules in shm-rules.ts. The schema takes these and the rules take the schema's
 * types, so the two halves live apart.
 *
 * Every container of a broker pod gets a memory-backed emptyDir at /dev/shm (the runtime's own is
 * 64 MiB, too small for MPI's shared-memory segments with several ranks per pod), unless it mounts a
 * volume of its own there. Its size limit is `shmSize`; unset, DEFAULT_SHM_SIZE, or the Flux
 * container's (or the pod's) memory limit when that is smaller; 0 turns it off. docs/mpi.md says why.
 */
import { celRunsFlux } from './rule-helpers.ts';
import type { CelRule } from './schema-helpers.ts';

/** Where the operator mounts its memory-backed volume. */
export const SHM_MOUNT_PATH = '/dev/shm';

/** Its size limit when `spec.pod.shmSize` is unset and no memory limit is smaller. */
export const DEFAULT_SHM_SIZE = '1Gi';

export const SHM_SIZE_DESCRIPTION = `Size limit of the memory-backed /dev/shm every broker container gets (for MPI's shared memory; the kubelet counts what it holds against the memory limits). Unset: ${DEFAULT_SHM_SIZE}, or the Flux container's (or the pod's) memory limit when that is smaller; none with hostIPC. 0: no such volume (the runtime's own /dev/shm, 64 MiB). A container that mounts a volume of its own at /dev/shm keeps it.`;

/** Why a /dev/shm larger than a memory limit is refused (the messages' middle part). */
export const SHM_OVER_LIMIT_WHY =
  'what /dev/shm holds counts against that limit, so the processes writing it would be killed before it is full';

export const SHM_OVER_FLUX_LIMIT_MESSAGE = `spec.pod.shmSize is more than the memory limit of the Flux container (resources.limits.memory): ${SHM_OVER_LIMIT_WHY}; lower shmSize, or raise the limit`;
export const SHM_OVER_POD_LIMIT_MESSAGE = `spec.pod.shmSize is more than the pod's memory limit (spec.pod.resources.memory): ${SHM_OVER_LIMIT_WHY}; lower shmSize, or raise the limit`;
export const SHM_HOST_IPC_MESSAGE =
  "sizes the /dev/shm volume the operator mounts, which would hide the node's /dev/shm that hostIPC shares with the pods; remove shmSize (or set it to 0), or remove hostIPC";

function celQuantity(value: string): string {
  return `quantity(string(${value}))`;
}

/**
 * CEL: the quantity `size` is at most the quantity `limit`; true when either is no quantity (their
 * own rules refuse that, once).
 */
function celAtMost(size: string, limit: string): string {
  return `!isQuantity(string(${size})) || !isQuantity(string(${limit})) || ${celQuantity(size)}.compareTo(${celQuantity(limit)}) <= 0`;
}

const CEL_HAS_SHM_SIZE = 'has(self.pod) && has(self.pod.shmSize)';

/**
 * Rules on the spec (v1alpha1's and v1alpha2's). Map values are read by index (`limits['memory']`):
 * the API server's cost estimate of a field selection on a map is unbounded.
 */
export const SPEC_SHM_RULES: CelRule[] = [
  {
    rule: `!(${CEL_HAS_SHM_SIZE}) || self.containers.all(container, !${celRunsFlux('self', 'container')} || !has(container.resources) || !has(container.resources.limits) || !('memory' in container.resources.limits) || ${celAtMost('self.pod.shmSize', "container.resources.limits['memory']")})`,
    message: SHM_OVER_FLUX_LIMIT_MESSAGE,
    fieldPath: '.pod.shmSize',
    reason: 'FieldValueInvalid',
  },
  {
    rule: `!(${CEL_HAS_SHM_SIZE}) || !has(self.pod.resources) || !('memory' in self.pod.resources) || ${celAtMost('self.pod.shmSize', "self.pod.resources['memory']")}`,
    message: SHM_OVER_POD_LIMIT_MESSAGE,
    fieldPath: '.pod.shmSize',
    reason: 'FieldValueInvalid',
  },
];

/** A rule on v1alpha2's `spec.pod` (v1alpha1 has no hostIPC). */
export const POD_SHM_HOST_IPC_RULE: CelRule = {
  rule: `!has(self.hostIPC) || !self.hostIPC || !has(self.shmSize) || !isQuantity(string(self.shmSize)) || ${celQuantity('self.shmSize')}.compareTo(quantity('0')) == 0`,
  message: `shmSize ${SHM_HOST_IPC_MESSAGE}`,
  fieldPath: '.shmSize',
  reason: 'FieldValueForbidden',
};
