/**
 * The reconcile's host-storage step: a MiniCluster naming storage that reaches the node (hostpath or
 * CSI spec.volumes, hostPath or csiDriver volumes: src/api/host-storage.ts), or settings that give its
 * pods the node itself (privileged, capabilities, hostPID...: src/api/node-access.ts), runs only in a
 * namespace an administrator labelled to allow it. The admission policy installed with the CRD refuses such
 * objects at apply time; this step keeps a cluster without the policy, and objects stored before
 * it, just as safe: nothing is rendered or applied for them (docs/security.md).
 */
import type { V1Namespace } from '@kubernetes/client-node';
import {
  allowsHostStorage,
  hostStorageFields,
  hostStorageRefusal,
  nodeAccessFields,
  nodeAccessRefusal,
} from '../../api/index.ts';
import { describeApiError } from '../../kube/api-errors.ts';
import type { BlockingProblem } from '../../runtime/steps.ts';

/** The condition reasons of a refusal. */
export const HOST_STORAGE_NOT_ALLOWED = 'HostStorageNotAllowed';
export const NODE_ACCESS_NOT_ALLOWED = 'NodeAccessNotAllowed';

/**
 * How soon to look again at a refused MiniCluster: namespace labels are not watched, so an
 * administrator's label is seen within this long.
 */
export const HOST_STORAGE_RECHECK_MS = 30_000;

export interface NamespaceReader {
  readNamespace(param: { name: string }): Promise<V1Namespace>;
}

/**
 * Undefined when the spec names neither host storage nor node access (no API call then), or its
 * namespace allows them; else the problem that stops the pass, naming the fields and how to allow them.
 */
export async function hostStorageProblem(
  spec: unknown,
  namespace: string,
  core: NamespaceReader,
): Promise<BlockingProblem | undefined> {
  const storage = hostStorageFields(spec);
  const node = nodeAccessFields(spec);
  if (storage.length === 0 && node.length === 0) return undefined;
  let labels: Record<string, string> | undefined;
  let unread = '';
  try {
    labels = (await core.readNamespace({ name: namespace })).metadata?.labels;
  } catch (error) {
    unread = ` (the operator could not read the namespace's labels: ${describeApiError(error)})`;
  }
  if (unread === '' && allowsHostStorage(labels)) return undefined;
  // Node access first: it is the larger grant, and its fix (remove the field) the likelier one.
  return node.length > 0
    ? { reason: NODE_ACCESS_NOT_ALLOWED, message: `${nodeAccessRefusal(namespace, node)}${unread}` }
    : { reason: HOST_STORAGE_NOT_ALLOWED, message: `${hostStorageRefusal(namespace, storage)}${unread}` };
}
