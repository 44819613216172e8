/**
 * Schema of `spec.containers[]` and `spec.services[]` in v1alpha2: the Go operator's
 * MiniClusterContainer (one type for both), with this operator's own container fields kept
 * (fluxUser, cores, commands.runFluxAsRoot). Services refuse the fields that only mean something to
 * the Flux container, as in v1alpha1.
 */
import { Type } from '@sinclair/typebox';
import {
  CommandsSchema,
  CONTAINER_MODE_RULES,
  ENVIRONMENT_PROPERTIES,
  FluxUserSchema,
  IMAGE_PULL_PROPERTIES,
  LifeCycleSchema,
  ResourcesSchema,
} from '../container-schema.ts';
import { MAX_PORTS_PER_CONTAINER, SCRIPT_MAX_LENGTH, SHORT_STRING_MAX_LENGTH } from '../limits.ts';
import { SECRET_ENVIRONMENT_RULES } from '../pod-cel.ts';
import {
  IMAGE_PATTERN,
  NO_NUL_PATTERN,
  absolutePath,
  boundedString,
  celRules,
  derivedDefault,
  dns1123Label,
  stringEnum,
  withDefault,
} from '../schema-helpers.ts';
import type { CelRule } from '../schema-helpers.ts';
import { CONTAINER_SCRIPT_RULES } from '../script-cel.ts';
import { fluxOnlyServiceMessage } from '../service-schema.ts';
import { SecurityContextSchema } from './kube-schemas.ts';
import { DEFAULT_APPLICATION_IMAGE } from './version.ts';
import { CONTAINER_VOLUME_PATH_RULE } from './volume-cel.ts';
import { containerVolumeMap } from './volume-schema.ts';

export const CommandsV1alpha2Schema = Type.Object(
  {
    ...CommandsSchema.properties,
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

function image(description: string) {
  return Type.String({
    description,
    minLength: 1,
    maxLength: SHORT_STRING_MAX_LENGTH,
    pattern: IMAGE_PATTERN,
  });
}

const PORTS = Type.Optional(
  Type.Array(Type.Integer({ description: 'A TCP port.', minimum: 1, maximum: 65535 }), {
    description: 'Container ports to expose.',
    maxItems: MAX_PORTS_PER_CONTAINER,
    'x-kubernetes-list-type': 'set',
  }),
);

const IMAGE_PULL_POLICY = Type.Optional(
  stringEnum(['Always', 'IfNotPresent', 'Never'], 'The pull policy of the image; with pullAlways: Always.'),
);

export const ContainerV1alpha2Schema = Type.Object(
  {
    name: derivedDefault(
      dns1123Label(
        'Container name, unique in the pod. Required for containers that do not run Flux; the Flux container defaults to the MiniCluster name.',
      ),
    ),
    image: withDefault(
      image(
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
    ...ENVIRONMENT_PROPERTIES,
    ports: PORTS,
    resources: Type.Optional(ResourcesSchema),
    runFlux: derivedDefault(
      Type.Boolean({
        description:
          'This container runs Flux. Exactly one container must when there are several; a single container always does.',
      }),
    ),
    fluxUser: withDefault(FluxUserSchema, {}),
    cores: Type.Optional(
      Type.Integer({
        description:
          'Cores per pod Flux may use; lets the operator write R itself. Unset: detected in the pod.',
        minimum: 1,
        maximum: 65536,
      }),
    ),
    ...IMAGE_PULL_PROPERTIES,
    imagePullPolicy: IMAGE_PULL_POLICY,
    launcher: withDefault(
      Type.Boolean({
        description:
          'The command is given to `flux start` itself instead of `flux submit`, so it can submit its own jobs.',
      }),
      false,
    ),
    batch: withDefault(
      Type.Boolean({ description: 'The command is a batch script: each line is submitted as its own job.' }),
      false,
    ),
    batchRaw: withDefault(
      Type.Boolean({
        description: 'With batch: the script lines are run as written, not wrapped in `flux submit`.',
      }),
      false,
    ),
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
    commands: withDefault(CommandsV1alpha2Schema, {}),
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
export const FLUX_ONLY_SERVICE_FIELDS_V1ALPHA2 = [
  'runFlux',
  'fluxUser',
  'cores',
  'launcher',
  'batch',
  'batchRaw',
  'commands',
  'logs',
  'noWrapEntrypoint',
] as const;

/** Booleans among them: `false` says nothing and is accepted. */
const FLUX_ONLY_BOOLEANS: readonly string[] = [
  'runFlux',
  'launcher',
  'batch',
  'batchRaw',
  'noWrapEntrypoint',
];

const REFUSED = { description: 'Refused: a Flux container field; services run without Flux.' };

export const ServiceV1alpha2Schema = Type.Object(
  {
    name: dns1123Label('Container name, unique among the services.'),
    image: withDefault(image('Container image of the service.'), DEFAULT_APPLICATION_IMAGE),
    command: Type.Optional(
      boundedString(
        "Shell command the service runs (`/bin/sh -c`). Unset: the image's own entrypoint.",
        SCRIPT_MAX_LENGTH,
      ),
    ),
    ...ENVIRONMENT_PROPERTIES,
    ports: PORTS,
    resources: Type.Optional(ResourcesSchema),
    ...IMAGE_PULL_PROPERTIES,
    imagePullPolicy: IMAGE_PULL_POLICY,
    volumes: Type.Optional(containerVolumeMap('Volumes to mount, by volume name (a DNS label).')),
    lifeCycle: Type.Optional(LifeCycleSchema),
    securityContext: Type.Optional(SecurityContextSchema),
    runFlux: Type.Optional(Type.Boolean(REFUSED)),
    fluxUser: Type.Optional(Type.Object({}, { ...REFUSED, 'x-kubernetes-preserve-unknown-fields': true })),
    cores: Type.Optional(Type.Integer({ ...REFUSED, minimum: 0, maximum: 65536 })),
    launcher: Type.Optional(Type.Boolean(REFUSED)),
    batch: Type.Optional(Type.Boolean(REFUSED)),
    batchRaw: Type.Optional(Type.Boolean(REFUSED)),
    commands: Type.Optional(Type.Object({}, { ...REFUSED, 'x-kubernetes-preserve-unknown-fields': true })),
    logs: Type.Optional(
      Type.String({ ...REFUSED, maxLength: SHORT_STRING_MAX_LENGTH, pattern: NO_NUL_PATTERN }),
    ),
    noWrapEntrypoint: Type.Optional(Type.Boolean(REFUSED)),
  },
  {
    description:
      "A service container: runs in the MiniCluster's services pod, reachable by name from the brokers and their jobs.",
    additionalProperties: false,
    ...celRules(
      ...SECRET_ENVIRONMENT_RULES,
      CONTAINER_VOLUME_PATH_RULE,
      ...FLUX_ONLY_SERVICE_FIELDS_V1ALPHA2.map((field): CelRule => ({
        rule: FLUX_ONLY_BOOLEANS.includes(field)
          ? `!has(self.${field}) || !self.${field}`
          : `!has(self.${field})`,
        message: `${field} ${fluxOnlyServiceMessage(field)}`,
        fieldPath: `.${field}`,
        reason: 'FieldValueForbidden',
      })),
    ),
  },
);
