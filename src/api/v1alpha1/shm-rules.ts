/** v1alpha1's rule of the brokers' /dev/shm (`spec.pod.shmSize`): ../shared/shm.ts holds what it checks. */
import { shmSizeProblems } from '../shared/shm.ts';
import type { SemanticRuleV1alpha1 } from './semantic-rule.ts';

export const sharedMemory: SemanticRuleV1alpha1 = {
  name: 'spec.pod.shmSize is a quantity within the memory limits of the Flux container and the pod',
  check: ({ spec }) => shmSizeProblems(spec),
};
