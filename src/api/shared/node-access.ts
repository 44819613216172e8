/**
 * Settings that give a MiniCluster's pods the node itself (root on it, through `nsenter -t 1` or a
 * device): what Pod Security's "baseline" level forbids of the fields a MiniCluster has. They need the
 * same consent as host storage (host-storage.ts: the namespace label an administrator sets), read by
 * the operator's own check (nodeAccessFields) and by the admission policy installed with the CRD
 * (NODE_ACCESS_CEL), for both API versions, and in the conversion annotations, whose steps a converted
 * object takes on (NODE_ACCESS_RESIDUE_PATTERN).
 */
import { GROUP } from '../group.ts';
import { looseObject, specContainers, type LooseObject } from './spec-containers.ts';

/**
 * Capabilities a container of the runtime's default set has anyway (Pod Security baseline's list):
 * adding one reaches nothing new. Either spelling, with or without `CAP_`.
 */
export const BASELINE_CAPABILITIES: readonly string[] = [
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
];

/** SELinux types a container may ask for without reaching the node (Pod Security baseline's list). */
export const BASELINE_SELINUX_TYPES: readonly string[] = [
  'container_t',
  'container_init_t',
  'container_kvm_t',
  'container_engine_t',
];

const UNCONFINED = 'Unconfined';

type Loose = LooseObject;
const object = looseObject;

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function beyondBaseline(capability: string): boolean {
  return !BASELINE_CAPABILITIES.includes(capability.replace(/^CAP_/, ''));
}

/** What a security context (a pod's or a container's, either version) holds that reaches the node. */
function securityContextFields(path: string, context: Loose | undefined): string[] {
  if (context === undefined) return [];
  const found: string[] = [];
  if (context.privileged === true) found.push(`${path}.privileged`);
  const added = [...strings(context.addCapabilities), ...strings(object(context.capabilities)?.add)];
  const beyond = added.filter(beyondBaseline);
  if (beyond.length > 0) {
    const field = context.addCapabilities !== undefined ? 'addCapabilities' : 'capabilities.add';
    found.push(`${path}.${field} (${beyond.join(', ')})`);
  }
  for (const profile of ['seccompProfile', 'appArmorProfile']) {
    if (object(context[profile])?.type === UNCONFINED) found.push(`${path}.${profile}.type ${UNCONFINED}`);
  }
  const seLinux = object(context.seLinuxOptions);
  if (seLinux !== undefined) {
    const type = seLinux.type;
    if (seLinux.user !== undefined || seLinux.role !== undefined)
      found.push(`${path}.seLinuxOptions (user, role)`);
    else if (typeof type === 'string' && type !== '' && !BASELINE_SELINUX_TYPES.includes(type)) {
      found.push(`${path}.seLinuxOptions.type ${type}`);
    }
  }
  return found;
}

/**
 * The fields of a MiniCluster spec (either version, defaulted or not) that give its pods the node, as
 * paths (`spec.pod.hostPID`, `spec.containers[0].securityContext.privileged`); empty when none does.
 */
export function nodeAccessFields(spec: unknown): string[] {
  const podSpec = object(object(spec)?.pod);
  const found: string[] = [];
  for (const field of ['hostPID', 'hostIPC', 'hostNetwork']) {
    if (podSpec?.[field] === true) found.push(`spec.pod.${field}`);
  }
  found.push(...securityContextFields('spec.pod.securityContext', object(podSpec?.securityContext)));
  for (const { path, container } of specContainers(spec)) {
    found.push(...securityContextFields(`${path}.securityContext`, object(container.securityContext)));
  }
  return found;
}

/**
 * The conversion annotations (v1alpha1/convert.ts): steps a converted object takes on, so a v1alpha1
 * object could carry v1alpha2's hostPID in one. Their JSON is not parsed at admission (CEL cannot), so
 * any step naming a field of this list, or the value Unconfined, needs the namespace's consent.
 */
