/**
 * v1alpha2's `spec.pod`, `spec.network` and `spec.logging`: the Go operator's fields with this
 * operator's own (tolerationSeconds, pod resources' checks, network.sharedSelector).
 */
import { Type } from '@sinclair/typebox';
import { LABEL_VALUE_MAX_LENGTH, MAX_MAP_ENTRIES } from './shared/limits.ts';
import { celLabelKeys } from './shared/qualified-names.ts';
import { BaseLoggingSchema, BaseNetworkSchema, BasePodSchema } from './shared/spec-fields.ts';
import {
  LABEL_VALUE_PATTERN,
  celRules,
  objectName,
  stringEnum,
  withDefault,
} from './shared/schema-helpers.ts';
import type { CelRule } from './shared/schema-helpers.ts';
import { POD_SHM_HOST_IPC_RULE } from './shared/shm-cel.ts';
import { PodSecurityContextSchema } from './shared/kube-schemas.ts';

export const RESTART_ALWAYS_MESSAGE =
  'restartPolicy Always is not allowed for the pods of a Job (Kubernetes refuses it); use OnFailure or Never';
export const DNS_NONE_MESSAGE =
  'dnsPolicy None takes every DNS setting from a dnsConfig, which a MiniCluster pod cannot set (and its brokers find each other through the cluster DNS); use ClusterFirst, ClusterFirstWithHostNet or Default';

export const POD_RULES: CelRule[] = [
  {
    rule: "!has(self.restartPolicy) || self.restartPolicy != 'Always'",
    message: RESTART_ALWAYS_MESSAGE,
    fieldPath: '.restartPolicy',
    reason: 'FieldValueForbidden',
  },
  {
    rule: "!has(self.dnsPolicy) || self.dnsPolicy != 'None'",
    message: DNS_NONE_MESSAGE,
    fieldPath: '.dnsPolicy',
    reason: 'FieldValueForbidden',
  },
  POD_SHM_HOST_IPC_RULE,
];

export const PodSchema = Type.Object(
  {
    ...BasePodSchema.properties,
    restartPolicy: Type.Optional(
      stringEnum(
        ['Always', 'OnFailure', 'Never'],
        'Whether the kubelet restarts a failed container of a pod (OnFailure) or not (Never). Unset: Never.',
      ),
    ),
    runtimeClassName: Type.Optional(objectName('RuntimeClass the pods run with (e.g. a sandboxed runtime).')),
    automountServiceAccountToken: Type.Optional(
      Type.Boolean({
        description:
          "Mount the service account's token into the pods, for programs that call the Kubernetes API. Unset: false (as the Go operator writes it): the pods' jobs get no Kubernetes credentials.",
      }),
    ),
    schedulerName: Type.Optional(objectName('Scheduler that places the pods. Unset: the default scheduler.')),
    nodeAffinity: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Array(
          Type.String({
            description: 'A label value.',
            maxLength: LABEL_VALUE_MAX_LENGTH,
            pattern: LABEL_VALUE_PATTERN,
          }),
          { minItems: 1, maxItems: MAX_MAP_ENTRIES, 'x-kubernetes-list-type': 'atomic' },
        ),
        {
          description:
            'Node label to the values it may have: the pods are scheduled only on nodes whose label has one of them (required node affinity, operator In).',
          maxProperties: MAX_MAP_ENTRIES,
          ...celRules(celLabelKeys('spec.pod.nodeAffinity')),
        },
      ),
    ),
    dnsPolicy: Type.Optional(
      stringEnum(
        ['ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None'],
        "DNS policy of the pods. Unset: ClusterFirst (the cluster's DNS, which the brokers' names need).",
      ),
    ),
    hostIPC: Type.Optional(
      Type.Boolean({
        description:
          "The pods use the node's IPC namespace, and its /dev/shm: the operator mounts none of its own (shmSize).",
      }),
    ),
    hostPID: Type.Optional(Type.Boolean({ description: "The pods use the node's process namespace." })),
    securityContext: Type.Optional(PodSecurityContextSchema),
  },
  {
    description: 'Settings of every MiniCluster pod.',
    additionalProperties: false,
    ...celRules(...POD_RULES),
  },
);

const NETWORK_RULES = (BaseNetworkSchema as unknown as { 'x-kubernetes-validations': CelRule[] })[
  'x-kubernetes-validations'
];

export const NetworkSchema = Type.Object(
  {
    ...BaseNetworkSchema.properties,
    disableAffinity: Type.Optional(
      Type.Boolean({
        description:
          'No pod affinity between the brokers. Unset: false: the scheduler prefers to put the broker pods in one zone, each on a node of its own.',
      }),
    ),
  },
  { description: 'Networking of the pods.', additionalProperties: false, ...celRules(...NETWORK_RULES) },
);

export const LoggingSchema = Type.Object(
  {
    ...BaseLoggingSchema.properties,
    strict: withDefault(
      Type.Boolean({
        description: 'Stop the entrypoint at the first failing command (v1alpha1 defaults it to true).',
      }),
      false,
    ),
  },
  { description: 'What the pods log.', additionalProperties: false },
);
