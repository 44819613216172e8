/**
 * The container fields both versions build `spec.containers[]` from (the containers of every
 * MiniCluster pod, one of which runs Flux): each version's container schema assembles them
 * (v1alpha1/container-schema.ts, ../container-schema.ts).
 */
import { Type } from '@sinclair/typebox';
import {
  DNS_SUBDOMAIN_MAX_LENGTH,
  MAX_CAPABILITIES,
  MAX_MAP_ENTRIES,
  MAX_PORTS_PER_CONTAINER,
  MAX_VOLUMES_PER_CONTAINER,
  SCRIPT_MAX_LENGTH,
  SHORT_STRING_MAX_LENGTH,
  VOLUME_PATH_MAX_LENGTH,
} from './limits.ts';
import { ENVIRONMENT_RULES } from './pod-cel.ts';
import { CONTAINER_RESOURCES_RULES, CONTAINER_RESOURCE_MAP_RULES } from './resource-cel.ts';
import {
  ABSOLUTE_PATH_PATTERN,
  HOST_PATH_PATTERN,
  ITEM_PATH_PATTERN,
  NO_NUL_PATTERN,
  SECRET_KEY_PATTERN,
  absolutePath,
  boundedString,
  celRules,
  derivedDefault,
  objectName,
  quantity,
  quantityMap,
  stringEnum,
  stringMap,
  withDefault,
} from './schema-helpers.ts';
import type { CelRule } from './schema-helpers.ts';
import { VOLUME_ITEMS_RULES, VOLUME_MAP_RULES } from './volume-cel.ts';

/** Environment values may hold small documents; a bound keeps the pod spec within limits. */
const ENVIRONMENT_VALUE_MAX_LENGTH = 32768;
/** Linux user names: at most 32 characters (useradd). */
const USER_NAME_MAX_LENGTH = 32;
const MAX_UID = 2147483647;

/** The fields of a container's volume that v1alpha2's volumes have as they are (in another order). */
export const VOLUME_PROPERTIES = {
  readOnly: withDefault(Type.Boolean({ description: 'Mount the volume read-only.' }), false),
  configMapName: Type.Optional(objectName('Mount this existing ConfigMap (same namespace).')),
  secretName: Type.Optional(objectName('Mount this existing Secret (same namespace).')),
  claimName: Type.Optional(objectName('Mount this existing PersistentVolumeClaim (same namespace).')),
  hostPath: Type.Optional(
    Type.String({
      description: "Mount this directory of the node's file system (an absolute path without `..`).",
      minLength: 1,
      maxLength: VOLUME_PATH_MAX_LENGTH,
      pattern: HOST_PATH_PATTERN,
    }),
  ),
  emptyDirSizeLimit: Type.Optional(quantity('Size limit of the emptyDir, e.g. 1Gi.')),
  items: Type.Optional(
    stringMap(
      'For configMapName or secretName: only these keys, each mounted at the given path relative to `path` (no `..`). Unset: every key, as a file named after the key.',
      { minLength: 1, maxLength: SHORT_STRING_MAX_LENGTH, pattern: ITEM_PATH_PATTERN },
      ...VOLUME_ITEMS_RULES,
    ),
  ),
};

/** On a volume: items only with a ConfigMap or Secret (v1alpha2 too). */
export const VOLUME_ITEMS_SOURCE_RULE: CelRule = {
  rule: '!has(self.items) || has(self.configMapName) || has(self.secretName)',
  message: 'items applies to configMapName or secretName volumes only; remove items',
  fieldPath: '.items',
  reason: 'FieldValueForbidden',
};

/** On a volume: the emptyDir settings only with emptyDir: true (v1alpha2 too). */
export const EMPTY_DIR_FIELDS_RULE: CelRule = {
  rule: '(!has(self.emptyDirMedium) && !has(self.emptyDirSizeLimit)) || (has(self.emptyDir) && self.emptyDir)',
  message: 'emptyDirMedium and emptyDirSizeLimit apply to emptyDir: true volumes only',
  reason: 'FieldValueForbidden',
};