export const RESIDUE_ANNOTATIONS: readonly string[] = [
  `conversion.${GROUP}/v1alpha1`,
  `conversion.${GROUP}/v1alpha2`,
];

/** RE2 and JavaScript alike: a JSON string that names a node-reaching field or Unconfined. */
export const NODE_ACCESS_RESIDUE_PATTERN =
  '"(hostPID|hostIPC|hostNetwork|privileged|addCapabilities|add|seLinuxOptions|Unconfined|hostPath|csiDriver|driver)"';

/** The conversion annotations of `metadata` whose steps name node access (by their names). */
export function nodeAccessAnnotations(metadata: unknown): string[] {
  const annotations = object(object(metadata)?.annotations) ?? {};
  const pattern = new RegExp(NODE_ACCESS_RESIDUE_PATTERN);
  return RESIDUE_ANNOTATIONS.filter((name) => {
    const text = annotations[name];
    return typeof text === 'string' && pattern.test(text);
  });
}

// ---------------------------------------------------------------------------------------------
// The same list in CEL, for the ValidatingAdmissionPolicy (the request's object, either version).

const celList = (values: readonly string[]) => `[${values.map((value) => `'${value}'`).join(', ')}]`;
const CEL_CAPABILITIES = celList([...BASELINE_CAPABILITIES, ...BASELINE_CAPABILITIES.map((c) => `CAP_${c}`)]);

/** A security context `s` (a CEL expression, present) reaches the node. */
function celContextReaches(s: string): string {
  const beyond = (list: string) => `${list}.exists(x, !(x in ${CEL_CAPABILITIES}))`;
  const unconfined = (profile: string) => `(has(${s}.${profile}) && ${s}.${profile}.type == '${UNCONFINED}')`;
  const seLinux =
    `(has(${s}.seLinuxOptions) && (has(${s}.seLinuxOptions.user) || has(${s}.seLinuxOptions.role) || ` +
    `(has(${s}.seLinuxOptions.type) && ${s}.seLinuxOptions.type != '' && !(${s}.seLinuxOptions.type in ${celList(BASELINE_SELINUX_TYPES)}))))`;
  return (
    `((has(${s}.privileged) && ${s}.privileged) || ` +
    `(has(${s}.addCapabilities) && ${beyond(`${s}.addCapabilities`)}) || ` +
    `(has(${s}.capabilities) && has(${s}.capabilities.add) && ${beyond(`${s}.capabilities.add`)}) || ` +
    `${unconfined('seccompProfile')} || ${unconfined('appArmorProfile')} || ${seLinux})`
  );
}

/** CEL variables of the policy. */
export const NODE_ACCESS_CEL = {
  /** The pod-level fields that reach the node, by name. */
  pod:
    `!has(object.spec.pod) ? [] : ` +
    ['hostPID', 'hostIPC', 'hostNetwork']
      .map((field) => `(has(object.spec.pod.${field}) && object.spec.pod.${field} ? ['${field}'] : [])`)
      .join(' + ') +
    ` + (has(object.spec.pod.securityContext) && ${celContextReaches('object.spec.pod.securityContext')} ? ['securityContext'] : [])`,
  /** The names of the containers (index when unnamed) whose security context reaches the node. */
  containers: (field: 'containers' | 'services') =>
    `has(object.spec.${field}) ? object.spec.${field}.filter(c, has(c.securityContext) && ${celContextReaches('c.securityContext')}).map(c, has(c.name) ? c.name : '(unnamed)') : []`,
  /** The conversion annotations whose steps name node access. */
  annotations:
    `!has(object.metadata.annotations) ? [] : ${celList(RESIDUE_ANNOTATIONS)}.filter(a, ` +
    `a in object.metadata.annotations && object.metadata.annotations[a].matches('${NODE_ACCESS_RESIDUE_PATTERN}'))`,
} as const;
