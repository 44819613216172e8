/**
 * The MiniCluster schema: the single source of the TypeScript types (via `Static`), the runtime
 * validation (validate.ts) and the CRD (crd.ts, written to deploy/crd.yaml by hack/generate.ts).
 *
 * Field names follow the Go Flux Operator's v1alpha1 so its manifests apply. Cross-field rules are
 * CEL `x-kubernetes-validations` next to the fields they read, so `kubectl apply` refuses with the
 * field path; the validator (validate.ts, semantic-rules.ts and the *-rules.ts modules, each rule
 * beside its CEL twin) makes the same checks, and one CEL cannot afford: expanding a hostlist.
 */
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { KIND } from '../group.ts';
import { API_VERSION_V1ALPHA1 } from './version.ts';
import { ContainerV1alpha1Schema, VolumeSchema } from '../shared/container-fields.ts';
import {
  BurstClusterSchema,
  FluxV1alpha1Schema,
  LeadBrokerExposureSchema,
  LeadBrokerSchema,
} from '../shared/flux-fields.ts';
import { ROOT_HOST_NAME_RULES, SPEC_HOST_NAME_RULES } from '../shared/host-name-cel.ts';
import { SPEC_SERVICE_RULES } from '../shared/service-cel.ts';
import { AutoscaleSchema, SPEC_AUTOSCALE_RULES } from '../shared/autoscale-schema.ts';
import { ServiceContainerV1alpha1Schema } from '../shared/service-fields.ts';
import { FluxRestfulSchema, SPEC_RESTFUL_RULES, UsersSchema } from '../shared/restful-schema.ts';
import {
  DNS_LABEL_MAX_LENGTH,
  MAX_BROKERS,
  MAX_CONTAINERS,
  MAX_SERVICES,
  MAX_INTEGER,
  MAX_TASKS,
  MAX_TOLERATIONS,
  SHORT_STRING_MAX_LENGTH,
} from '../shared/limits.ts';
import { ANNOTATION_RULES, TOLERATION_RULES } from '../shared/pod-cel.ts';
import { celLabelKeys, celNoReservedLabelKeys } from '../shared/qualified-names.ts';
import { POD_RESOURCE_MAP_RULES, SPEC_RESOURCE_RULES } from '../shared/resource-cel.ts';
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
} from '../shared/schema-helpers.ts';
import { SPEC_SCRIPT_RULES } from '../shared/script-cel.ts';
import { SHM_SIZE_DESCRIPTION, SPEC_SHM_RULES } from '../shared/shm-cel.ts';
import { SPEC_STORAGE_RULES } from '../shared/storage-cel.ts';
import { StorageVolumeSchema, StorageVolumesSchema } from '../shared/storage-schema.ts';
import { SPEC_VOLUME_RULES } from '../shared/volume-cel.ts';
import type { CelRule, Defaulted } from '../shared/schema-helpers.ts';
import { StatusFieldsSchema } from '../shared/status-schema.ts';

/** Approximately one year: Go's default; the Job's activeDeadlineSeconds cannot be zero. */
export const DEFAULT_DEADLINE_SECONDS = 31500000;

