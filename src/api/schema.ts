/**
 * The v1alpha2 MiniCluster schema: the Go Flux Operator's current API (every field, with its names,
 * types and defaults) and every capability of this operator's v1alpha1 that it has no field for,
 * under v1alpha1's names. One source for the TypeScript types, the validator (validate.ts) and the
 * CRD version (crd-version.ts). v1alpha1's rules hold where the fields are shared; the rules of what
 * v1alpha2 shapes differently (volumes, the Flux view, the pod's new fields) are beside them here.
 */
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { API_VERSION, KIND } from './group.ts';
import { ROOT_HOST_NAME_RULES, SPEC_HOST_NAME_RULES } from './shared/host-name-cel.ts';
import { MAX_BROKERS, MAX_SERVICES } from './shared/limits.ts';
import { SPEC_RESOURCE_RULES } from './shared/resource-cel.ts';
import {
  CEL_JOINS_ANOTHER,
  CEL_SERVES_V1ALPHA2,
  RESTFUL_STARTS_AS_ROOT_RULES,
  restfulRootJobsRule,
  RESTFUL_COMMAND_RULE,
  RESTFUL_JOINS_RULE,
  RESTFUL_PORT_RULE,
  RESTFUL_USERNAME_RULE,
} from './shared/restful-schema.ts';
import { celRunsFlux } from './shared/rule-helpers.ts';
import {
  ObjectMetaSchema,
  ROOT_RULES,
  SPEC_FIELDS,
  SPEC_RULES,
  SPEC_STORAGE_AND_RESTFUL_FIELDS,
  SPEC_WORK_FIELDS,
  containersField,
} from './shared/spec-fields.ts';
import { celRules, withDefault } from './shared/schema-helpers.ts';
import type { CelRule, Defaulted } from './shared/schema-helpers.ts';
import { SPEC_SCRIPT_RULES } from './shared/script-cel.ts';
import { SPEC_SERVICE_RULES } from './shared/service-cel.ts';
import { SPEC_SHM_RULES } from './shared/shm-cel.ts';
import { StatusFieldsSchema } from './shared/status-schema.ts';
import { ContainerSchema, ServiceContainerSchema } from './container-schema.ts';
import { FluxSchema } from './flux-schema.ts';
import { LoggingSchema, NetworkSchema, PodSchema } from './pod-schema.ts';
import { DEFAULT_FLUX_VIEW_NAME } from './go-defaults.ts';
import { SPEC_VOLUME_RULES } from './volume-cel.ts';

export const USERS_MESSAGE =
  'are users of the RESTful API, which a v1alpha2 MiniCluster serves only with fluxRestful (and not when its brokers join another instance): set fluxRestful, or remove users';
export const MIN_SIZE_MESSAGE =
  'must be <= spec.size: the brokers Flux waits for before it starts; lower minSize';
export const SCRIPT_AND_COMMAND_MESSAGE =
  'the Flux container has both command and commands.script, and the script runs in place of the command; keep one of them';
export const NO_WRAP_MESSAGE =
  'applies to containers that do not run Flux (their command is wrapped to wait for Flux); the Flux container runs the brokers either way: remove noWrapEntrypoint';
export const VIEW_NAME_MESSAGE =
  'is also the name of the Flux view init container (flux.container.name, default flux-view); container names in a pod must be unique, so rename one of them';

/** CEL: the view's init container name, defaulted. */
const CEL_VIEW_NAME = `(has(self.flux) && has(self.flux.container) && has(self.flux.container.name) ? self.flux.container.name : '${DEFAULT_FLUX_VIEW_NAME}')`;

/** Rules of v1alpha2's own spec fields. */
export const SPEC_V1ALPHA2_RULES: CelRule[] = [
  {
    rule: '!has(self.minSize) || self.minSize <= self.size',
    message: `spec.minSize ${MIN_SIZE_MESSAGE}`,
    fieldPath: '.minSize',
    reason: 'FieldValueInvalid',
  },
  {
    rule: `!has(self.users) || self.users.size() == 0 || (has(self.fluxRestful) && !(${CEL_JOINS_ANOTHER}))`,
    message: `spec.users ${USERS_MESSAGE}`,
    fieldPath: '.users',
    reason: 'FieldValueForbidden',
  },
  {
    rule: `self.containers.all(container, !${celRunsFlux('self', 'container')} || !has(container.command) || !has(container.commands) || !has(container.commands.script))`,
    message: SCRIPT_AND_COMMAND_MESSAGE,
    fieldPath: '.containers',
    reason: 'FieldValueForbidden',
  },
  {
    rule: `self.containers.all(container, !${celRunsFlux('self', 'container')} || !has(container.noWrapEntrypoint) || !container.noWrapEntrypoint)`,
    message: `noWrapEntrypoint on the Flux container ${NO_WRAP_MESSAGE}`,
    fieldPath: '.containers',
    reason: 'FieldValueForbidden',
  },
  {
    rule: `self.containers.all(container, !has(container.name) || container.name != ${CEL_VIEW_NAME})`,
    message: `a container name ${VIEW_NAME_MESSAGE}`,
    fieldPath: '.containers',
    reason: 'FieldValueDuplicate',
  },
];

