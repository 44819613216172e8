/**
 * The validator's rules of what v1alpha2 adds or shapes differently, each beside a CEL twin in the
 * schema (volume-cel.ts, kube-schemas.ts, pod-schema.ts, flux-schema.ts, schema.ts, left-out.ts).
 * The rules of the fields v1alpha2 shares with v1alpha1 run on the v1alpha1 form (validate.ts).
 */
import { containerResourceProblems } from '../resource-rules.ts';
import { ENVIRONMENT_NAME_PATTERN } from '../schema-helpers.ts';
import { fieldPath, indexPath } from '../problems.ts';
import type { Problem } from '../problems.ts';
import { QUALIFIED_NAME_MESSAGE, isQualifiedName } from '../qualified-names.ts';
import { NON_ROOT_START_MESSAGE, joinsAnother, nonRootStarts } from '../restful-schema.ts';
import { duplicates } from '../rule-helpers.ts';
import { fluxOnlyServiceMessage } from '../service-schema.ts';
import { shmSizeProblems } from '../shm-rules.ts';
import { storageEntryProblems } from '../storage-rules.ts';
import { LEFT_OUT_FLUX_FIELDS, LEFT_OUT_SECURITY_FIELDS, leftOutMessageV1alpha2 } from './left-out.ts';
import type { LeftOutField } from '../left-out-fields.ts';
import {
  PRIVILEGE_ESCALATION_MESSAGE,
  SECCOMP_LOCALHOST,
  UNMASKED_PROC_MOUNT_MESSAGE,
} from './kube-schemas.ts';
import { DNS_NONE_MESSAGE, RESTART_ALWAYS_MESSAGE } from './pod-schema.ts';
import type {
  DefaultedMiniClusterV1alpha2Spec,
  MiniClusterV1alpha2Spec,
  MiniClusterV1alpha2Status,
} from './schema.ts';
import {
  MIN_SIZE_MESSAGE,
  NO_WRAP_MESSAGE,
  SCRIPT_AND_COMMAND_MESSAGE,
  VIEW_NAME_MESSAGE,
} from './schema.ts';
import { DEFAULT_QUEUE_POLICY } from './version.ts';
import { volumeProblems } from './volume-rules.ts';

export interface RuleInputV1alpha2 {
  name: string;
  given: MiniClusterV1alpha2Spec;
  spec: DefaultedMiniClusterV1alpha2Spec;
  status: MiniClusterV1alpha2Status | undefined;
}

export interface SemanticRuleV1alpha2 {
  name: string;
  check: (input: RuleInputV1alpha2) => Problem[];
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
function securityContexts(
  spec: DefaultedMiniClusterV1alpha2Spec,
): { path: string; context: SecurityContextView }[] {
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

const leftOut: SemanticRuleV1alpha2 = {
  name: 'v1alpha2 fields that cannot work here are refused by name',
  check: ({ spec }) => [
    ...refusals('spec.flux', spec.flux, LEFT_OUT_FLUX_FIELDS),
    ...securityContexts(spec).flatMap(({ path, context }) =>
      refusals(path, context, LEFT_OUT_SECURITY_FIELDS),
    ),
  ],
};

const securityContextRules: SemanticRuleV1alpha2 = {
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

const podRules: SemanticRuleV1alpha2 = {
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

const fluxRules: SemanticRuleV1alpha2 = {
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

const specRules: SemanticRuleV1alpha2 = {
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
const restfulStartsAsRoot: SemanticRuleV1alpha2 = {
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
const serviceFields: SemanticRuleV1alpha2 = {
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

const sharedMemory: SemanticRuleV1alpha2 = {
  name: 'spec.pod.shmSize is a quantity within the memory limits, and not with hostIPC',
  check: ({ spec }) => shmSizeProblems(spec),
};

const storageEntries: SemanticRuleV1alpha2 = {
  name: 'spec.volumes entries are complete for their kind',
  check: ({ spec }) => storageEntryProblems(spec.volumes),
};

const volumes: SemanticRuleV1alpha2 = {
  name: 'volumes have one source or none, a path, unique mount paths, one source per pod volume name',
  check: ({ spec }) => volumeProblems(spec),
};

export const SEMANTIC_RULES_V1ALPHA2: readonly SemanticRuleV1alpha2[] = [
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
