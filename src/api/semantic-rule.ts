/**
 * What a semantic rule of the validator is: a named check of a MiniCluster's spec (as given and
 * defaulted) and status.
 */
import type { Problem } from './problems.ts';
import type { DefaultedMiniClusterSpec, MiniClusterSpec, MiniClusterStatus } from './schema.ts';

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