export const MiniClusterSpecSchema = Type.Object(
  {
    size: SPEC_FIELDS.size,
    maxSize: SPEC_FIELDS.maxSize,
    autoscale: SPEC_FIELDS.autoscale,
    minSize: Type.Optional(
      Type.Integer({
        description:
          'Brokers that must be up before Flux starts (its quorum), at most size. Unset: size. Tasks are not lowered with it: a job may then wait for the rest.',
        minimum: 1,
        maximum: MAX_BROKERS,
      }),
    ),
    backoffLimit: Type.Optional(
      Type.Integer({
        description:
          "How often the Job retries a failed pod before it fails (the Job's backoffLimit). Unset: 0.",
        minimum: 0,
        maximum: 2147483647,
      }),
    ),
    ...SPEC_WORK_FIELDS,
    containers: containersField(ContainerSchema),
    services: Type.Optional(
      Type.Array(ServiceContainerSchema, {
        description:
          "Service containers: run together in one pod of their own, `<name>-services`, on the MiniCluster's network, so brokers and jobs reach them as `<name>-services.<headlessName>`. Not brokers.",
        maxItems: MAX_SERVICES,
        'x-kubernetes-list-type': 'atomic',
      }),
    ),
    logging: withDefault(LoggingSchema, {}),
    network: withDefault(NetworkSchema, {}),
    pod: Type.Optional(PodSchema),
    shareProcessNamespace: SPEC_FIELDS.shareProcessNamespace,
    flux: withDefault(FluxSchema, {}),
    ...SPEC_STORAGE_AND_RESTFUL_FIELDS,
  },
  {
    description: 'Desired state of the MiniCluster.',
    additionalProperties: false,
    ...celRules(
      ...SPEC_RULES,
      ...SPEC_V1ALPHA2_RULES,
      ...SPEC_HOST_NAME_RULES,
      ...SPEC_VOLUME_RULES,
      ...SPEC_RESOURCE_RULES,
      ...SPEC_SHM_RULES,
      ...SPEC_SCRIPT_RULES,
      ...SPEC_SERVICE_RULES,
      RESTFUL_COMMAND_RULE,
      RESTFUL_JOINS_RULE,
      RESTFUL_PORT_RULE,
      RESTFUL_USERNAME_RULE,
      restfulRootJobsRule(CEL_SERVES_V1ALPHA2),
      ...RESTFUL_STARTS_AS_ROOT_RULES,
    ),
  },
);

export const MiniClusterStatusSchema = Type.Object(
  {
    ...StatusFieldsSchema.properties,
    jobid: Type.Optional(
      Type.String({
        description: "The Go operator's job id field; kept as it is written, unused here.",
        maxLength: 253,
      }),
    ),
  },
  { description: 'Observed state of the MiniCluster, written by the operator.', additionalProperties: false },
);

export const MiniClusterSchema = Type.Object(
  {
    apiVersion: Type.Literal(API_VERSION, { description: 'API version of the object.' }),
    kind: Type.Literal(KIND, { description: 'Kind of the object.' }),
    metadata: ObjectMetaSchema,
    spec: MiniClusterSpecSchema,
    status: Type.Optional(MiniClusterStatusSchema),
  },
  {
    description:
      'A MiniCluster is one Flux instance: an indexed Job of pods, one broker each, wired together over a headless Service; Flux comes from a view an init container copies beside the application.',
    ...celRules(...ROOT_RULES, ...ROOT_HOST_NAME_RULES, {
      rule: `!self.spec.containers.exists(container, !has(container.name) && ${celRunsFlux('self.spec', 'container')}) || self.metadata.name != ${CEL_VIEW_NAME.replaceAll('self.flux', 'self.spec.flux')}`,
      message: `metadata.name names the unnamed Flux container, and ${VIEW_NAME_MESSAGE}`,
      fieldPath: '.spec.containers',
      reason: 'FieldValueDuplicate',
    }),
  },
);

export type MiniCluster = Static<typeof MiniClusterSchema>;
export type MiniClusterSpec = Static<typeof MiniClusterSpecSchema>;
export type MiniClusterStatus = Static<typeof MiniClusterStatusSchema>;
export type Container = Static<typeof ContainerSchema>;
export type ServiceContainer = Static<typeof ServiceContainerSchema>;
export type FluxSpec = Static<typeof FluxSchema>;

/** The spec after `applyDefaults`: every field with a default (static or derived) is present. */
export type DefaultedMiniClusterSpec = Defaulted<typeof MiniClusterSpecSchema>;
export type DefaultedContainer = DefaultedMiniClusterSpec['containers'][number];
export type DefaultedContainerVolume = NonNullable<DefaultedContainer['volumes']>[string];
export type DefaultedServiceContainer = NonNullable<DefaultedMiniClusterSpec['services']>[number];
export type DefaultedFluxSpec = DefaultedMiniClusterSpec['flux'];
export type DefaultedBurstPolicy = NonNullable<NonNullable<DefaultedFluxSpec['bursting']>['policy']>;
export type DefaultedMiniCluster = Omit<MiniCluster, 'spec'> & {
  spec: DefaultedMiniClusterSpec;
};
