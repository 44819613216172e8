/**
 * Schema of `spec.containers[]` and `spec.services[]` in v1alpha2: the Go operator's
 * MiniClusterContainer (one type for both), with this operator's own container fields kept
 * (fluxUser, cores, commands.runFluxAsRoot). Services refuse the fields that only mean something to
 * the Flux container, as in v1alpha1.
 */
import { Type } from '@sinclair/typebox';
import {
  CONTAINER_MODE_PROPERTIES,
  CONTAINER_MODE_RULES,
  CONTAINER_PORTS,
  BaseCommandsSchema,
  BROKER_CONTAINER_PROPERTIES,
  ENVIRONMENT_PROPERTIES,
  IMAGE_PULL_PROPERTIES,
  LifeCycleSchema,
  ResourcesSchema,
} from './shared/container-fields.ts';
import { SCRIPT_MAX_LENGTH } from './shared/limits.ts';
import { SECRET_ENVIRONMENT_RULES } from './shared/pod-cel.ts';
import {
  absolutePath,
  boundedString,
  celRules,
  derivedDefault,
  dns1123Label,
  imageReference,
  stringEnum,
  withDefault,
} from './shared/schema-helpers.ts';
import { CONTAINER_SCRIPT_RULES } from './shared/script-cel.ts';
import {
  FLUX_ONLY_FIELDS,
  REFUSED_FLUX_PROPERTIES,
  fluxOnlyServiceRules,
  refusedBoolean,
} from './shared/service-fields.ts';
import { SecurityContextSchema } from './shared/kube-schemas.ts';
import { DEFAULT_APPLICATION_IMAGE } from './go-defaults.ts';
import { CONTAINER_VOLUME_PATH_RULE } from './volume-cel.ts';
import { containerVolumeMap } from './volume-schema.ts';

export const CommandsSchema = Type.Object(
  {
    ...BaseCommandsSchema.properties,
    script: Type.Optional(
      boundedString(
        'A script run in place of the command: the Flux container submits it as its job, another container runs it before its command.',
        SCRIPT_MAX_LENGTH,
      ),
    ),
    servicePre: Type.Optional(
      boundedString(
        'Shell run first in a container that does not run Flux, once the Flux view is there, before its command.',
        SCRIPT_MAX_LENGTH,
      ),
    ),
  },
  { description: 'Shell snippets added to the generated entrypoint.', additionalProperties: false },
);

const IMAGE_PULL_POLICY = Type.Optional(
  stringEnum(['Always', 'IfNotPresent', 'Never'], 'The pull policy of the image; with pullAlways: Always.'),
);

export const ContainerSchema = Type.Object(
  {
    name: derivedDefault(
      dns1123Label(
        'Container name, unique in the pod. Required for containers that do not run Flux; the Flux container defaults to the MiniCluster name.',
      ),
    ),
    image: withDefault(
      imageReference(
        'Container image. With the Flux view (the default), any image: Flux comes from the view. With flux.container.disable, the image of the Flux container must contain flux-core.',
      ),
      DEFAULT_APPLICATION_IMAGE,
    ),
    command: Type.Optional(
      boundedString(
        'Flux container: the job the lead broker runs (submitted with `flux submit`, or handed to `flux start` with launcher). Unset: Flux waits for jobs. Other containers: their command.',
        SCRIPT_MAX_LENGTH,
      ),
    ),
    ...BROKER_CONTAINER_PROPERTIES,
    imagePullPolicy: IMAGE_PULL_POLICY,
    ...CONTAINER_MODE_PROPERTIES,
    logs: Type.Optional(
      absolutePath(
        "With batch: the directory the jobs' output and errors go to (job-<n>.out). Unset: /tmp/fluxout.",
      ),
    ),
    noWrapEntrypoint: Type.Optional(
      Type.Boolean({
        description:
          "A container that does not run Flux runs its image's own entrypoint, not wrapped in a script that waits for Flux and puts the view on its PATH. Unset: false.",
      }),
    ),
    volumes: Type.Optional(containerVolumeMap('Volumes to mount, by volume name (a DNS label).')),
    commands: withDefault(CommandsSchema, {}),
    lifeCycle: Type.Optional(LifeCycleSchema),
    securityContext: Type.Optional(SecurityContextSchema),
  },
  {
    description: 'A container of every MiniCluster pod.',
    additionalProperties: false,
    ...celRules(
      ...CONTAINER_MODE_RULES,
      ...SECRET_ENVIRONMENT_RULES,
      CONTAINER_VOLUME_PATH_RULE,
      ...CONTAINER_SCRIPT_RULES,
    ),
  },
);

/** Fields of a container that only the Flux container (or a container beside it) uses; a service has none. */
export const FLUX_ONLY_SERVICE_FIELDS_V1ALPHA2 = [...FLUX_ONLY_FIELDS, 'noWrapEntrypoint'] as const;

export const ServiceContainerSchema = Type.Object(
  {
    name: dns1123Label('Container name, unique among the services.'),
    image: withDefault(imageReference('Container image of the service.'), DEFAULT_APPLICATION_IMAGE),
    command: Type.Optional(
      boundedString(
        "Shell command the service runs (`/bin/sh -c`). Unset: the image's own entrypoint.",
        SCRIPT_MAX_LENGTH,
      ),
    ),
    ...ENVIRONMENT_PROPERTIES,
    ports: CONTAINER_PORTS,
    resources: Type.Optional(ResourcesSchema),
    ...IMAGE_PULL_PROPERTIES,
    imagePullPolicy: IMAGE_PULL_POLICY,
    volumes: Type.Optional(containerVolumeMap('Volumes to mount, by volume name (a DNS label).')),
    lifeCycle: Type.Optional(LifeCycleSchema),
    securityContext: Type.Optional(SecurityContextSchema),
    ...REFUSED_FLUX_PROPERTIES,
    noWrapEntrypoint: refusedBoolean(),
  },
  {
    description:
      "A service container: runs in the MiniCluster's services pod, reachable by name from the brokers and their jobs.",
    additionalProperties: false,
    ...celRules(
      ...SECRET_ENVIRONMENT_RULES,
      CONTAINER_VOLUME_PATH_RULE,
      ...fluxOnlyServiceRules(FLUX_ONLY_SERVICE_FIELDS_V1ALPHA2, ['noWrapEntrypoint']),
    ),
  },
);
