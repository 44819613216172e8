/**
 * What the MiniCluster schemas of both versions are built from: the spec fields they share
 * (SPEC_FIELDS), the logging, network and pod settings the hub extends, the metadata, and the CEL
 * rules of the spec and of the whole object that hold in both.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { AutoscaleSchema, SPEC_AUTOSCALE_RULES } from './autoscale-schema.ts';
import { FluxRestfulSchema, UsersSchema } from './restful-schema.ts';
import {
  DNS_LABEL_MAX_LENGTH,
  MAX_BROKERS,
  MAX_CONTAINERS,
  MAX_INTEGER,
  MAX_TASKS,
  MAX_TOLERATIONS,
  SHORT_STRING_MAX_LENGTH,
} from './limits.ts';
import { ANNOTATION_RULES, TOLERATION_RULES } from './pod-cel.ts';
import { celLabelKeys, celNoReservedLabelKeys } from './qualified-names.ts';
import { POD_RESOURCE_MAP_RULES } from './resource-cel.ts';
import {
  LABEL_VALUE_PATTERN,
  absolutePath,
  celRules,
  derivedDefault,
  dns1035Label,
  labelMap,
  objectName,
  quantity,
  quantityMap,
  stringEnum,
  stringMap,
  withDefault,
} from './schema-helpers.ts';
import { SHM_SIZE_DESCRIPTION } from './shm-cel.ts';
import { StorageVolumesSchema } from './storage-schema.ts';
import type { CelRule } from './schema-helpers.ts';

/** Approximately one year: Go's default; the Job's activeDeadlineSeconds cannot be zero. */
export const DEFAULT_DEADLINE_SECONDS = 31500000;

export const BaseLoggingSchema = Type.Object(
  {
    quiet: withDefault(
      Type.Boolean({
        description:
          "Print only the job's own output and errors: no entrypoint banners, brokers log errors only.",
      }),
      false,
    ),
    strict: withDefault(
      Type.Boolean({ description: 'Stop the entrypoint at the first failing command.' }),
      true,
    ),
    debug: withDefault(Type.Boolean({ description: 'Verbose entrypoint and Flux output.' }), false),
    zeromq: withDefault(Type.Boolean({ description: 'Log ZeroMQ overlay events.' }), false),
    timed: withDefault(Type.Boolean({ description: 'Time the Flux commands of the entrypoint.' }), false),
  },
  { description: 'What the pods log.', additionalProperties: false },
);

export const BaseNetworkSchema = Type.Object(
  {
    headlessName: derivedDefault(
      dns1035Label(
        "Name of the headless Service giving the pods DNS names (`<name>-<index>.<headlessName>`). Default: the MiniCluster's name, so no two MiniClusters share one by accident.",
      ),
    ),
    sharedSelector: Type.Optional(
      labelMap(
        "Connect to another MiniCluster: labels added to the pods, which the headless Service then selects instead of this MiniCluster's own label, so MiniClusters with the same sharedSelector and headlessName resolve each other's pods.",
        celLabelKeys('spec.network.sharedSelector'),
        celNoReservedLabelKeys('spec.network.sharedSelector'),
      ),
    ),
  },
  {
    description: 'Networking of the pods.',
    additionalProperties: false,
    ...celRules({
      rule: '!has(self.sharedSelector) || has(self.headlessName)',
      message:
        'headlessName is required with sharedSelector: set the same headlessName on every MiniCluster that shares the selector',
      fieldPath: '.headlessName',
      reason: 'FieldValueRequired',
    }),
  },
);

export const TolerationSchema = Type.Object(
  {
    key: Type.Optional(
      Type.String({ description: 'Taint key to tolerate; empty with Exists: every taint.', maxLength: 317 }),
    ),
    operator: Type.Optional(stringEnum(['Exists', 'Equal'], 'How key and value are matched. Unset: Equal.')),
    value: Type.Optional(
      Type.String({
        description: 'Taint value to match with Equal (a label value); empty with Exists.',
        maxLength: 63,
        pattern: LABEL_VALUE_PATTERN,
      }),
    ),
    effect: Type.Optional(
      stringEnum(
        ['NoSchedule', 'PreferNoSchedule', 'NoExecute'],
        'Taint effect to tolerate. Unset: every effect.',
      ),
    ),
    tolerationSeconds: Type.Optional(
      Type.Integer({
        description: 'With NoExecute: how long the pod stays after the taint appears.',
        minimum: 0,
        maximum: MAX_INTEGER,
      }),
    ),
  },
  {
    description: 'A toleration of node taints.',
    additionalProperties: false,
    ...celRules(...TOLERATION_RULES),
  },
);

