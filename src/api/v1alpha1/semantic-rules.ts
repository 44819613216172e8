/**
 * Semantic validation: the cross-field rules of the CEL `x-kubernetes-validations` (so the CLI and
 * tests give the same answers as the API server), each a small pure function from the MiniCluster
 * to its problems; every problem names its field and the fix. Rules of one subject live in their
 * own module next to their CEL twins (host names, volumes, resources, pod fields, scripts); the
 * rest are here. The only rule without a CEL twin expands a burst hostlist, which CEL cannot.
 */
import { AUTOSCALE_MIN_SIZE_MESSAGE } from '../shared/autoscale-schema.ts';
import { CURVE_CERT_PATTERN, FLAT_TOPOLOGY } from '../shared/flux-fields.ts';
import { bootServerHosts, burstClusters, leadBrokerHosts, metadataName, ownSlot } from './host-name-rules.ts';
import { RESERVED_LABEL_KEYS } from '../shared/labels.ts';
import { leftOutFields } from './left-out-rules.ts';
import { MAX_BROKERS } from '../shared/limits.ts';
import { annotationSize, environmentNames, tolerations } from './pod-rules.ts';
import { indexPath } from '../shared/problems.ts';
import type { Problem } from '../shared/problems.ts';
import { QUALIFIED_NAME_MESSAGE, isQualifiedName } from '../shared/qualified-names.ts';
import { containerResourceProblems } from '../shared/resource-problems.ts';
import { emptyDirSizes, resources } from './resource-rules.ts';
import { restfulFields } from './restful-rules.ts';
import { duplicates } from '../shared/rule-helpers.ts';
import type { RuleInputV1alpha1, SemanticRuleV1alpha1 } from './semantic-rule.ts';
import { batchCommand, burstHostlist, scriptSizes } from './script-rules.ts';
import { serviceRules } from './service-rules.ts';
import { sharedMemory } from './shm-rules.ts';
import type { DefaultedContainerV1alpha1 } from './schema.ts';
import { storageVolumes } from './storage-rules.ts';
import { volumes } from './volume-rules.ts';

export type { RuleInputV1alpha1, SemanticRuleV1alpha1 } from './semantic-rule.ts';

const maxSizeAtLeastSize: SemanticRuleV1alpha1 = {
  name: 'spec.maxSize >= spec.size',
  check: ({ given, spec }) =>
    given.maxSize !== undefined && given.maxSize < spec.size
      ? [
          {
            path: 'spec.maxSize',
            message: `must be >= spec.size (${spec.size}); raise maxSize or lower size`,
          },
        ]
      : [],
};

const autoscaleMinSizeAtMostSize: SemanticRuleV1alpha1 = {
  name: 'spec.autoscale.minSize <= spec.size',
  check: ({ given, spec }) => {
    const minSize = given.autoscale?.minSize;
    return minSize !== undefined && minSize > spec.size
      ? [{ path: 'spec.autoscale.minSize', message: `${AUTOSCALE_MIN_SIZE_MESSAGE} (${spec.size})` }]
      : [];
  },
};

const sizeWithinRecordedMaximum: SemanticRuleV1alpha1 = {
  name: 'spec.size <= status.maximumSize',
  check: ({ spec, status }) =>
    status?.maximumSize !== undefined && spec.size > status.maximumSize
      ? [
          {
            path: 'spec.size',
            message: `must be <= status.maximumSize (${status.maximumSize}), the maximum fixed at creation; scale within it or recreate the MiniCluster with a larger maxSize`,
          },
        ]
      : [],
};

const totalBrokers: SemanticRuleV1alpha1 = {
  name: 'all listed brokers stay within MAX_BROKERS',
  check: ({ spec }) => {
    const bursting = spec.flux.bursting;
    const burstTotal = (bursting?.clusters ?? []).reduce((sum, cluster) => sum + cluster.size, 0);
    const total = spec.maxSize + burstTotal + (bursting?.leadBroker?.size ?? 0);
    return total > MAX_BROKERS
      ? [
          {
            path: 'spec.maxSize',
            message: `the Flux instance would list ${total} brokers (maxSize, burst cluster sizes and leadBroker.size together), more than ${MAX_BROKERS}; lower them`,
          },
        ]
      : [];
  },
};

