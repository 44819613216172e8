/**
 * The v1alpha1 MiniCluster schema (the spoke): its spec and root, from the fields both versions share
 * (../shared/spec-fields.ts) and its own. The single source of its TypeScript types, its validation
 * (validate.ts) and its version of the CRD (crd.ts).
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
import { ContainerV1alpha1Schema, ServiceContainerV1alpha1Schema } from './container-schema.ts';
import { BaseFluxSchema } from '../shared/flux-fields.ts';
import { ROOT_HOST_NAME_RULES, SPEC_HOST_NAME_RULES } from '../shared/host-name-cel.ts';
import { SPEC_SERVICE_RULES } from '../shared/service-cel.ts';
import { SPEC_RESTFUL_RULES } from '../shared/restful-schema.ts';
import { MAX_SERVICES } from '../shared/limits.ts';
import { SPEC_RESOURCE_RULES } from '../shared/resource-cel.ts';
import { celRules, withDefault } from '../shared/schema-helpers.ts';
import { SPEC_SCRIPT_RULES } from '../shared/script-cel.ts';
import { SPEC_SHM_RULES } from '../shared/shm-cel.ts';
import { SPEC_STORAGE_RULES } from '../shared/storage-cel.ts';
import { SPEC_VOLUME_RULES } from '../shared/volume-cel.ts';
import {
  BaseLoggingSchema,
  BaseNetworkSchema,
  BasePodSchema,
  ObjectMetaSchema,
  ROOT_RULES,
  SPEC_FIELDS,
  SPEC_STORAGE_AND_RESTFUL_FIELDS,
  SPEC_WORK_FIELDS,
  containersField,
  SPEC_RULES,
} from '../shared/spec-fields.ts';
import type { Defaulted } from '../shared/schema-helpers.ts';
import { StatusFieldsSchema } from '../shared/status-schema.ts';

export const MiniClusterV1alpha1SpecSchema = Type.Object(
  {
    size: SPEC_FIELDS.size,
    maxSize: SPEC_FIELDS.maxSize,
    autoscale: SPEC_FIELDS.autoscale,
    ...SPEC_WORK_FIELDS,
    containers: containersField(ContainerV1alpha1Schema),
    services: Type.Optional(
      Type.Array(ServiceContainerV1alpha1Schema, {
        description:
          "Service containers (v1alpha1): run together in one pod of their own, `<name>-services`, on the MiniCluster's network, so brokers and jobs reach them as `<name>-services.<headlessName>`. Not brokers: not counted, scaled or given work by Flux.",
        maxItems: MAX_SERVICES,
        'x-kubernetes-list-type': 'atomic',
      }),
    ),
    logging: withDefault(BaseLoggingSchema, {}),
    network: withDefault(BaseNetworkSchema, {}),
    pod: Type.Optional(BasePodSchema),
    shareProcessNamespace: SPEC_FIELDS.shareProcessNamespace,
    flux: withDefault(BaseFluxSchema, {}),
    ...SPEC_STORAGE_AND_RESTFUL_FIELDS,
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
export type ContainerV1alpha1 = Static<typeof ContainerV1alpha1Schema>;
export type ServiceContainerV1alpha1 = Static<typeof ServiceContainerV1alpha1Schema>;
export type FluxV1alpha1Spec = Static<typeof BaseFluxSchema>;
export type LoggingV1alpha1Spec = Static<typeof BaseLoggingSchema>;
export type NetworkV1alpha1Spec = Static<typeof BaseNetworkSchema>;
export type PodV1alpha1Spec = Static<typeof BasePodSchema>;

/** The spec after `applyDefaultsV1alpha1`: every field with a default (static or derived) is present. */
export type DefaultedMiniClusterV1alpha1Spec = Defaulted<typeof MiniClusterV1alpha1SpecSchema>;
export type DefaultedContainerV1alpha1 = DefaultedMiniClusterV1alpha1Spec['containers'][number];
export type DefaultedServiceContainerV1alpha1 = NonNullable<
  DefaultedMiniClusterV1alpha1Spec['services']
>[number];
export type DefaultedFluxV1alpha1Spec = DefaultedMiniClusterV1alpha1Spec['flux'];
/** A MiniCluster whose spec went through `applyDefaultsV1alpha1`. */
export type DefaultedMiniClusterV1alpha1 = Omit<MiniClusterV1alpha1, 'spec'> & {
  spec: DefaultedMiniClusterV1alpha1Spec;
};

export type {
  StatusFields as MiniClusterV1alpha1Status,
  Condition,
  Summary,
} from '../shared/status-schema.ts';