export const VolumeSchema = Type.Object(
  {
    path: Type.String({
      description: 'Where the volume is mounted in the container (an absolute path).',
      minLength: 1,
      maxLength: VOLUME_PATH_MAX_LENGTH,
      pattern: ABSOLUTE_PATH_PATTERN,
    }),
    readOnly: VOLUME_PROPERTIES.readOnly,
    configMapName: VOLUME_PROPERTIES.configMapName,
    secretName: VOLUME_PROPERTIES.secretName,
    claimName: VOLUME_PROPERTIES.claimName,
    hostPath: VOLUME_PROPERTIES.hostPath,
    emptyDir: Type.Optional(
      Type.Boolean({ description: 'Mount an empty directory that lives as long as the pod.' }),
    ),
    emptyDirMedium: Type.Optional(
      stringEnum(
        ['Memory', 'HugePages'],
        "Storage medium of the emptyDir: Memory (tmpfs) or HugePages. Unset: the node's disk.",
      ),
    ),
    emptyDirSizeLimit: VOLUME_PROPERTIES.emptyDirSizeLimit,
    items: VOLUME_PROPERTIES.items,
  },
  {
    description:
      'A volume mounted into the container. One source: configMapName, secretName, claimName, hostPath or emptyDir: true; or, in `volumes`, none: then the name is that of a spec.volumes entry (storage the operator provisions) to mount here.',
    additionalProperties: false,
    ...celRules(
      {
        rule: '[has(self.configMapName), has(self.secretName), has(self.claimName), has(self.hostPath), has(self.emptyDir) && self.emptyDir].filter(source, source).size() <= 1',
        message:
          'a volume has several sources; keep one of configMapName, secretName, claimName, hostPath or emptyDir: true',
        reason: 'FieldValueInvalid',
      },
      VOLUME_ITEMS_SOURCE_RULE,
      EMPTY_DIR_FIELDS_RULE,
    ),
  },
);

export const SecretKeyRefSchema = Type.Object(
  {
    name: objectName('Name of an existing Secret (same namespace).'),
    key: Type.String({
      description: 'Key of that Secret whose value the variable takes.',
      minLength: 1,
      maxLength: DNS_SUBDOMAIN_MAX_LENGTH,
      pattern: SECRET_KEY_PATTERN,
    }),
  },
  {
    description: 'A key of an existing Secret; the pod does not start until the Secret and the key exist.',
    additionalProperties: false,
  },
);

export function volumeMap(description: string) {
  return Type.Record(Type.String(), VolumeSchema, {
    description,
    maxProperties: MAX_VOLUMES_PER_CONTAINER,
    ...celRules(...VOLUME_MAP_RULES),
  });
}

export const FluxUserSchema = Type.Object(
  {
    name: withDefault(
      Type.String({
        description: 'Name of the user that runs the Flux brokers (created if the image lacks it).',
        minLength: 1,
        maxLength: USER_NAME_MAX_LENGTH,
        pattern: '^[a-z_][a-z0-9_-]*$',
      }),
      'flux',
    ),
    uid: withDefault(Type.Integer({ description: 'UID of that user.', minimum: 0, maximum: MAX_UID }), 1000),
  },
  { description: 'The user that runs Flux in the Flux container.', additionalProperties: false },
);

/** The commands both versions have: v1alpha1's are these, the hub's add its own (commands.script). */
export const BaseCommandsSchema = Type.Object(
  {
    init: Type.Optional(
      boundedString('Shell run first in the entrypoint, before anything else.', SCRIPT_MAX_LENGTH),
    ),
    pre: Type.Optional(
      boundedString(
        'Shell run on every pod after the Flux user and directories are set up, before Flux starts.',
        SCRIPT_MAX_LENGTH,
      ),
    ),
    brokerPre: Type.Optional(
      boundedString(
        'Shell run before Flux starts, on the lead broker (pod index 0) only.',
        SCRIPT_MAX_LENGTH,
      ),
    ),
    workerPre: Type.Optional(
      boundedString('Shell run before Flux starts, on the worker pods (index > 0) only.', SCRIPT_MAX_LENGTH),
    ),
    post: Type.Optional(boundedString('Shell run after the broker exits.', SCRIPT_MAX_LENGTH)),
    prefix: Type.Optional(
      boundedString(
        'Shell words put before `flux start` on every pod, run as the Flux user, e.g. a wrapper that sets up mounts; not repeated before `flux submit` (jobs run inside that broker).',
        SHORT_STRING_MAX_LENGTH,
      ),
    ),
    runFluxAsRoot: withDefault(
      Type.Boolean({
        description: 'Run `flux start` as root instead of the Flux user (some storage binds need it).',
      }),
      false,
    ),
  },
  { description: 'Shell snippets added to the generated entrypoint.', additionalProperties: false },
);

export const LifeCycleSchema = Type.Object(
  {
    postStartExec: Type.Optional(
      boundedString('Command run by the kubelet right after the container starts.', SCRIPT_MAX_LENGTH),
    ),
    preStopExec: Type.Optional(
      boundedString('Command run by the kubelet before the container is stopped.', SCRIPT_MAX_LENGTH),
    ),
  },
  { description: 'Container lifecycle hooks.', additionalProperties: false },
);

