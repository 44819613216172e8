/**
 * The validator's rules of what v1alpha2 adds or shapes differently, each beside a CEL twin in the
 * schema (volume-cel.ts, kube-schemas.ts, pod-schema.ts, flux-schema.ts, schema.ts, left-out.ts).
 * The rules of the fields v1alpha2 shares with v1alpha1 run on the v1alpha1 form (validate.ts).
 */
import { containerResourceProblems } from './shared/resource-problems.ts';
import { ENVIRONMENT_NAME_PATTERN } from './shared/schema-helpers.ts';
import { fieldPath, indexPath } from './shared/problems.ts';
import type { Problem } from './shared/problems.ts';
import { QUALIFIED_NAME_MESSAGE, isQualifiedName } from './shared/qualified-names.ts';
import { NON_ROOT_START_MESSAGE, joinsAnother, nonRootStarts } from './shared/restful-schema.ts';
import { duplicates } from './shared/rule-helpers.ts';
import { fluxOnlyServiceMessage } from './shared/service-fields.ts';
import { shmSizeProblems } from './shared/shm.ts';
import { storageEntryProblems } from './shared/storage-problems.ts';
import { LEFT_OUT_FLUX_FIELDS, LEFT_OUT_SECURITY_FIELDS, leftOutMessageV1alpha2 } from './shared/left-out.ts';
import type { LeftOutField } from './shared/left-out-fields.ts';
import {
  PRIVILEGE_ESCALATION_MESSAGE,
  SECCOMP_LOCALHOST,
  UNMASKED_PROC_MOUNT_MESSAGE,
} from './shared/kube-schemas.ts';
import { DNS_NONE_MESSAGE, RESTART_ALWAYS_MESSAGE } from './pod-schema.ts';
import type { DefaultedMiniClusterSpec, MiniClusterSpec, MiniClusterStatus } from './schema.ts';
import {
  MIN_SIZE_MESSAGE,
  NO_WRAP_MESSAGE,
  SCRIPT_AND_COMMAND_MESSAGE,
  VIEW_NAME_MESSAGE,
} from './schema.ts';
import { DEFAULT_QUEUE_POLICY } from './go-defaults.ts';
import { volumeProblems } from './volume-rules.ts';

export interface RuleInput {
  name: string;
  given: MiniClusterSpec;
  spec: DefaultedMiniClusterSpec;
  status: MiniClusterStatus | undefined;
}

export interface SemanticRule {
  name: string;
  check: (input: RuleInput) => Problem[];
}

function refusals(path: string, given: object | undefined, fields: Record<string, LeftOutField>): Problem[] {
  if (given === undefined) return [];
  return Object.entries(fields)
    .filter(([name]) => name in given)
    .map(([name, field]) => ({ path: fieldPath(path, name), message: leftOutMessageV1alpha2(field) }));
}

interface SecurityContextView {
  windowsOptions?: object | undefined;
  procMount?: string | undefined;
  allowPrivilegeEscalation?: boolean | undefined;
  privileged?: boolean | undefined;
  capabilities?: { add?: string[] | undefined; drop?: string[] | undefined } | undefined;
  seccompProfile?: { type: string; localhostProfile?: string | undefined } | undefined;
}

/** Every security context of the spec with its field path (containers, services, the view, the pod). */
function securityContexts(spec: DefaultedMiniClusterSpec): { path: string; context: SecurityContextView }[] {
  const found: { path: string; context: SecurityContextView | undefined }[] = [
    ...spec.containers.map((container, index) => ({
      path: `spec.containers[${index}].securityContext`,
      context: container.securityContext,
    })),
    ...(spec.services ?? []).map((service, index) => ({
      path: `spec.services[${index}].securityContext`,
      context: service.securityContext,
    })),
    { path: 'spec.flux.container.securityContext', context: spec.flux.container.securityContext },
    { path: 'spec.pod.securityContext', context: spec.pod?.securityContext },
  ];
  return found.flatMap(({ path, context }) => (context === undefined ? [] : [{ path, context }]));
}

const leftOut: SemanticRule = {
  name: 'v1alpha2 fields that cannot work here are refused by name',
  check: ({ spec }) => [
    ...refusals('spec.flux', spec.flux, LEFT_OUT_FLUX_FIELDS),
    ...securityContexts(spec).flatMap(({ path, context }) =>
      refusals(path, context, LEFT_OUT_SECURITY_FIELDS),
    ),
  ],
};

const securityContextRules: SemanticRule = {
  name: 'security contexts are what Kubernetes takes for these pods',
  check: ({ spec }) =>
    securityContexts(spec).flatMap(({ path, context }) => {
      const problems: Problem[] = [];
      if (context.procMount === 'Unmasked') {
        problems.push({ path: fieldPath(path, 'procMount'), message: UNMASKED_PROC_MOUNT_MESSAGE });
      }
      if (
        context.allowPrivilegeEscalation === false &&
        (context.privileged === true || (context.capabilities?.add ?? []).includes('CAP_SYS_ADMIN'))
      ) {
        problems.push({
          path: fieldPath(path, 'allowPrivilegeEscalation'),
          message: PRIVILEGE_ESCALATION_MESSAGE,
        });
      }
      const seccomp = context.seccompProfile;
      if (
        seccomp !== undefined &&
        (seccomp.type === SECCOMP_LOCALHOST) !== (seccomp.localhostProfile !== undefined)
      ) {
        problems.push({
          path: `${path}.seccompProfile.localhostProfile`,
          message: 'is required with type Localhost and forbidden with any other type',
        });
      }
      const drop = context.capabilities?.drop ?? [];
      for (const { index } of duplicates(drop, (capability) => capability)) {
        problems.push({
          path: `${path}.capabilities.drop[${index}]`,
          message: `duplicates ${drop[index]}; remove it`,
        });
      }
      return problems;
    }),
};

