/**
 * The Kubernetes types v1alpha2 takes whole from core/v1, as the Go operator does (at its k8s.io/api
 * v0.25): a container's and a pod's security context. Bounded, with the checks Kubernetes makes in
 * CEL beside them, so that what the API server stores is what a pod accepts. Windows options are
 * declared only to be refused by name (left-out.ts): MiniCluster pods run Linux.
 */
import { Type } from '@sinclair/typebox';
import { MAX_CAPABILITIES, SHORT_STRING_MAX_LENGTH } from './limits.ts';
import { ITEM_PATH_PATTERN, NO_NUL_PATTERN, boundedString, celRules, stringEnum } from './schema-helpers.ts';
import type { CelRule } from './schema-helpers.ts';
import { LEFT_OUT_SECURITY_FIELDS, celLeftOut } from './left-out.ts';

/** Largest user or group id Kubernetes takes (an int32). */
export const MAX_ID = 2147483647;
/** Most supplemental groups and sysctls of a pod. */
const MAX_POD_LIST = 64;
/** A capability name in capitals (`SYS_ADMIN`, `CAP_NET_RAW`). */
export const CAPABILITY_PATTERN = '^[A-Z][A-Z0-9_]*$';
/** A sysctl name as Kubernetes checks it: dot- or slash-separated segments. */
export const SYSCTL_NAME_PATTERN = '^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$';

function id(description: string) {
  return Type.Integer({ description, minimum: 0, maximum: MAX_ID });
}

export const SELinuxOptionsSchema = Type.Object(
  {
    user: Type.Optional(boundedString('SELinux user label.', SHORT_STRING_MAX_LENGTH)),
    role: Type.Optional(boundedString('SELinux role label.', SHORT_STRING_MAX_LENGTH)),
    type: Type.Optional(boundedString('SELinux type label.', SHORT_STRING_MAX_LENGTH)),
    level: Type.Optional(boundedString('SELinux level label.', SHORT_STRING_MAX_LENGTH)),
  },
  { description: 'SELinux labels of the container (core/v1 SELinuxOptions).', additionalProperties: false },
);

export const SECCOMP_LOCALHOST = 'Localhost';

export const SeccompProfileSchema = Type.Object(
  {
    type: stringEnum(
      ['RuntimeDefault', 'Unconfined', 'Localhost'],
      "The seccomp profile: the runtime's default, none, or a file of the node (Localhost).",
    ),
    localhostProfile: Type.Optional(
      Type.String({
        description:
          "With type Localhost: the profile's file, relative to the kubelet's seccomp directory (no `..`).",
        minLength: 1,
        maxLength: SHORT_STRING_MAX_LENGTH,
        pattern: ITEM_PATH_PATTERN,
      }),
    ),
  },
  {
    description: 'A seccomp profile (core/v1 SeccompProfile).',
    additionalProperties: false,
    ...celRules({
      rule: `(self.type == '${SECCOMP_LOCALHOST}') == has(self.localhostProfile)`,
      message: 'localhostProfile is required with type Localhost and forbidden with any other type',
      fieldPath: '.localhostProfile',
      reason: 'FieldValueInvalid',
    }),
  },
);

const WINDOWS_REFUSED = 'Refused: MiniCluster pods run on Linux nodes.';

export const WindowsOptionsSchema = Type.Object(
  {
    gmsaCredentialSpecName: Type.Optional(
      Type.String({ description: WINDOWS_REFUSED, maxLength: SHORT_STRING_MAX_LENGTH }),
    ),
    gmsaCredentialSpec: Type.Optional(
      Type.String({ description: WINDOWS_REFUSED, maxLength: SHORT_STRING_MAX_LENGTH }),
    ),
    runAsUserName: Type.Optional(
      Type.String({ description: WINDOWS_REFUSED, maxLength: SHORT_STRING_MAX_LENGTH }),
    ),
    hostProcess: Type.Optional(Type.Boolean({ description: WINDOWS_REFUSED })),
  },
  {
    description: `Windows options (core/v1 WindowsSecurityContextOptions). ${WINDOWS_REFUSED}`,
    additionalProperties: false,
  },
);

function capabilityList(description: string) {
  return Type.Array(
    Type.String({
      description: 'A Linux capability, e.g. SYS_ADMIN.',
      maxLength: 64,
      pattern: CAPABILITY_PATTERN,
    }),
    { description, maxItems: MAX_CAPABILITIES, 'x-kubernetes-list-type': 'set' },
  );
}

export const CapabilitiesSchema = Type.Object(
  {
    add: Type.Optional(capabilityList('Linux capabilities added to the container.')),
    drop: Type.Optional(capabilityList('Linux capabilities dropped from the container (e.g. ALL).')),
  },
  { description: 'Linux capabilities of the container.', additionalProperties: false },
);

