/**
 * v1alpha1's containers: the Flux container and those beside it, and the containers of the services
 * pod, from the container fields both versions share (../shared/container-fields.ts) and v1alpha1's
 * own (existingVolumes, addCapabilities, the left-out Go fields).
 */
import { Type } from '@sinclair/typebox';
import {
  CONTAINER_MODE_PROPERTIES,
  CONTAINER_MODE_RULES,
  BaseCommandsSchema,
  BROKER_CONTAINER_PROPERTIES,
  ENVIRONMENT_PROPERTIES,
  IMAGE_PULL_PROPERTIES,
  LifeCycleSchema,
  ResourcesSchema,
  SecurityContextSchema,
  volumeMap,
} from '../shared/container-fields.ts';
import { CONTAINER_LEFT_OUT_RULES, LEFT_OUT_CONTAINER_PROPERTIES } from '../shared/left-out-fields.ts';
import { MAX_PORTS_PER_CONTAINER, SCRIPT_MAX_LENGTH } from '../shared/limits.ts';
import { SECRET_ENVIRONMENT_RULES } from '../shared/pod-cel.ts';
import {
  boundedString,
  celRules,
  derivedDefault,
  dns1123Label,
  imageReference,
  withDefault,
} from '../shared/schema-helpers.ts';
import { CONTAINER_SCRIPT_RULES } from '../shared/script-cel.ts';
import {
  FLUX_ONLY_SERVICE_FIELDS,
  REFUSED_FLUX_PROPERTIES,
  fluxOnlyServiceRules,
  refusedBoolean,
} from '../shared/service-fields.ts';
import { EXISTING_VOLUME_SOURCE_RULE } from '../shared/storage-cel.ts';
import { CONTAINER_VOLUME_RULES } from '../shared/volume-cel.ts';

export const ContainerV1alpha1Schema = Type.Object(
  {
    name: derivedDefault(
      dns1123Label(
        'Container name, unique in the pod. Required for containers that do not run Flux; the Flux container defaults to the MiniCluster name.',
      ),
    ),
    image: imageReference(
      "Container image. The Flux container's image must contain flux-core (and flux-sched for Fluxion).",
    ),
    command: Type.Optional(
      boundedString(
        'Flux container: the job the lead broker runs (submitted with `flux submit`, or handed to `flux start` with launcher). Unset with interactive: Flux waits for jobs. Other containers: their command.',
        SCRIPT_MAX_LENGTH,
      ),
    ),
    ...BROKER_CONTAINER_PROPERTIES,
    ...CONTAINER_MODE_PROPERTIES,
    volumes: Type.Optional(
      volumeMap(
        'Volumes to mount, by volume name (a DNS label). An entry without a source mounts the spec.volumes entry of that name.',
      ),
    ),
    existingVolumes: Type.Optional(
      volumeMap('Same as volumes; kept so Flux Operator v1alpha1 manifests apply unchanged.'),
    ),
    commands: withDefault(BaseCommandsSchema, {}),
    lifeCycle: Type.Optional(LifeCycleSchema),
    securityContext: Type.Optional(SecurityContextSchema),
    ...LEFT_OUT_CONTAINER_PROPERTIES,
  },
  {
    description: 'A container of every MiniCluster pod.',
    additionalProperties: false,
    ...celRules(
      ...CONTAINER_MODE_RULES,
      {
        rule: '!has(self.volumes) || !has(self.existingVolumes) || self.volumes.all(name, !(name in self.existingVolumes))',
        message: 'a volume name appears in both volumes and existingVolumes; keep each name in one of them',
        fieldPath: '.existingVolumes',
        reason: 'FieldValueDuplicate',
      },
      EXISTING_VOLUME_SOURCE_RULE,
      ...SECRET_ENVIRONMENT_RULES,
      ...CONTAINER_VOLUME_RULES,
      ...CONTAINER_SCRIPT_RULES,
      ...CONTAINER_LEFT_OUT_RULES,
    ),
  },
);

export const ServiceContainerV1alpha1Schema = Type.Object(
  {
    name: dns1123Label('Container name, unique among the services.'),
    image: imageReference('Container image of the service.'),
    command: Type.Optional(
      boundedString(
        "Shell command the service runs (`/bin/sh -c`). Unset: the image's own entrypoint, as in v1alpha1.",
        SCRIPT_MAX_LENGTH,
      ),
    ),
    ...ENVIRONMENT_PROPERTIES,
    ports: Type.Optional(
      Type.Array(Type.Integer({ description: 'A TCP port.', minimum: 1, maximum: 65535 }), {
        description: 'Container ports the service listens on (documentation; any port is reachable).',
        maxItems: MAX_PORTS_PER_CONTAINER,
        'x-kubernetes-list-type': 'set',
      }),
    ),
    resources: Type.Optional(ResourcesSchema),
    ...IMAGE_PULL_PROPERTIES,
    volumes: Type.Optional(volumeMap('Volumes to mount, by volume name (a DNS label).')),
    existingVolumes: Type.Optional(
      volumeMap('Same as volumes; kept so Flux Operator v1alpha1 manifests apply unchanged.'),
    ),
    lifeCycle: Type.Optional(LifeCycleSchema),
    securityContext: Type.Optional(SecurityContextSchema),
    ...REFUSED_FLUX_PROPERTIES,
    diagnostics: refusedBoolean(),
  },
  {
    description:
      "A service container (v1alpha1): runs in the MiniCluster's services pod, reachable by name from the brokers and their jobs.",
    additionalProperties: false,
    ...celRules(
      ...SECRET_ENVIRONMENT_RULES,
      ...CONTAINER_VOLUME_RULES,
      EXISTING_VOLUME_SOURCE_RULE,
      ...fluxOnlyServiceRules(FLUX_ONLY_SERVICE_FIELDS, ['diagnostics']),
    ),
  },
);