export const BasePodSchema = Type.Object(
  {
    annotations: Type.Optional(
      stringMap(
        'Annotations of every pod (at most 256 KiB of keys and values, as Kubernetes allows).',
        { maxLength: SHORT_STRING_MAX_LENGTH * 64 },
        celLabelKeys('spec.pod.annotations'),
        ...ANNOTATION_RULES,
      ),
    ),
    labels: Type.Optional(
      labelMap(
        "Labels of every pod (the operator's own label keys are reserved).",
        celLabelKeys('spec.pod.labels'),
        celNoReservedLabelKeys('spec.pod.labels'),
      ),
    ),
    serviceAccountName: Type.Optional(objectName('Service account of the pods.')),
    nodeSelector: Type.Optional(
      labelMap('Node labels the pods must be scheduled on.', celLabelKeys('spec.pod.nodeSelector')),
    ),
    tolerations: Type.Optional(
      Type.Array(TolerationSchema, {
        description: 'Node taints the pods tolerate.',
        maxItems: MAX_TOLERATIONS,
        'x-kubernetes-list-type': 'atomic',
      }),
    ),
    resources: Type.Optional(
      quantityMap(
        'Pod-level resource limits: cpu and memory, for resources the containers do not set themselves.',
        ...POD_RESOURCE_MAP_RULES,
      ),
    ),
    shmSize: Type.Optional(quantity(SHM_SIZE_DESCRIPTION)),
  },
  { description: 'Settings of every MiniCluster pod.', additionalProperties: false },
);

export const ArchiveSchema = Type.Object(
  {
    path: absolutePath(
      'File (in the Flux container) Flux saves its archive to on exit and loads it from on start.',
    ),
  },
  { description: "Keep Flux's job archive across MiniClusters.", additionalProperties: false },
);

/** The number of brokers after defaulting, as CEL sees it (maxSize has no static default). */
const CEL_MAX_SIZE = '(has(self.maxSize) ? self.maxSize : self.size)';
const CEL_IS_RUNNER = '(has(container.runFlux) && container.runFlux)';
const CEL_BURSTING = 'has(self.flux) && has(self.flux.bursting)';

/**
 * The spec's own rules: sizes, the Flux container and container names, the broker count. v1alpha2
 * shares them (src/api/schema.ts, the hub).
 */
export const SPEC_RULES: CelRule[] = [
  {
    rule: '!has(self.maxSize) || self.maxSize >= self.size',
    message: 'spec.maxSize must be >= spec.size; raise maxSize or lower size',
    fieldPath: '.maxSize',
    reason: 'FieldValueInvalid',
  },
  {
    // The broker config lists hosts up to maxSize when Flux starts; changing it later would
    // need a new instance. Setting, changing and removing it are all refused.
    rule: 'has(self.maxSize) == has(oldSelf.maxSize) && (!has(self.maxSize) || self.maxSize == oldSelf.maxSize)',
    message: 'spec.maxSize is fixed at creation; recreate the MiniCluster to change it',
    fieldPath: '.maxSize',
    reason: 'FieldValueForbidden',
  },
  ...SPEC_AUTOSCALE_RULES,
  {
    rule: `self.containers.size() == 1 || self.containers.filter(container, ${CEL_IS_RUNNER}).size() == 1`,
    message: 'exactly one container must set runFlux: true when there are several containers',
    fieldPath: '.containers',
    reason: 'FieldValueInvalid',
  },
  {
    rule: `self.containers.size() == 1 || self.containers.all(container, ${CEL_IS_RUNNER} || has(container.name))`,
    message: 'containers that do not run Flux need a name; add name to each of them',
    fieldPath: '.containers',
    reason: 'FieldValueRequired',
  },
  {
    rule: 'self.containers.all(container, !has(container.name) || self.containers.filter(other, has(other.name) && other.name == container.name).size() == 1)',
    message: 'container names must be unique',
    fieldPath: '.containers',
    reason: 'FieldValueDuplicate',
  },
  {
    rule: `${CEL_MAX_SIZE} + (${CEL_BURSTING} && has(self.flux.bursting.clusters) ? self.flux.bursting.clusters.map(cluster, has(cluster.size) ? cluster.size : self.size).sum() : 0) + (${CEL_BURSTING} && has(self.flux.bursting.leadBroker) ? self.flux.bursting.leadBroker.size : 0) <= ${MAX_BROKERS}`,
    message: `the Flux instance may list at most ${MAX_BROKERS} brokers (maxSize, burst cluster sizes and leadBroker.size together); lower them`,
    fieldPath: '.maxSize',
    reason: 'FieldValueInvalid',
  },
];

/**
 * The spec fields both versions have, with the same names, types, bounds and defaults: each version's
 * spec lists them in its own order beside the fields of its own.
 */
