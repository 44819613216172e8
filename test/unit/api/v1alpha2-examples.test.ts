// The Go Flux Operator's own v1alpha2 manifests, read from its archive in ../shared/deps at test
// time: every case of its e2e suite (examples/tests/*/minicluster.yaml) validates, and of the rest of
// its examples the two that still spell v1alpha1 names are refused, saying where v1alpha2 has them.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { formatProblem } from '../../../src/api/shared/problems.ts';
import { validateMiniCluster } from '../../../src/api/validate.ts';
import type { ExampleManifest } from '../../harness/example-archive.ts';
import { goV1alpha2ExampleManifests, goV1alpha2TestManifests } from '../../harness/go-v1alpha2-examples.ts';

/** The manifests refused, and the field each is refused for. */
const REFUSED: Record<string, string> = {
  'elasticity/horizontal-autoscaler/v2-custom-metric/minicluster.yaml': 'spec.containers[0].existingVolumes',
  'experimental/shared-process-space/minicluster.yaml': 'spec.containers[0].securityContext.addCapabilities',
};

function miniClusters(manifest: ExampleManifest): unknown[] {
  return parseAllDocuments(manifest.text)
    .map((document) => document.toJS() as { kind?: string } | null)
    .filter((document) => document?.kind === 'MiniCluster');
}

describe('the Go operator v1alpha2 examples (from ../shared/deps)', () => {
  let all: ExampleManifest[] = [];
  let tests: ExampleManifest[] = [];
  before(async () => {
    all = await goV1alpha2ExampleManifests();
    tests = await goV1alpha2TestManifests();
  });

  it('every case of its e2e suite validates', () => {
    assert.ok(tests.length >= 20, `the e2e suite's manifests (got ${tests.length})`);
    for (const manifest of tests) {
      for (const miniCluster of miniClusters(manifest)) {
        const result = validateMiniCluster(miniCluster);
        assert.ok(
          result.ok,
          `${manifest.path}: ${result.ok ? '' : result.problems.map(formatProblem).join('; ')}`,
        );
      }
    }
  });

  it('the other examples validate, but two that use v1alpha1 names, refused where they use them', () => {
    const outcomes = all
      .filter((manifest) => !tests.includes(manifest))
      .flatMap((manifest) =>
        miniClusters(manifest).map((miniCluster) => {
          const result = validateMiniCluster(miniCluster);
          return [
            manifest.path,
            result.ok ? 'accepted' : result.problems.map((problem) => problem.path).join(','),
          ];
        }),
      );
    assert.ok(outcomes.length >= 40, `the examples' manifests (got ${outcomes.length})`);
    assert.deepEqual(
      outcomes.filter(([, outcome]) => outcome !== 'accepted'),
      Object.entries(REFUSED),
    );
  });

  it('a refused v1alpha1 name says where v1alpha2 has the field', () => {
    const manifest = all.find((candidate) => candidate.path in REFUSED);
    assert.ok(manifest);
    const [miniCluster] = miniClusters(manifest);
    const result = validateMiniCluster(miniCluster);
    assert.equal(result.ok, false);
    if (!result.ok)
      assert.match(result.problems[0]?.message ?? '', /^is v1alpha1's name: .*; move (these|them) there$/);
  });
});
