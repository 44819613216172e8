/**
 * Schema of `spec.flux` in v1alpha2: the Go operator's FluxV1alpha1Spec (with `container`, the Flux view)
 * and this operator's own Flux fields (installRoot, curveCertSecret, bursting's slot, policy and
 * expose, bootServer), with v1alpha1's rules.
 */
import { Type } from '@sinclair/typebox';
import { ENVIRONMENT_RULES } from './shared/pod-cel.ts';
import { BaseFluxSchema, QUEUE_POLICIES } from './shared/flux-fields.ts';
import { IMAGE_PULL_PROPERTIES, ResourcesSchema } from './shared/container-fields.ts';
import { SHORT_STRING_MAX_LENGTH } from './shared/limits.ts';
import {
  NO_NUL_PATTERN,
  absolutePath,
  celRules,
  derivedDefault,
  dns1123Label,
  imageReference,
  stringEnum,
  stringMap,
  withDefault,
} from './shared/schema-helpers.ts';
import type { CelRule } from './shared/schema-helpers.ts';
import { LEFT_OUT_FLUX_FIELDS, celLeftOut } from './shared/left-out.ts';
import { SecurityContextSchema } from './shared/kube-schemas.ts';
import {
  DEFAULT_FLUX_VIEW_IMAGE,
  DEFAULT_FLUX_VIEW_MOUNT_PATH,
  DEFAULT_FLUX_VIEW_NAME,
  DEFAULT_QUEUE_POLICY,
  FLUX_VIEW_MEMORY_MEDIUM,
} from './go-defaults.ts';

/** Environment values of the view's environment file: small, like a container's. */
const ENVIRONMENT_VALUE_MAX_LENGTH = 32768;

export const FluxContainerSchema = Type.Object(
  {
    disable: withDefault(
      Type.Boolean({
        description:
          "The application image has Flux itself (at flux.installRoot): Flux is not run from the view. The init container still writes Flux's configuration.",
      }),
      false,
    ),
    name: withDefault(
      dns1123Label('Name of the init container that copies the Flux view.'),
      DEFAULT_FLUX_VIEW_NAME,
    ),
    workingDir: Type.Optional(absolutePath('Working directory of the init container.')),
    pythonPath: Type.Optional(
      Type.String({
        description:
          "PYTHONPATH for Flux's Python bindings in the application container. Unset: the view's own.",
        maxLength: SHORT_STRING_MAX_LENGTH,
        pattern: NO_NUL_PATTERN,
      }),
    ),
    resources: Type.Optional(ResourcesSchema),
    imagePullSecret: IMAGE_PULL_PROPERTIES.imagePullSecret,
    image: derivedDefault(
      imageReference(
        `Image of the Flux view, copied into the volume shared with the application container by the image's /bin/sh: this operator's layout (/usr/local/bin/flux-view-copy) or the Go operator's (a Spack view under /opt/views/._view with /opt/software). Default: the operator's setting (flux-operator run --flux-view-image), itself ${DEFAULT_FLUX_VIEW_IMAGE} unless set.`,
      ),
    ),
    pullAlways: IMAGE_PULL_PROPERTIES.pullAlways,
    securityContext: Type.Optional(SecurityContextSchema),
    mountPath: withDefault(
      absolutePath('Where the Flux view is mounted, in the init and the application containers.'),
      DEFAULT_FLUX_VIEW_MOUNT_PATH,
    ),
    medium: Type.Optional(
      stringEnum(
        [FLUX_VIEW_MEMORY_MEDIUM],
        `Memory: the view (and a Spack view's /opt/software) is copied into a memory-backed emptyDir of its own, mounted at <mountPath>/view (and <mountPath>/software). Pods start sooner where the node's disk is slow or shared (no copy to write back), and the view's size (about 125 MiB for this operator's) counts toward the pod's memory, limits included. Unset: the node's disk, like the rest of the shared volume. This operator's field; the Go operator has none.`,
      ),
    ),
  },
  {
    description:
      'The Flux view: an init container copies Flux into a volume the application container runs the brokers from, so the application image needs no Flux.',
    additionalProperties: false,
  },
);

export const SchedulerSchema = Type.Object(
  {
    queuePolicy: Type.Optional(
      stringEnum([...QUEUE_POLICIES], `Fluxion's queue policy. Unset: ${DEFAULT_QUEUE_POLICY}.`),
    ),
    simple: Type.Optional(
      Type.Boolean({ description: "Schedule with flux-core's sched-simple instead of Fluxion (no GPUs)." }),
    ),
  },
  {
    description: 'Options of the scheduler.',
    additionalProperties: false,
    ...celRules({
      rule: `!has(self.simple) || !self.simple || !has(self.queuePolicy) || self.queuePolicy == '${DEFAULT_QUEUE_POLICY}'`,
      message: `queuePolicy is Fluxion's, and simple: true schedules with sched-simple (first come, first served); remove queuePolicy or simple`,
      fieldPath: '.queuePolicy',
      reason: 'FieldValueForbidden',
    }),
  },
);

const BASE_FLUX_RULES = (BaseFluxSchema as unknown as { 'x-kubernetes-validations': CelRule[] })[
  'x-kubernetes-validations'
];

export const FluxSchema = Type.Object(
  {
    ...BaseFluxSchema.properties,
    container: derivedDefault(FluxContainerSchema),
    arch: Type.Optional(
      Type.String({
        description:
          'Not supported (a v1alpha2 field of the Go Flux Operator its operator never read); refused.',
        maxLength: 64,
        pattern: NO_NUL_PATTERN,
      }),
    ),
    disableSocket: Type.Optional(
      Type.Boolean({
        description:
          "The brokers get no local URI of the operator's choosing (-Slocal-uri): Flux's default socket.",
      }),
    ),
    noWaitSocket: Type.Optional(
      Type.Boolean({
        description:
          "Containers beside the Flux container start their command without waiting for Flux's socket.",
      }),
    ),
    completeWorkers: Type.Optional(
      Type.Boolean({
        description: 'A worker broker that fails ends its pod instead of starting again (it completes).',
      }),
    ),
    environment: Type.Optional(
      stringMap(
        'Environment of the Flux view: variables written to its environment file, which the containers source.',
        { maxLength: ENVIRONMENT_VALUE_MAX_LENGTH, pattern: NO_NUL_PATTERN },
        ...ENVIRONMENT_RULES,
      ),
    ),
    scheduler: Type.Optional(SchedulerSchema),
  },
  {
    description: 'Options of the Flux instance, shared by every broker.',
    additionalProperties: false,
    ...celRules(...BASE_FLUX_RULES, ...celLeftOut(LEFT_OUT_FLUX_FIELDS)),
  },
);
