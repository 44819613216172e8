/**
 * Semantic validation: the cross-field rules of the CEL `x-kubernetes-validations` (so the CLI and
 * tests give the same answers as the API server), plus rules CEL cannot afford (label keys,
 * uniqueness after defaulting, host name lengths). Each rule is a small pure function from the
 * MiniCluster to its problems; every problem names its field and the fix.
 */
import { RESERVED_LABEL_KEYS } from './labels.ts';
import { DNS_LABEL_MAX_LENGTH, MAX_BROKERS } from './limits.ts';
import { fieldPath, indexPath } from './problems.ts';
import type { Problem } from './problems.ts';
import { DNS_1035_LABEL_PATTERN, DNS_1123_LABEL_PATTERN, QUALIFIED_NAME_PATTERN } from './schema-helpers.ts';
import type { DefaultedMiniClusterSpec, MiniClusterSpec, MiniClusterStatus, Volume } from './schema.ts';

export interface RuleInput {
  /** metadata.name */
  name: string;
  /** The spec as written, to tell a field that was set from one that was defaulted. */
  given: MiniClusterSpec;
  /** The spec after applyDefaults. */
  spec: DefaultedMiniClusterSpec;
  status: MiniClusterStatus | undefined;
}

export interface SemanticRule {
  /** What the rule checks, for test names and documentation. */
  name: string;
  check: (input: RuleInput) => Problem[];
}

const dns1035Label = new RegExp(DNS_1035_LABEL_PATTERN);
const dns1123Label = new RegExp(DNS_1123_LABEL_PATTERN);
const qualifiedName = new RegExp(QUALIFIED_NAME_PATTERN);

/** Longest name such that `<name>-<lastIndex>` is still a DNS label. */
function longestPrefixFor(count: number): number {
  return DNS_LABEL_MAX_LENGTH - 1 - String(count - 1).length;
}

/** Problem if host names `<prefix>-0` ... `<prefix>-(count-1)` would not be DNS labels. */
function hostNameLengthProblems(path: string, prefix: string, count: number, what: string): Problem[] {
  const limit = longestPrefixFor(count);
  if (prefix.length <= limit) return [];
  return [
    {
      path,
      message: `must have at most ${limit} characters (got ${prefix.length}) so that host names up to ${prefix}-${count - 1} stay within ${DNS_LABEL_MAX_LENGTH}; shorten ${what}`,
    },
  ];
}

/** Indexes of list entries equal to an earlier entry (by `key`). */
function duplicates<T>(
  items: readonly T[],
  key: (item: T) => unknown,
): { index: number; firstIndex: number }[] {
  const firstIndexByKey = new Map<unknown, number>();
  const found: { index: number; firstIndex: number }[] = [];
  items.forEach((item, index) => {
    const itemKey = key(item);
    const firstIndex = firstIndexByKey.get(itemKey);
    if (firstIndex === undefined) firstIndexByKey.set(itemKey, index);
    else found.push({ index, firstIndex });
  });
  return found;
}

const metadataName: SemanticRule = {
  name: 'metadata.name is a DNS label short enough for <name>-<index> host names',
  check: ({ name, spec }) => {
    if (!dns1035Label.test(name)) {
      return [
        {
          path: 'metadata.name',
          message: `must be a DNS label (lowercase letters, digits and "-", starting with a letter, ending with a letter or digit), since pod host names and the Service derive from it; got ${JSON.stringify(name)}`,
        },
      ];
    }
    return hostNameLengthProblems('metadata.name', name, spec.maxSize, 'the name');
  },
};

