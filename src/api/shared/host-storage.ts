/**
 * Storage that reaches the node, which only namespaces an administrator allowed may use
 * (docs/security.md, "Host storage"): a `spec.volumes` entry of the hostpath class (a
 * PersistentVolume at any directory of the node, `/` included, which Pod Security does not see
 * through the claim) or with a CSI `driver` (its volumeHandle may name another tenant's volume), and
 * a container's or service's volume with `hostPath` or `csiDriver`. One list of what counts, read by
 * the operator's own check (hostStorageFields) and by the ValidatingAdmissionPolicy installed with
 * the CRD (HOST_STORAGE_CEL), for both API versions (v1alpha1's existingVolumes included).
 */
import { GROUP } from '../group.ts';
import { specContainers } from './spec-containers.ts';
import { HOSTPATH_STORAGE_CLASS } from './storage-cel.ts';

/** The namespace label that allows host storage there, and its value. */
export const HOST_STORAGE_LABEL = `${GROUP}/host-storage`;
export const HOST_STORAGE_ALLOWED = 'allowed';

/** The flag of `flux-operator install` (and `run`) and the Helm value that allow a namespace. */
export const ALLOW_HOST_STORAGE_FLAG = '--allow-host-storage';
export const HOST_STORAGE_HELM_VALUE = 'hostStorageNamespaces';

/** Whether a namespace's labels allow host storage. */
export function allowsHostStorage(labels: Readonly<Record<string, string>> | undefined): boolean {
  return labels?.[HOST_STORAGE_LABEL] === HOST_STORAGE_ALLOWED;
}

/** How an administrator allows what reaches the node in `namespace` (every refusal ends with it). */
export function allowNodeHint(namespace: string): string {
  return (
    `an administrator allows it with \`kubectl label namespace ${namespace} ${HOST_STORAGE_LABEL}=${HOST_STORAGE_ALLOWED}\`, ` +
    `\`flux-operator install ${ALLOW_HOST_STORAGE_FLAG} ${namespace}\` or the Helm value ${HOST_STORAGE_HELM_VALUE}`
  );
}

/** How an administrator allows host storage in `namespace`, and what to use instead. */
export function allowHostStorageHint(namespace: string): string {
  return `${allowNodeHint(namespace)}; otherwise use a storageClass with a provisioner, or a claimName`;
}

type Loose = Readonly<Record<string, unknown>>;

function entries(value: unknown): [string, Loose][] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value as Loose).filter(
    (entry): entry is [string, Loose] => entry[1] !== null && typeof entry[1] === 'object',
  );
}

function containerVolumeFields(path: string, container: Loose): string[] {
  const found: string[] = [];
  for (const map of ['volumes', 'existingVolumes']) {
    for (const [name, volume] of entries(container[map])) {
      if (volume.hostPath !== undefined) found.push(`${path}.${map}.${name}.hostPath`);
      if (volume.csiDriver !== undefined) found.push(`${path}.${map}.${name}.csiDriver`);
    }
  }
  return found;
}

/**
 * The fields of a MiniCluster spec (either version, defaulted or not) that name host storage, as
 * paths (`spec.volumes.data`, `spec.containers[0].volumes.root.hostPath`); empty when there is none.
 */
export function hostStorageFields(spec: unknown): string[] {
  if (spec === null || typeof spec !== 'object') return [];
  const { volumes } = spec as Loose;
  const found: string[] = [];
  for (const [name, volume] of entries(volumes)) {
    const storageClass = volume.storageClass ?? HOSTPATH_STORAGE_CLASS;
    if (volume.driver !== undefined) found.push(`spec.volumes.${name} (CSI driver ${String(volume.driver)})`);
    else if (storageClass === HOSTPATH_STORAGE_CLASS) {
      found.push(
        `spec.volumes.${name} (storageClass ${HOSTPATH_STORAGE_CLASS}, path ${String(volume.path)})`,
      );
    }
  }
  for (const { path, container } of specContainers(spec))
    found.push(...containerVolumeFields(path, container));
  return found;
}

/** The refusal of host storage in a namespace that does not allow it. */
export function hostStorageRefusal(namespace: string, fields: readonly string[]): string {
  return (
    `${fields.join(', ')}: storage on the node (hostpath or hostPath) or a CSI volume, which namespace ` +
    `${namespace} does not allow (no label ${HOST_STORAGE_LABEL}=${HOST_STORAGE_ALLOWED}); ${allowHostStorageHint(namespace)}`
  );
}

/** The refusal of settings that give the pods the node (node-access.ts) in a namespace that does not allow it. */
export function nodeAccessRefusal(namespace: string, fields: readonly string[]): string {
  return (
    `${fields.join(', ')}: access to the node itself (its namespaces, privileges or devices: root on it), which namespace ` +
    `${namespace} does not allow (no label ${HOST_STORAGE_LABEL}=${HOST_STORAGE_ALLOWED}); ${allowNodeHint(namespace)}; ` +
    'otherwise remove them'
  );
}

// ---------------------------------------------------------------------------------------------
// The same list in CEL, for the ValidatingAdmissionPolicy (the request's object, either version).

/** A container-like object `c` has no hostPath or csiDriver volume in `volumes` or `existingVolumes`. */
function celContainerClean(c: string): string {
  const clean = (map: string) =>
    `(!has(${c}.${map}) || ${c}.${map}.all(n, !has(${c}.${map}[n].hostPath) && !has(${c}.${map}[n].csiDriver)))`;
  return `(${clean('volumes')} && ${clean('existingVolumes')})`;
}

const CEL_NODE_VOLUME = (v: string) =>
  `(has(${v}.driver) || !has(${v}.storageClass) || ${v}.storageClass == '${HOSTPATH_STORAGE_CLASS}')`;

/** CEL variables and checks of the policy; each check's message names its field and the way to allow. */
export const HOST_STORAGE_CEL = {
  /** The names of the spec.volumes entries that reach the node. */
  nodeVolumes: `has(object.spec.volumes) ? object.spec.volumes.filter(n, ${CEL_NODE_VOLUME('object.spec.volumes[n]')}) : []`,
  /** The names of the containers (index when unnamed) with a hostPath or csiDriver volume. */
  containers: (field: 'containers' | 'services') =>
    `has(object.spec.${field}) ? object.spec.${field}.filter(c, !${celContainerClean('c')}).map(c, has(c.name) ? c.name : '(unnamed)') : []`,
} as const;

/** The messageExpression of a check on `what` (a CEL list of names), for namespace request.namespace. */
export function celRefusal(field: string, what: string, kind: string): string {
  const hint = (namespace: string) =>
    `'an administrator allows it with \`kubectl label namespace ' + ${namespace} + ' ${HOST_STORAGE_LABEL}=${HOST_STORAGE_ALLOWED}\`, \`flux-operator install ${ALLOW_HOST_STORAGE_FLAG} ' + ${namespace} + '\` or the Helm value ${HOST_STORAGE_HELM_VALUE}'`;
  return (
    `'${field} (' + ${what}.join(', ') + '): ${kind}, which namespace ' + request.namespace + ` +
    `' does not allow (no label ${HOST_STORAGE_LABEL}=${HOST_STORAGE_ALLOWED}); ' + ${hint('request.namespace')}`
  );
}
