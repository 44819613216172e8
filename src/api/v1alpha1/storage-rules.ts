/**
 * v1alpha1's rule of `spec.volumes` and the container volumes that mount it: the entries are
 * complete (../shared/storage-problems.ts), and a container volume without a source names an
 * entry, while one with a source of its own does not take an entry's name (a pod volume name means
 * one volume). The CRD's CEL rules for the same checks are in storage-cel.ts.
 */
import { indexPath } from '../shared/problems.ts';
import type { Problem } from '../shared/problems.ts';
import { hasOwnSource, storageEntryProblems } from '../shared/storage-problems.ts';
import { SOURCES } from '../shared/storage-cel.ts';
import type { SemanticRuleV1alpha1 } from './semantic-rule.ts';
import type { DefaultedContainerV1alpha1, DefaultedMiniClusterV1alpha1Spec } from './schema.ts';

/** The pod containers that mount volumes: the brokers' containers and the services (v1alpha1 both). */
function mountingContainers(
  spec: DefaultedMiniClusterV1alpha1Spec,
): { path: string; container: Pick<DefaultedContainerV1alpha1, 'volumes' | 'existingVolumes'> }[] {
  return [
    ...spec.containers.map((container, index) => ({ path: `spec.containers[${index}]`, container })),
    ...(spec.services ?? []).map((container, index) => ({ path: `spec.services[${index}]`, container })),
  ];
}

function referenceProblems(spec: DefaultedMiniClusterV1alpha1Spec): Problem[] {
  const storage = spec.volumes ?? {};
  return mountingContainers(spec).flatMap(({ path: containerPath, container }) => {
    const problems: Problem[] = [];
    for (const [name, volume] of Object.entries(container.volumes ?? {})) {
      const path = indexPath(`${containerPath}.volumes`, name);
      const named = Object.hasOwn(storage, name);
      if (!hasOwnSource(volume) && !named) {
        problems.push({
          path,
          message: `has no source, so it names storage of spec.volumes, which has no entry ${JSON.stringify(name)}; add one to spec.volumes or set one of ${SOURCES}`,
        });
      } else if (hasOwnSource(volume) && named) {
        problems.push({
          path,
          message: `has a source of its own and the name of spec.volumes[${name}]; a pod volume name means one volume: rename one of them, or remove the source to mount spec.volumes[${name}]`,
        });
      }
    }
    for (const name of Object.keys(container.existingVolumes ?? {})) {
      if (Object.hasOwn(storage, name)) {
        problems.push({
          path: indexPath(`${containerPath}.existingVolumes`, name),
          message: `has the name of spec.volumes[${name}]; a pod volume name means one volume: rename one of them, or mount spec.volumes[${name}] from the container's volumes`,
        });
      }
    }
    return problems;
  });
}

export const storageVolumes: SemanticRuleV1alpha1 = {
  name: 'spec.volumes entries are complete for their kind; container volumes without a source name one',
  check: ({ spec }) => [...storageEntryProblems(spec.volumes), ...referenceProblems(spec)],
};
