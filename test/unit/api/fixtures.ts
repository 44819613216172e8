/** Fixture builders for MiniCluster tests: a valid object, changed by the test that needs it. */
import assert from 'node:assert/strict';
import type {
  ContainerV1alpha1,
  MiniClusterV1alpha1,
  MiniClusterV1alpha1Spec,
} from '../../../src/api/v1alpha1/schema.ts';
import { formatProblem, validateMiniClusterV1alpha1 } from '../../../src/api/v1alpha1/validate.ts';
import type { Problem } from '../../../src/api/v1alpha1/validate.ts';

export const FLUX_IMAGE = 'ghcr.io/converged-computing/flux-sched:jammy';

export function fluxContainer(overrides: Partial<ContainerV1alpha1> = {}): ContainerV1alpha1 {
  return { image: FLUX_IMAGE, command: 'lmp -in in.reaxff', ...overrides };
}

/** A valid MiniCluster named `flux-sample` with the given spec fields replaced. */
export function miniCluster(
  spec: Partial<MiniClusterV1alpha1Spec> = {},
  name = 'flux-sample',
): MiniClusterV1alpha1 {
  return {
    apiVersion: 'flux-framework.org/v1alpha1',
    kind: 'MiniCluster',
    metadata: { name, namespace: 'default' },
    spec: { size: 4, containers: [fluxContainer()], ...spec },
  };
}

/** Two containers: the Flux one first, a named sidecar second. */
export function withSidecar(sidecar: Partial<ContainerV1alpha1> = {}): ContainerV1alpha1[] {
  return [fluxContainer({ runFlux: true }), { name: 'sidecar', image: 'busybox:1.36', ...sidecar }];
}

/** A syntactically valid zcert (keys are 40 Z85 characters). */
export const CURVE_CERT = [
  '#   ****  Generated on 2026-01-01 00:00:00 by test  ****',
  '#   ZeroMQ CURVE **Secret** Certificate',
  'metadata',
  '    name = "flux-sample"',
  'curve',
  `    public-key = "${'a'.repeat(40)}"`,
  `    secret-key = "${'b'.repeat(40)}"`,
].join('\n');

/** A validation case: an input and the problems it must get. */
export interface ProblemCase {
  name: string;
  input: unknown;
  /** Exactly these problems, in this order: exact path, message matching the pattern. */
  problems: [path: string, message: RegExp][];
}

/** Asserts the validator refuses `input` with exactly these problems, in this order. */
export function assertProblems(input: unknown, expected: ProblemCase['problems']): void {
  assertProblemsOf(validateMiniClusterV1alpha1, input, expected);
}

/** The same for another validator (v1alpha2's). */
export function assertProblemsOf(
  validate: (input: unknown) => { ok: true } | { ok: false; problems: readonly Problem[] },
  input: unknown,
  expected: ProblemCase['problems'],
): void {
  const result = validate(input);
  assert.equal(result.ok, false, 'expected problems, got a valid MiniCluster');
  if (result.ok) return;
  assert.deepEqual(
    result.problems.map((problem) => problem.path),
    expected.map(([path]) => path),
    result.problems.map(formatProblem).join('\n'),
  );
  result.problems.forEach((problem, index) => assert.match(problem.message, expected[index]?.[1] ?? /^$/));
}