const oneFluxRunner: SemanticRuleV1alpha1 = {
  name: 'exactly one container runs Flux when there are several',
  check: ({ given }) => {
    if (given.containers.length <= 1) return [];
    const runners = given.containers.flatMap((container, index) =>
      container.runFlux === true ? [index] : [],
    );
    if (runners.length === 1) return [];
    const message =
      runners.length === 0
        ? 'no container sets runFlux: true; set it on the container whose image has Flux'
        : `containers ${runners.join(', ')} all set runFlux: true; keep it on exactly one`;
    return [{ path: 'spec.containers', message }];
  },
};

const containerNames: SemanticRuleV1alpha1 = {
  name: 'containers that do not run Flux are named, and names are unique',
  check: ({ given, spec, name }) => {
    const problems: Problem[] = [];
    spec.containers.forEach((container, index) => {
      if (!container.runFlux && given.containers[index]?.name === undefined) {
        problems.push({
          path: `spec.containers[${index}].name`,
          message: 'is required for containers that do not run Flux; add a name',
        });
      }
    });
    for (const { index, firstIndex } of duplicates(spec.containers, (container) => container.name)) {
      const defaultedNote =
        given.containers[index]?.name === undefined || given.containers[firstIndex]?.name === undefined
          ? ` (the Flux container is named after the MiniCluster, ${JSON.stringify(name)}, unless named)`
          : '';
      problems.push({
        path: `spec.containers[${index}].name`,
        message: `duplicates spec.containers[${firstIndex}].name ${JSON.stringify(spec.containers[index]?.name)}${defaultedNote}; container names must be unique`,
      });
    }
    return problems;
  },
};

const containerModes: SemanticRuleV1alpha1 = {
  name: 'launcher excludes batch; batchRaw needs batch',
  check: ({ spec }) =>
    spec.containers.flatMap((container, index) => {
      const problems: Problem[] = [];
      if (container.launcher && container.batch) {
        problems.push({
          path: `spec.containers[${index}].launcher`,
          message: 'launcher and batch exclude each other; set only one of them',
        });
      }
      if (container.batchRaw && !container.batch) {
        problems.push({
          path: `spec.containers[${index}].batchRaw`,
          message: 'needs batch: true; set batch or remove batchRaw',
        });
      }
      return problems;
    }),
};

const setLists: SemanticRuleV1alpha1 = {
  name: 'ports and capabilities have no duplicates',
  check: ({ spec }) =>
    spec.containers.flatMap((container, index) => {
      const containerPath = `spec.containers[${index}]`;
      const ports = container.ports ?? [];
      const capabilities = container.securityContext?.addCapabilities ?? [];
      return [
        ...duplicates(ports, (port) => port).map(({ index: portIndex }) => ({
          path: `${containerPath}.ports[${portIndex}]`,
          message: `duplicates port ${ports[portIndex]}; remove it`,
        })),
        ...duplicates(capabilities, (capability) => capability).map(({ index: capabilityIndex }) => ({
          path: `${containerPath}.securityContext.addCapabilities[${capabilityIndex}]`,
          message: `duplicates ${capabilities[capabilityIndex]}; remove it`,
        })),
      ];
    }),
};

function labelKeyProblems(
  path: string,
  labels: Record<string, string> | undefined,
  reserved: boolean,
): Problem[] {
  return Object.keys(labels ?? {}).flatMap((key) => {
    const keyPath = indexPath(path, key);
    if (!isQualifiedName(key)) return [{ path: keyPath, message: `${QUALIFIED_NAME_MESSAGE}; rename it` }];
    if (reserved && RESERVED_LABEL_KEYS.includes(key)) {
      return [{ path: keyPath, message: 'is set by the operator (its selectors rely on it); remove it' }];
    }
    return [];
  });
}