const maxSizeAtLeastSize: SemanticRule = {
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

const sizeWithinRecordedMaximum: SemanticRule = {
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

const totalBrokers: SemanticRule = {
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

const oneFluxRunner: SemanticRule = {
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

const containerNames: SemanticRule = {
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

const containerModes: SemanticRule = {
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

const setLists: SemanticRule = {
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

const VOLUME_SOURCES = ['configMapName', 'secretName', 'claimName', 'hostPath', 'emptyDir'] as const;

function volumeSources(volume: Volume): string[] {
  return VOLUME_SOURCES.filter((source) =>
    source === 'emptyDir' ? volume.emptyDir === true : volume[source] !== undefined,
  );
}

/** What makes two mounts of the same pod volume the same volume (path and readOnly may differ). */
function volumeSourceKey(volume: Volume): string {
  const {
    configMapName,
    secretName,
    claimName,
    hostPath,
    emptyDir,
    emptyDirMedium,
    emptyDirSizeLimit,
    items,
  } = volume;
  return JSON.stringify([
    configMapName,
    secretName,
    claimName,
    hostPath,
    emptyDir,
    emptyDirMedium,
    emptyDirSizeLimit,
    items,
  ]);
}

function volumeEntryProblems(path: string, volumeName: string, volume: Volume): Problem[] {
  const problems: Problem[] = [];
  if (volumeName.length > DNS_LABEL_MAX_LENGTH || !dns1123Label.test(volumeName)) {
    problems.push({
      path,
      message: `volume name ${JSON.stringify(volumeName)} must be a DNS label (lowercase letters, digits and "-", at most ${DNS_LABEL_MAX_LENGTH} characters); rename it`,
    });
  }
  const sources = volumeSources(volume);
  if (sources.length !== 1) {
    problems.push({
      path,
      message:
        sources.length === 0
          ? 'has no source; set one of configMapName, secretName, claimName, hostPath or emptyDir: true'
          : `has several sources (${sources.join(', ')}); keep exactly one`,
    });
  }
  if (volume.items !== undefined && volume.configMapName === undefined && volume.secretName === undefined) {
    problems.push({
      path: fieldPath(path, 'items'),
      message: 'applies to configMapName or secretName volumes only; remove items',
    });
  }
  if (
    (volume.emptyDirMedium !== undefined || volume.emptyDirSizeLimit !== undefined) &&
    volume.emptyDir !== true
  ) {
    problems.push({
      path,
      message:
        'emptyDirMedium and emptyDirSizeLimit apply to emptyDir: true volumes only; set emptyDir or remove them',
    });
  }
  return problems;
}

const volumes: SemanticRule = {
  name: 'volumes have one source, DNS label names, and one definition per pod volume name',
  check: ({ spec }) => {
    const problems: Problem[] = [];
    // Pod volumes are shared by all containers: a name must mean the same source everywhere.
    const firstDefinition = new Map<string, { path: string; sourceKey: string }>();
    spec.containers.forEach((container, index) => {
      const containerPath = `spec.containers[${index}]`;
      for (const mapName of ['volumes', 'existingVolumes'] as const) {
        for (const [volumeName, volume] of Object.entries(container[mapName] ?? {})) {
          const path = indexPath(`${containerPath}.${mapName}`, volumeName);
          problems.push(...volumeEntryProblems(path, volumeName, volume));
          if (mapName === 'existingVolumes' && container.volumes?.[volumeName] !== undefined) {
            problems.push({
              path,
              message: `is also in ${containerPath}.volumes; keep each volume name in one of volumes and existingVolumes`,
            });
            continue;
          }
          const sourceKey = volumeSourceKey(volume);
          const first = firstDefinition.get(volumeName);
          if (first === undefined) firstDefinition.set(volumeName, { path, sourceKey });
          else if (first.sourceKey !== sourceKey) {
            problems.push({
              path,
              message: `has a different source than ${first.path}; a pod volume name means one source, so rename one of them`,
            });
          }
        }
      }
    });
    return problems;
  },
};

function labelKeyProblems(
  path: string,
  labels: Record<string, string> | undefined,
  reserved: boolean,
): Problem[] {
  return Object.keys(labels ?? {}).flatMap((key) => {
    const keyPath = indexPath(path, key);
    const [prefix, name] = key.includes('/') ? key.split(/\/(.*)/s) : ['', key];
    if (!qualifiedName.test(key) || (prefix ?? '').length > 253 || (name ?? '').length > 63) {
      return [
        {
          path: keyPath,
          message:
            'must be a label key: an optional DNS subdomain prefix and "/", then a name of at most 63 letters, digits, "-", "_" and "."; rename it',
        },
      ];
    }
    if (reserved && RESERVED_LABEL_KEYS.includes(key)) {
      return [{ path: keyPath, message: 'is set by the operator (its selectors rely on it); remove it' }];
    }
    return [];
  });
}

const labelKeys: SemanticRule = {
  name: 'label and annotation keys are qualified names; operator label keys are reserved',
  check: ({ spec }) => [
    ...labelKeyProblems('spec.jobLabels', spec.jobLabels, true),
    ...labelKeyProblems('spec.pod.labels', spec.pod?.labels, true),
    ...labelKeyProblems('spec.pod.annotations', spec.pod?.annotations, false),
    ...labelKeyProblems('spec.pod.nodeSelector', spec.pod?.nodeSelector, false),
    ...labelKeyProblems('spec.network.sharedSelector', spec.network.sharedSelector, true),
  ],
};

const sharedSelector: SemanticRule = {
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

const burstClusters: SemanticRule = {
  name: 'burst clusters: hostlist or clusters, unique DNS-safe names distinct from local hosts',
  check: ({ name, spec }) => {
    const bursting = spec.flux.bursting;
    if (bursting === undefined) return [];
    const problems: Problem[] = [];
    const clusters = bursting.clusters ?? [];
    if (bursting.hostlist !== undefined && clusters.length > 0) {
      problems.push({
        path: 'spec.flux.bursting.hostlist',
        message: 'replaces the hosts generated from clusters; set only one of hostlist and clusters',
      });
    }
    // The lead side lists its own hosts before the burst clusters, so a cluster named like it would
    // collide. On the external side (leadBroker set) the cluster named like this MiniCluster is its
    // own slot in the shared list; only the lead's name is taken there.
    const takenPrefixes = bursting.leadBroker === undefined ? [name] : [bursting.leadBroker.name];
    if (bursting.slot !== undefined && bursting.leadBroker === undefined) {
      problems.push({
        path: 'spec.flux.bursting.slot',
        message: "needs leadBroker: it names the lead MiniCluster's slot this one fills",
      });
    }
    clusters.forEach((cluster, index) => {
      const path = `spec.flux.bursting.clusters[${index}].name`;
      if (!dns1035Label.test(cluster.name)) {
        problems.push({
          path,
          message: `must be a DNS label starting with a letter; got ${JSON.stringify(cluster.name)}`,
        });
        return;
      }
      if (takenPrefixes.includes(cluster.name)) {
        problems.push({
          path,
          message: `${JSON.stringify(cluster.name)} is already a host name prefix of this instance, so host names would collide; rename the burst cluster`,
        });
      }
      problems.push(...hostNameLengthProblems(path, cluster.name, cluster.size, 'the burst cluster name'));
    });
    for (const { index, firstIndex } of duplicates(clusters, (cluster) => cluster.name)) {
      problems.push({
        path: `spec.flux.bursting.clusters[${index}].name`,
        message: `duplicates spec.flux.bursting.clusters[${firstIndex}].name ${JSON.stringify(clusters[index]?.name)} (unnamed clusters are burst-<index>); burst cluster names must be unique`,
      });
    }
    return problems;
  },
};

const CURVE_CERT_KEYS = /public-key\s*=\s*"[^"]{40}"[\s\S]*secret-key\s*=\s*"[^"]{40}"/;

const curveCertificate: SemanticRule = {
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

const leadBroker: SemanticRule = {
  name: 'joining a lead broker needs its certificate and munge key, and distinct host names',
  check: ({ name, spec }) => {
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
    if (lead.name === name) {
      problems.push({
        path: `${path}.name`,
        message: `equals this MiniCluster's name, so host names would collide; a bursting MiniCluster needs its own name`,
      });
    }
    problems.push(
      ...hostNameLengthProblems(`${path}.name`, lead.name, lead.size, 'the lead MiniCluster name'),
    );
    return problems;
  },
};

const bootServer: SemanticRule = {
  name: 'connecting to another MiniCluster: bootServer and bootServerSize together, not self, not with leadBroker',
  check: ({ name, spec }) => {
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
    if (server !== undefined && server === name) {
      problems.push({
        path: 'spec.flux.bootServer',
        message: 'names this MiniCluster itself; name the MiniCluster to connect to',
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

/** Every semantic rule, in the order their problems are reported. */
export const SEMANTIC_RULES: readonly SemanticRule[] = [
  metadataName,
  maxSizeAtLeastSize,
  sizeWithinRecordedMaximum,
  totalBrokers,
  oneFluxRunner,
  containerNames,
  containerModes,
  setLists,
  volumes,
  labelKeys,
  sharedSelector,
  burstClusters,
  curveCertificate,
  leadBroker,
  bootServer,
];

export function semanticProblems(input: RuleInput): Problem[] {
  return SEMANTIC_RULES.flatMap((rule) => rule.check(input));
}