export const LoggingV1alpha1Schema = Type.Object(
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

export const NetworkV1alpha1Schema = Type.Object(
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

export const PodV1alpha1Schema = Type.Object(
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

export const MiniClusterV1alpha1SpecSchema = Type.Object(
  {
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
    containers: Type.Array(ContainerV1alpha1Schema, {
      description: 'Containers of every pod; exactly one runs Flux.',
      minItems: 1,
      maxItems: MAX_CONTAINERS,
      'x-kubernetes-list-type': 'atomic',
    }),
    services: Type.Optional(
      Type.Array(ServiceContainerV1alpha1Schema, {
        description:
          "Service containers (v1alpha1): run together in one pod of their own, `<name>-services`, on the MiniCluster's network, so brokers and jobs reach them as `<name>-services.<headlessName>`. Not brokers: not counted, scaled or given work by Flux.",
        maxItems: MAX_SERVICES,
        'x-kubernetes-list-type': 'atomic',
      }),
    ),
    logging: withDefault(LoggingV1alpha1Schema, {}),
    network: withDefault(NetworkV1alpha1Schema, {}),
    pod: Type.Optional(PodV1alpha1Schema),
    shareProcessNamespace: Type.Optional(
      Type.Boolean({
        description:
          "The containers of a pod see each other's processes (the pod's shareProcessNamespace): a sidecar's program can be reached through /proc. The entrypoint is then not PID 1. Unset: false.",
      }),
    ),
    flux: withDefault(FluxV1alpha1Schema, {}),
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
  },
  {
    description: 'Desired state of the MiniCluster.',
    additionalProperties: false,
    ...celRules(
      ...SPEC_RULES,
      ...SPEC_HOST_NAME_RULES,
      ...SPEC_VOLUME_RULES,
      ...SPEC_STORAGE_RULES,
      ...SPEC_RESOURCE_RULES,
      ...SPEC_SHM_RULES,
      ...SPEC_SCRIPT_RULES,
      ...SPEC_SERVICE_RULES,
      ...SPEC_RESTFUL_RULES,
    ),
  },
);

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

export const MiniClusterV1alpha1Schema = Type.Object(
  {
    apiVersion: Type.Literal(API_VERSION_V1ALPHA1, { description: 'API version of the object.' }),
    kind: Type.Literal(KIND, { description: 'Kind of the object.' }),
    metadata: ObjectMetaSchema,
    spec: MiniClusterV1alpha1SpecSchema,
    status: Type.Optional(StatusFieldsSchema),
  },
  {
    description:
      'A MiniCluster is one Flux instance: an indexed Job of pods, one broker each, wired together over a headless Service.',
    ...celRules(...ROOT_RULES, ...ROOT_HOST_NAME_RULES),
  },
);

export type MiniClusterV1alpha1Spec = Static<typeof MiniClusterV1alpha1SpecSchema>;
export type MiniClusterV1alpha1 = Static<typeof MiniClusterV1alpha1Schema>;
export type ObjectMeta = Static<typeof ObjectMetaSchema>;
export type ContainerV1alpha1 = Static<typeof ContainerV1alpha1Schema>;
export type ServiceContainerV1alpha1 = Static<typeof ServiceContainerV1alpha1Schema>;
export type FluxV1alpha1Spec = Static<typeof FluxV1alpha1Schema>;
export type LoggingV1alpha1Spec = Static<typeof LoggingV1alpha1Schema>;
export type NetworkV1alpha1Spec = Static<typeof NetworkV1alpha1Schema>;
export type PodV1alpha1Spec = Static<typeof PodV1alpha1Schema>;
export type Toleration = Static<typeof TolerationSchema>;
export type ArchiveSpec = Static<typeof ArchiveSchema>;
export type Volume = Static<typeof VolumeSchema>;
export type StorageVolume = Static<typeof StorageVolumeSchema>;
export type BurstCluster = Static<typeof BurstClusterSchema>;
export type LeadBroker = Static<typeof LeadBrokerSchema>;
export type LeadBrokerExposure = Static<typeof LeadBrokerExposureSchema>;

/** The spec after `applyDefaultsV1alpha1`: every field with a default (static or derived) is present. */
export type DefaultedMiniClusterV1alpha1Spec = Defaulted<typeof MiniClusterV1alpha1SpecSchema>;
export type DefaultedContainerV1alpha1 = DefaultedMiniClusterV1alpha1Spec['containers'][number];
export type DefaultedServiceContainerV1alpha1 = NonNullable<
  DefaultedMiniClusterV1alpha1Spec['services']
>[number];
export type DefaultedFluxV1alpha1Spec = DefaultedMiniClusterV1alpha1Spec['flux'];
export type DefaultedBurstPolicy = NonNullable<NonNullable<DefaultedFluxV1alpha1Spec['bursting']>['policy']>;
/** A MiniCluster whose spec went through `applyDefaultsV1alpha1`. */
export type DefaultedMiniClusterV1alpha1 = Omit<MiniClusterV1alpha1, 'spec'> & {
  spec: DefaultedMiniClusterV1alpha1Spec;
};

export type {
  StatusFields as MiniClusterV1alpha1Status,
  Condition,
  Summary,
} from '../shared/status-schema.ts';