const labelKeys: SemanticRuleV1alpha1 = {
  name: 'label and annotation keys are qualified names; operator label keys are reserved',
  check: ({ spec }) => [
    ...labelKeyProblems('spec.jobLabels', spec.jobLabels, true),
    ...labelKeyProblems('spec.pod.labels', spec.pod?.labels, true),
    ...labelKeyProblems('spec.pod.annotations', spec.pod?.annotations, false),
    ...labelKeyProblems('spec.pod.nodeSelector', spec.pod?.nodeSelector, false),
    ...labelKeyProblems('spec.network.sharedSelector', spec.network.sharedSelector, true),
  ],
};

const sharedSelector: SemanticRuleV1alpha1 = {
  name: 'a shared selector comes with an explicit headlessName',
  check: ({ given, spec }) =>
    spec.network.sharedSelector !== undefined && given.network?.headlessName === undefined
      ? [
          {
            path: 'spec.network.headlessName',
            message:
              'is required with sharedSelector: set the same headlessName on every MiniCluster that shares the selector',
          },
        ]
      : [],
};

const minimalService: SemanticRuleV1alpha1 = {
  name: 'a minimal Service keeps the broker tree flat',
  check: ({ spec }) =>
    spec.flux.minimalService === true &&
    spec.flux.topology !== undefined &&
    spec.flux.topology !== FLAT_TOPOLOGY
      ? [
          {
            path: 'spec.flux.topology',
            message: `must be ${FLAT_TOPOLOGY} (or unset) with minimalService: only the lead broker has a DNS name, so every broker connects to it; remove topology or minimalService`,
          },
        ]
      : [],
};

const CURVE_CERT_KEYS = new RegExp(CURVE_CERT_PATTERN);

const curveCertificate: SemanticRuleV1alpha1 = {
  name: 'curveCert and curveCertSecret exclude each other; curveCert is a zcert',
  check: ({ spec }) => {
    const problems: Problem[] = [];
    const { curveCert, curveCertSecret } = spec.flux;
    if (curveCert !== undefined && curveCertSecret !== undefined) {
      problems.push({
        path: 'spec.flux.curveCert',
        message:
          'excludes curveCertSecret; remove curveCert (a Secret keeps the secret key out of the MiniCluster)',
      });
    }
    if (curveCert !== undefined && !CURVE_CERT_KEYS.test(curveCert)) {
      problems.push({
        path: 'spec.flux.curveCert',
        message:
          'must be a ZeroMQ CURVE certificate (zcert text) with a 40-character public-key and secret-key; create one with `flux keygen`',
      });
    }
    return problems;
  },
};

const leadBroker: SemanticRuleV1alpha1 = {
  name: "joining a lead broker needs the lead's certificate and munge key",
  check: ({ spec }) => {
    const lead = spec.flux.bursting?.leadBroker;
    if (lead === undefined) return [];
    const path = 'spec.flux.bursting.leadBroker';
    const problems: Problem[] = [];
    if (spec.flux.curveCert === undefined && spec.flux.curveCertSecret === undefined) {
      problems.push({
        path,
        message:
          "needs the lead MiniCluster's CURVE certificate: set spec.flux.curveCertSecret (or curveCert)",
      });
    }
    if (spec.flux.mungeSecret === undefined) {
      problems.push({ path, message: "needs the lead MiniCluster's munge key: set spec.flux.mungeSecret" });
    }
    return problems;
  },
};

const bootServer: SemanticRuleV1alpha1 = {
  name: 'connecting to another MiniCluster: bootServer and bootServerSize together, not with leadBroker',
  check: ({ spec }) => {
    const { bootServer: server, bootServerSize } = spec.flux;
    const problems: Problem[] = [];
    if (server !== undefined && bootServerSize === undefined) {
      problems.push({
        path: 'spec.flux.bootServerSize',
        message: 'is required with bootServer; set the size of that MiniCluster',
      });
    }
    if (server === undefined && bootServerSize !== undefined) {
      problems.push({
        path: 'spec.flux.bootServer',
        message: 'is required with bootServerSize; set the MiniCluster to connect to',
      });
    }
    if (server !== undefined && spec.flux.bursting?.leadBroker !== undefined) {
      problems.push({
        path: 'spec.flux.bootServer',
        message:
          'excludes bursting.leadBroker (connect in-cluster or join from outside, not both); remove one',
      });
    }
    return problems;
  },
};

