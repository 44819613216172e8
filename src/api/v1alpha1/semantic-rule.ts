/**
 * What a semantic rule of the validator is: a named check of a MiniCluster's spec (as given and
 * defaulted) and status.
 */
import type { Problem } from '../shared/problems.ts';
import type {
  DefaultedMiniClusterV1alpha1Spec,
  MiniClusterV1alpha1Spec,
  MiniClusterV1alpha1Status,
} from './schema.ts';

export interface RuleInputV1alpha1 {
  /** metadata.name */
  name: string;
  /** The spec as written, to tell a field that was set from one that was defaulted. */
  given: MiniClusterV1alpha1Spec;
  /** The spec after applyDefaultsV1alpha1. */
  spec: DefaultedMiniClusterV1alpha1Spec;
  status: MiniClusterV1alpha1Status | undefined;
}

export interface SemanticRuleV1alpha1 {
  /** What the rule checks, for test names and documentation. */
  name: string;
  check: (input: RuleInputV1alpha1) => Problem[];
}