export const SecurityContextSchema = Type.Object(
  {
    privileged: withDefault(Type.Boolean({ description: 'Run the container privileged.' }), false),
    addCapabilities: Type.Optional(
      Type.Array(
        Type.String({
          description: 'A Linux capability, e.g. SYS_ADMIN.',
          maxLength: 64,
          pattern: '^[A-Z][A-Z0-9_]*$',
        }),
        {
          description: 'Linux capabilities added to the container.',
          maxItems: MAX_CAPABILITIES,
          'x-kubernetes-list-type': 'set',
        },
      ),
    ),
  },
  { description: 'Security settings of the container.', additionalProperties: false },
);

export const ResourcesSchema = Type.Object(
  {
    limits: Type.Optional(
      quantityMap('Most of each resource the container may use.', ...CONTAINER_RESOURCE_MAP_RULES),
    ),
    requests: Type.Optional(
      quantityMap('Resources reserved for the container when scheduling.', ...CONTAINER_RESOURCE_MAP_RULES),
    ),
  },
  {
    description:
      'Compute resources of the container: cpu, memory, ephemeral-storage, hugepages-<size> or extended resources such as nvidia.com/gpu.',
    additionalProperties: false,
    ...celRules(...CONTAINER_RESOURCES_RULES),
  },
);

/** Where a container's command runs and what environment it gets: the same for a service. */
export const ENVIRONMENT_PROPERTIES = {
  workingDir: Type.Optional(absolutePath('Working directory of the command.')),
  environment: Type.Optional(
    stringMap(
      'Environment variables: name to value.',
      { maxLength: ENVIRONMENT_VALUE_MAX_LENGTH, pattern: NO_NUL_PATTERN },
      ...ENVIRONMENT_RULES,
    ),
  ),
  secrets: Type.Optional(
    Type.Record(Type.String(), SecretKeyRefSchema, {
      description:
        'Environment variables from Secret keys: variable name to the Secret and key holding its value (`valueFrom.secretKeyRef`), so credentials stay out of the MiniCluster.',
      maxProperties: MAX_MAP_ENTRIES,
      ...celRules(...ENVIRONMENT_RULES),
    }),
  ),
};

/** How a container's image is pulled: the same for a service. */
export const IMAGE_PULL_PROPERTIES = {
  imagePullSecret: Type.Optional(objectName('Name of an existing image pull Secret for this image.')),
  pullAlways: withDefault(
    Type.Boolean({ description: 'Pull the image on every pod start (imagePullPolicy: Always).' }),
    false,
  ),
};

/** A container's ports: the same in v1alpha2 (and for its services). */
export const CONTAINER_PORTS = Type.Optional(
  Type.Array(Type.Integer({ description: 'A TCP port.', minimum: 1, maximum: 65535 }), {
    description: 'Container ports to expose.',
    maxItems: MAX_PORTS_PER_CONTAINER,
    'x-kubernetes-list-type': 'set',
  }),
);

/** Whether a container runs Flux, as whom and on how many cores: the same in v1alpha2. */
export const RUN_FLUX_PROPERTIES = {
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
};

/** How the Flux container hands its command to Flux (CONTAINER_MODE_RULES): the same in v1alpha2. */
export const CONTAINER_MODE_PROPERTIES = {
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
};

/** A container's modes: launcher and batch exclude each other; batchRaw needs batch. */
export const CONTAINER_MODE_RULES: CelRule[] = [
  {
    rule: '!(has(self.launcher) && self.launcher && has(self.batch) && self.batch)',
    message: 'launcher and batch exclude each other; set only one of them',
    fieldPath: '.launcher',
    reason: 'FieldValueForbidden',
  },
  {
    rule: '!(has(self.batchRaw) && self.batchRaw) || (has(self.batch) && self.batch)',
    message: 'batchRaw needs batch: true; set batch or remove batchRaw',
    fieldPath: '.batchRaw',
    reason: 'FieldValueInvalid',
  },
];

/**
 * The run of fields a broker's container has in both versions, in their order: where its command
 * runs, its ports and resources, whether it runs Flux, and how its image is pulled.
 */
export const BROKER_CONTAINER_PROPERTIES = {
  ...ENVIRONMENT_PROPERTIES,
  ports: CONTAINER_PORTS,
  resources: Type.Optional(ResourcesSchema),
  ...RUN_FLUX_PROPERTIES,
  ...IMAGE_PULL_PROPERTIES,
};