const burstPolicy: SemanticRuleV1alpha1 = {
  name: 'burst targets are named once; a node port only for a NodePort Service',
  check: ({ spec }) => {
    const bursting = spec.flux.bursting;
    const targets = bursting?.policy?.targets ?? [];
    const problems: Problem[] = duplicates(targets, (target) => target.name).map(({ index, firstIndex }) => ({
      path: `spec.flux.bursting.policy.targets[${index}].name`,
      message: `duplicates spec.flux.bursting.policy.targets[${firstIndex}].name; burst target names must be unique`,
    }));
    const expose = bursting?.expose;
    if (expose?.nodePort !== undefined && expose.type !== 'NodePort') {
      problems.push({
        path: 'spec.flux.bursting.expose.nodePort',
        message: 'applies to type NodePort only; remove nodePort or set type: NodePort',
      });
    }
    return problems;
  },
};

/** The checks of a container that hold for a service container too, in the containers' own words. */
export const CONTAINER_CHECKS_FOR_SERVICES: readonly SemanticRuleV1alpha1[] = [
  setLists,
  volumes,
  environmentNames,
  emptyDirSizes,
];

function asServicePath(text: string): string {
  return text.replaceAll('spec.containers[', 'spec.services[');
}

/**
 * A service container is a container without Flux, in a pod of its own: the containers' checks run
 * on the services as if they were the only containers of a pod (no Flux container, no pod-level
 * resources: those apply to the brokers), and speak of `spec.services`.
 */
export function serviceContainersWith(checks: readonly SemanticRuleV1alpha1[]): SemanticRuleV1alpha1 {
  return {
    name: 'service containers pass the checks of a container without Flux, within their own pod',
    check: (input) => {
      const services = input.spec.services ?? [];
      if (services.length === 0) return [];
      const containers = services.map(
        (service) => ({ ...service, runFlux: false }) as unknown as DefaultedContainerV1alpha1,
      );
      const { pod: _pod, ...rest } = input.spec;
      const asContainers = { ...input, spec: { ...rest, containers } };
      return [
        ...checks.flatMap((rule) => rule.check(asContainers)),
        ...services.flatMap((service, index) =>
          service.resources
            ? containerResourceProblems(`spec.services[${index}].resources`, service.resources)
            : [],
        ),
      ].map((problem) => ({ path: asServicePath(problem.path), message: asServicePath(problem.message) }));
    },
  };
}

export const serviceContainers = serviceContainersWith(CONTAINER_CHECKS_FOR_SERVICES);

/** Every semantic rule, in the order their problems are reported. */
export const SEMANTIC_RULES_V1ALPHA1: readonly SemanticRuleV1alpha1[] = [
  leftOutFields,
  restfulFields,
  metadataName,
  maxSizeAtLeastSize,
  autoscaleMinSizeAtMostSize,
  sizeWithinRecordedMaximum,
  totalBrokers,
  oneFluxRunner,
  containerNames,
  containerModes,
  setLists,
  volumes,
  serviceRules,
  serviceContainers,
  storageVolumes,
  labelKeys,
  sharedSelector,
  minimalService,
  burstClusters,
  ownSlot,
  burstHostlist,
  burstPolicy,
  curveCertificate,
  leadBroker,
  leadBrokerHosts,
  bootServer,
  bootServerHosts,
  tolerations,
  annotationSize,
  environmentNames,
  resources,
  emptyDirSizes,
  sharedMemory,
  batchCommand,
  scriptSizes,
];

export function semanticProblems(input: RuleInputV1alpha1): Problem[] {
  return SEMANTIC_RULES_V1ALPHA1.flatMap((rule) => rule.check(input));
}
