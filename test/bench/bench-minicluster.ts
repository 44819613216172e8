// The MiniCluster every bench creates, and the same MiniCluster in the Go operator's v1alpha2 API.
import { API_VERSION_V1ALPHA1, GROUP, KIND } from '../../src/api/index.ts';

export const GO_API_VERSION = `${GROUP}/v1alpha2`;

export const BENCH_IMAGE = 'ghcr.io/flux-framework/flux-restful-api:latest';

export interface BenchContainer {
  image: string;
  command?: string;
  cores?: number;
}

export interface BenchMiniCluster {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string };
  spec: { size: number; interactive?: boolean; containers: BenchContainer[] };
}

export function benchMiniCluster(namespace: string, index: number, size: number): BenchMiniCluster {
  return {
    apiVersion: API_VERSION_V1ALPHA1,
    kind: KIND,
    metadata: { name: `bench-${index}`, namespace },
    spec: { size, interactive: true, containers: [{ image: BENCH_IMAGE, cores: 4 }] },
  };
}

const SPEC_FIELDS = new Set(['size', 'interactive', 'containers']);
const CONTAINER_FIELDS = new Set(['image', 'command', 'cores']);

export interface TranslateOptions {
  /**
   * Keep the Go operator's default pod affinity (prefer one pod per node, all in one zone). Off by
   * default: our pods have none, and the scheduler's extra scoring would count against the Go operator.
   */
  goAffinity?: boolean;
}

/**
 * The v1alpha2 manifest the Go operator turns into the same pods: same name, size, image and command,
 * interactive when ours is. `cores` has no v1alpha2 field (each Go pod encodes its R with
 * `flux R encode`) and is left out. Anything else in the spec is refused, naming the field, so that a
 * new bench field cannot silently make the two workloads differ.
 */
export function toV1alpha2(miniCluster: BenchMiniCluster, options: TranslateOptions = {}) {
  if (miniCluster.apiVersion !== API_VERSION_V1ALPHA1 || miniCluster.kind !== KIND) {
    throw new Error(
      `toV1alpha2: expected a ${API_VERSION_V1ALPHA1} ${KIND}, got ${miniCluster.apiVersion} ${miniCluster.kind}`,
    );
  }
  const untranslated = (path: string) =>
    new Error(
      `${path}: the bench has no v1alpha2 translation for it; add one in test/bench/bench-minicluster.ts`,
    );
  for (const field of Object.keys(miniCluster.spec)) {
    if (!SPEC_FIELDS.has(field)) throw untranslated(`spec.${field}`);
  }
  const containers = miniCluster.spec.containers.map((container, index) => {
    for (const field of Object.keys(container)) {
      if (!CONTAINER_FIELDS.has(field)) throw untranslated(`spec.containers[${index}].${field}`);
    }
    return {
      image: container.image,
      ...(container.command === undefined ? {} : { command: container.command }),
    };
  });
  return {
    apiVersion: GO_API_VERSION,
    kind: KIND,
    metadata: { name: miniCluster.metadata.name, namespace: miniCluster.metadata.namespace },
    spec: {
      size: miniCluster.spec.size,
      ...(miniCluster.spec.interactive === undefined ? {} : { interactive: miniCluster.spec.interactive }),
      containers,
      ...(options.goAffinity === true ? {} : { network: { disableAffinity: true } }),
    },
  };
}