export const SPEC_FIELDS = {
  size: withDefault(
    Type.Integer({
      description: 'Number of pods (brokers) to run; `kubectl scale` changes it, up to maxSize.',
      minimum: 1,
      maximum: MAX_BROKERS,
    }),
    1,
  ),
  maxSize: derivedDefault(
    Type.Integer({
      description:
        'Most pods the MiniCluster can grow to, fixed at creation; hosts up to it are listed in the broker config from the start. Default: size.',
      minimum: 1,
      maximum: MAX_BROKERS,
    }),
  ),
  autoscale: Type.Optional(AutoscaleSchema),
  tasks: withDefault(
    Type.Integer({
      description: 'Number of tasks the command is submitted with (`flux submit -n`).',
      minimum: 1,
      maximum: MAX_TASKS,
    }),
    1,
  ),
  interactive: withDefault(
    Type.Boolean({
      description: 'Keep the Flux instance running after the command, for users to submit jobs.',
    }),
    false,
  ),
  deadlineSeconds: withDefault(
    Type.Integer({
      description: "Most seconds the MiniCluster may run (the Job's activeDeadlineSeconds).",
      minimum: 1,
      maximum: MAX_INTEGER,
    }),
    DEFAULT_DEADLINE_SECONDS,
  ),
  jobLabels: Type.Optional(
    labelMap(
      "Labels of the Job (the operator's own label keys are reserved).",
      celLabelKeys('spec.jobLabels'),
      celNoReservedLabelKeys('spec.jobLabels'),
    ),
  ),
  shareProcessNamespace: Type.Optional(
    Type.Boolean({
      description:
        "The containers of a pod see each other's processes (the pod's shareProcessNamespace): a sidecar's program can be reached through /proc. The entrypoint is then not PID 1. Unset: false.",
    }),
  ),
  archive: Type.Optional(ArchiveSchema),
  volumes: Type.Optional(StorageVolumesSchema),
  cleanup: withDefault(
    Type.Boolean({
      description: 'Delete the pods when the lead broker completes, instead of keeping them for logs.',
    }),
    false,
  ),
  fluxRestful: Type.Optional(FluxRestfulSchema),
  users: Type.Optional(UsersSchema),
};

const { tasks, interactive, deadlineSeconds, jobLabels, archive, volumes, cleanup, fluxRestful, users } =
  SPEC_FIELDS;

/** The run of spec fields both versions have after the sizes: the work and the Job's labels. */
export const SPEC_WORK_FIELDS = { tasks, interactive, deadlineSeconds, jobLabels };

/** The run of spec fields both versions end with: what is kept and cleaned up, and the RESTful API. */
export const SPEC_STORAGE_AND_RESTFUL_FIELDS = { archive, volumes, cleanup, fluxRestful, users };

/** `spec.containers` of either version, of that version's container. */
export function containersField<T extends TSchema>(container: T) {
  return Type.Array(container, {
    description: 'Containers of every pod; exactly one runs Flux.',
    minItems: 1,
    maxItems: MAX_CONTAINERS,
    'x-kubernetes-list-type': 'atomic',
  });
}

/** The part of ObjectMeta the operator reads; everything else passes through. */
export const ObjectMetaSchema = Type.Object(
  {
    name: Type.String({ description: 'Name of the MiniCluster.', minLength: 1 }),
    namespace: Type.Optional(Type.String({ description: 'Namespace of the MiniCluster.' })),
    generation: Type.Optional(
      Type.Integer({ description: 'Incremented by the API server on spec changes.' }),
    ),
    uid: Type.Optional(Type.String({ description: 'Unique id, set by the API server.' })),
    labels: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Labels.' })),
    annotations: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Annotations.' })),
  },
  { description: 'Standard object metadata.' },
);

/** Highest pod index digits: a MiniCluster of maxSize N has hosts `<name>-0` ... `<name>-(N-1)`. */
const CEL_LAST_INDEX_DIGITS = `string((has(self.spec.maxSize) ? self.spec.maxSize : self.spec.size) - 1).size()`;

/** Rules on the whole MiniCluster (they read metadata.name and status); v1alpha2 shares them. */
export const ROOT_RULES: CelRule[] = [
  {
    // Flux host names and the Service name derived from it must be RFC 1035 labels; the API
    // server itself only requires a DNS subdomain.
    rule: `self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')`,
    message: 'metadata.name must be a DNS label starting with a letter (lowercase letters, digits, -)',
    reason: 'FieldValueInvalid',
  },
  {
    rule: `self.metadata.name.size() + 1 + ${CEL_LAST_INDEX_DIGITS} <= ${DNS_LABEL_MAX_LENGTH}`,
    message: `metadata.name is too long: pod host names <name>-<index> up to maxSize-1 must fit in ${DNS_LABEL_MAX_LENGTH} characters; shorten the name`,
    reason: 'FieldValueInvalid',
  },
  {
    // Covers MiniClusters without spec.maxSize: the size at creation, recorded by the operator
    // in status.maximumSize, is the most they can scale to.
    rule: '!has(self.status) || !has(self.status.maximumSize) || self.spec.size <= self.status.maximumSize',
    message: 'spec.size cannot exceed status.maximumSize, the maximum fixed at creation; scale within it',
    fieldPath: '.spec.size',
    reason: 'FieldValueForbidden',
  },
  {
    // An unnamed Flux container is named after the MiniCluster.
    rule: 'self.spec.containers.size() == 1 || !self.spec.containers.exists(container, !has(container.name) && has(container.runFlux) && container.runFlux) || !self.spec.containers.exists(container, has(container.name) && container.name == self.metadata.name)',
    message:
      "a container is named like the MiniCluster, which is the unnamed Flux container's name; name the Flux container or rename the other",
    fieldPath: '.spec.containers',
    reason: 'FieldValueDuplicate',
  },
];
