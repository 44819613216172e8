/**
 * v1alpha1's rules of compute resources (the problems themselves, shared with v1alpha2, are in
 * ../shared/resource-problems.ts): the containers' and the pod's resources, emptyDir size limits.
 */
import { indexPath } from '../shared/problems.ts';
import type { Problem } from '../shared/problems.ts';
import {
  containerResourceProblems,
  quantityValueProblems,
  resourceValueProblems,
} from '../shared/resource-problems.ts';
import { POD_RESOURCES } from '../shared/resource-cel.ts';
import type { SemanticRuleV1alpha1 } from './semantic-rule.ts';
import type { DefaultedMiniClusterV1alpha1Spec } from './schema.ts';

function podResourceProblems(spec: DefaultedMiniClusterV1alpha1Spec): Problem[] {
  const podResources = spec.pod?.resources ?? {};
  const problems: Problem[] = [];
  for (const [name, value] of Object.entries(podResources)) {
    const path = indexPath('spec.pod.resources', name);
    if (!POD_RESOURCES.includes(name)) {
      problems.push({
        path,
        message: `pod-level resources are ${POD_RESOURCES.join(' and ')}; got ${JSON.stringify(name)}`,
      });
      continue;
    }
    problems.push(...resourceValueProblems(path, name, value));
    spec.containers.forEach((container, index) => {
      const { limits = {}, requests = {} } = container.resources ?? {};
      if (limits[name] !== undefined || requests[name] !== undefined) {
        problems.push({
          path,
          message: `spec.containers[${index}] sets ${name} too; set it for the pod or per container, not both`,
        });
      }
    });
  }
  return problems;
}

export const resources: SemanticRuleV1alpha1 = {
  name: 'resources are names Kubernetes takes, with quantities in range, requests within limits',
  check: ({ spec }) => [
    ...spec.containers.flatMap((container, index) =>
      container.resources
        ? containerResourceProblems(`spec.containers[${index}].resources`, container.resources)
        : [],
    ),
    ...podResourceProblems(spec),
  ],
};

/** Quantities outside resources (emptyDir size limits) have the same bounds. */
export const emptyDirSizes: SemanticRuleV1alpha1 = {
  name: 'emptyDir size limits are quantities in range',
  check: ({ spec }) =>
    spec.containers.flatMap((container, index) =>
      (['volumes', 'existingVolumes'] as const).flatMap((mapName) =>
        Object.entries(container[mapName] ?? {}).flatMap(([volumeName, volume]) =>
          volume.emptyDirSizeLimit === undefined
            ? []
            : quantityValueProblems(
                `${indexPath(`spec.containers[${index}].${mapName}`, volumeName)}.emptyDirSizeLimit`,
                volume.emptyDirSizeLimit,
              ),
        ),
      ),
    ),
};