/** The fields a container's and a pod's security contexts share. */
const SHARED_SECURITY_PROPERTIES = {
  seLinuxOptions: Type.Optional(SELinuxOptionsSchema),
  windowsOptions: Type.Optional(WindowsOptionsSchema),
  runAsUser: Type.Optional(id('User id the processes run as.')),
  runAsGroup: Type.Optional(id('Primary group id the processes run as.')),
  runAsNonRoot: Type.Optional(
    Type.Boolean({ description: 'The kubelet refuses to start a process as root (uid 0).' }),
  ),
  seccompProfile: Type.Optional(SeccompProfileSchema),
};

/** Unmasked needs a pod with `hostUsers: false`, which a MiniCluster does not set. */
export const UNMASKED_PROC_MOUNT_MESSAGE =
  'procMount Unmasked needs a pod with hostUsers: false (its own user namespace), which a MiniCluster pod does not have; remove procMount or set Default';
export const PRIVILEGE_ESCALATION_MESSAGE =
  'allowPrivilegeEscalation: false excludes privileged: true and adding CAP_SYS_ADMIN (Kubernetes refuses the pair); remove one of them';

export const SECURITY_CONTEXT_RULES: CelRule[] = [
  {
    rule: "!has(self.procMount) || self.procMount != 'Unmasked'",
    message: UNMASKED_PROC_MOUNT_MESSAGE,
    fieldPath: '.procMount',
    reason: 'FieldValueForbidden',
  },
  {
    rule: "!has(self.allowPrivilegeEscalation) || self.allowPrivilegeEscalation || ((!has(self.privileged) || !self.privileged) && (!has(self.capabilities) || !has(self.capabilities.add) || !('CAP_SYS_ADMIN' in self.capabilities.add)))",
    message: PRIVILEGE_ESCALATION_MESSAGE,
    fieldPath: '.allowPrivilegeEscalation',
    reason: 'FieldValueInvalid',
  },
];

export const SecurityContextSchema = Type.Object(
  {
    capabilities: Type.Optional(CapabilitiesSchema),
    privileged: Type.Optional(
      Type.Boolean({ description: 'Run the container privileged (as root on the host). Unset: false.' }),
    ),
    ...SHARED_SECURITY_PROPERTIES,
    readOnlyRootFilesystem: Type.Optional(
      Type.Boolean({ description: "The container's root file system is read-only." }),
    ),
    allowPrivilegeEscalation: Type.Optional(
      Type.Boolean({
        description: 'A process may gain more privileges than its parent (no_new_privs unset).',
      }),
    ),
    procMount: Type.Optional(
      stringEnum(['Default', 'Unmasked'], 'How /proc is mounted: Default (masked paths).'),
    ),
  },
  {
    description: 'Security settings of the container (core/v1 SecurityContext).',
    additionalProperties: false,
    ...celRules(...SECURITY_CONTEXT_RULES, ...celLeftOut(LEFT_OUT_SECURITY_FIELDS)),
  },
);

export const SysctlSchema = Type.Object(
  {
    name: Type.String({
      description: 'Name of the sysctl, e.g. net.core.somaxconn.',
      minLength: 1,
      maxLength: 253,
      pattern: SYSCTL_NAME_PATTERN,
    }),
    value: Type.String({
      description: 'Its value.',
      maxLength: SHORT_STRING_MAX_LENGTH,
      pattern: NO_NUL_PATTERN,
    }),
  },
  { description: 'A namespaced sysctl set for the pod.', additionalProperties: false },
);

export const PodSecurityContextSchema = Type.Object(
  {
    ...SHARED_SECURITY_PROPERTIES,
    supplementalGroups: Type.Optional(
      Type.Array(id('A group id.'), {
        description: 'Groups added to the first process of each container.',
        maxItems: MAX_POD_LIST,
        'x-kubernetes-list-type': 'atomic',
      }),
    ),
    fsGroup: Type.Optional(id('Group that owns the volumes that support ownership management.')),
    sysctls: Type.Optional(
      Type.Array(SysctlSchema, {
        description: 'Namespaced sysctls of the pod.',
        maxItems: MAX_POD_LIST,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
      }),
    ),
    fsGroupChangePolicy: Type.Optional(
      stringEnum(
        ['OnRootMismatch', 'Always'],
        'When the ownership of the volumes is changed to fsGroup. Unset: Always.',
      ),
    ),
  },
  {
    description: 'Security settings of the pod (core/v1 PodSecurityContext).',
    additionalProperties: false,
    ...celRules(...celLeftOut(LEFT_OUT_SECURITY_FIELDS)),
  },
);
