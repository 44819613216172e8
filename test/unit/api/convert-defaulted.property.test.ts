/**
 * A v1alpha1 MiniCluster reaches the renderer by two edges: the CLI validates and defaults it as
 * v1alpha1, then converts the defaulted object (defaultedToV1alpha2); the controller gets it from
 * the API server converted (toV1alpha2), after the server pruned its null fields (withoutNulls), and
 * validates and defaults it as the hub. Both must give
 * the renderer the same model, or `flux-operator render` would show other objects than the
 * operator makes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { withoutNulls } from '../../../src/api/shared/without-nulls.ts';
import { validateMiniCluster } from '../../../src/api/validate.ts';
import { V1ALPHA1_RESIDUE_ANNOTATION, toV1alpha2 } from '../../../src/api/v1alpha1/convert.ts';
import { defaultedToV1alpha2 } from '../../../src/api/v1alpha1/convert-defaulted.ts';
import { validateMiniClusterV1alpha1 } from '../../../src/api/v1alpha1/validate.ts';
import { hostileMiniCluster } from './hostile-arbitraries.ts';
import { validMiniClusterV1alpha1 } from './valid-arbitraries.ts';

/**
 * The model as JSON, without what the edges may say differently and mean the same: the
 * conversion's bookkeeping annotation, and `privileged: false`, which v1alpha1's defaults write out
 * and Kubernetes takes for unset.
 */
function comparable(model: unknown): unknown {
  return JSON.parse(JSON.stringify(model), (key, value: unknown) => {
    if (key === 'privileged' && value === false) return undefined;
    if (key === 'annotations' && typeof value === 'object' && value !== null) {
      const { [V1ALPHA1_RESIDUE_ANNOTATION]: _residue, ...rest } = value as Record<string, unknown>;
      return Object.keys(rest).length > 0 ? rest : undefined;
    }
    return value;
  }) as unknown;
}

const minimal = {
  apiVersion: 'flux-framework.org/v1alpha1',
  kind: 'MiniCluster',
  metadata: { name: 'mc-a' },
  spec: { size: 1, containers: [{ image: 'fluxrm/flux-sched:jammy', command: null }] },
};

const v1alpha1Samples = fc.oneof(validMiniClusterV1alpha1, hostileMiniCluster);

describe("the CLI's and the controller's hub model of a v1alpha1 MiniCluster (properties)", () => {
  it('are the same: the hub validator accepts the converted MiniCluster, and defaults it alike', () => {
    let accepted = 0;
    fc.assert(
      fc.property(v1alpha1Samples, (sample) => {
        const written = validateMiniClusterV1alpha1(sample);
        if (!written.ok) return;
        accepted++;
        // The webhook never sees `field: null`: the API server prunes it before converting.
        const stored = validateMiniCluster(toV1alpha2(withoutNulls(sample)));
        assert.ok(stored.ok, stored.ok ? '' : JSON.stringify(stored.problems));
        assert.deepEqual(comparable(defaultedToV1alpha2(written.value)), comparable(stored.value));
      }),
      {
        numRuns: 1000,
        // Once missed by a run of 1000: `network: null` read as no network by one edge only.
        examples: [[{ ...minimal, spec: { ...minimal.spec, network: null, logging: null } }]],
      },
    );
    // Not vacuous: the valid half is accepted, and some hostile ones are.
    assert.ok(accepted > 400, `only ${accepted} of 1000 were accepted`);
  });
});