const podRules: SemanticRule = {
  name: "the pod's own fields are what a Job's pods take",
  check: ({ spec }) => {
    const pod = spec.pod;
    if (pod === undefined) return [];
    const problems: Problem[] = [];
    if (pod.restartPolicy === 'Always') {
      problems.push({ path: 'spec.pod.restartPolicy', message: RESTART_ALWAYS_MESSAGE });
    }
    if (pod.dnsPolicy === 'None') problems.push({ path: 'spec.pod.dnsPolicy', message: DNS_NONE_MESSAGE });
    for (const key of Object.keys(pod.nodeAffinity ?? {})) {
      if (!isQualifiedName(key)) {
        problems.push({
          path: indexPath('spec.pod.nodeAffinity', key),
          message: `${QUALIFIED_NAME_MESSAGE}; rename it`,
        });
      }
    }
    const sysctls = pod.securityContext?.sysctls ?? [];
    for (const { index, firstIndex } of duplicates(sysctls, (sysctl) => sysctl.name)) {
      problems.push({
        path: `spec.pod.securityContext.sysctls[${index}].name`,
        message: `duplicates spec.pod.securityContext.sysctls[${firstIndex}].name; set each sysctl once`,
      });
    }
    return problems;
  },
};

const environmentName = new RegExp(ENVIRONMENT_NAME_PATTERN);

const fluxRules: SemanticRule = {
  name: "the Flux view's settings and the scheduler's are consistent",
  check: ({ spec }) => {
    const problems: Problem[] = Object.keys(spec.flux.environment ?? {})
      .filter((name) => !environmentName.test(name))
      .map((name) => ({
        path: indexPath('spec.flux.environment', name),
        message:
          'must be an environment variable name: letters, digits, "_", "-" and ".", not starting with a digit',
      }));
    const scheduler = spec.flux.scheduler;
    if (
      scheduler?.simple === true &&
      scheduler.queuePolicy !== undefined &&
      scheduler.queuePolicy !== DEFAULT_QUEUE_POLICY
    ) {
      problems.push({
        path: 'spec.flux.scheduler.queuePolicy',
        message:
          "is Fluxion's, and simple: true schedules with sched-simple (first come, first served); remove queuePolicy or simple",
      });
    }
    const resources = spec.flux.container.resources;
    if (resources !== undefined)
      problems.push(...containerResourceProblems('spec.flux.container.resources', resources));
    return problems;
  },
};

const specRules: SemanticRule = {
  name: 'minSize within size; the Flux container runs a command or a script; no container takes the view’s name',
  check: ({ name, spec }) => {
    const problems: Problem[] = [];
    if (spec.minSize !== undefined && spec.minSize > spec.size) {
      problems.push({ path: 'spec.minSize', message: `${MIN_SIZE_MESSAGE} (size is ${spec.size})` });
    }
    spec.containers.forEach((container, index) => {
      if (container.runFlux && container.command !== undefined && container.commands.script !== undefined) {
        problems.push({
          path: `spec.containers[${index}].commands.script`,
          message: SCRIPT_AND_COMMAND_MESSAGE,
        });
      }
      if (container.runFlux && container.noWrapEntrypoint === true) {
        problems.push({ path: `spec.containers[${index}].noWrapEntrypoint`, message: NO_WRAP_MESSAGE });
      }
      if (container.name === spec.flux.container.name) {
        const defaulted =
          container.name === name ? ' (the unnamed Flux container is named after the MiniCluster)' : '';
        problems.push({
          path: `spec.containers[${index}].name`,
          message: `${VIEW_NAME_MESSAGE}${defaulted}`,
        });
      }
    });
    return problems;
  },
};

/** A RESTful MiniCluster's Flux container starts as root, which then runs the API's jobs as fluxUser. */
const restfulStartsAsRoot: SemanticRule = {
  name: "a RESTful MiniCluster's Flux container starts as root",
  check: ({ spec }) => {
    if (spec.fluxRestful === undefined || joinsAnother(spec)) return [];
    return spec.containers.flatMap((container, index) =>
      container.runFlux
        ? nonRootStarts(
            `spec.containers[${index}]`,
            container.securityContext,
            spec.pod?.securityContext,
          ).map((path) => ({ path, message: NON_ROOT_START_MESSAGE }))
        : [],
    );
  },
};

/** The one Flux field of a service that v1alpha1 lacks, so that its rules on the v1alpha1 form miss it. */
const serviceFields: SemanticRule = {
  name: 'services set no Flux container field (noWrapEntrypoint)',
  check: ({ given }) =>
    (given.services ?? []).flatMap((service, index) =>
      service.noWrapEntrypoint === true
        ? [
            {
              path: `spec.services[${index}].noWrapEntrypoint`,
              message: fluxOnlyServiceMessage('noWrapEntrypoint'),
            },
          ]
        : [],
    ),
};

const sharedMemory: SemanticRule = {
  name: 'spec.pod.shmSize is a quantity within the memory limits, and not with hostIPC',
  check: ({ spec }) => shmSizeProblems(spec),
};

const storageEntries: SemanticRule = {
  name: 'spec.volumes entries are complete for their kind',
  check: ({ spec }) => storageEntryProblems(spec.volumes),
};

const volumes: SemanticRule = {
  name: 'volumes have one source or none, a path, unique mount paths, one source per pod volume name',
  check: ({ spec }) => volumeProblems(spec),
};

export const SEMANTIC_RULES: readonly SemanticRule[] = [
  leftOut,
  specRules,
  volumes,
  serviceFields,
  storageEntries,
  securityContextRules,
  restfulStartsAsRoot,
  podRules,
  sharedMemory,
  fluxRules,
];
