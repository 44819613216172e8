import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { miniClusterCrd, miniClusterV1alpha1Crd } from '../../../../src/api/index.ts';
import {
  planStorageMigration,
  retryDelayMs,
  rewriteOutcome,
  storageVersionOf,
  type CrdVersions,
} from '../../../../src/controllers/storage-migration/plan.ts';

/** A CRD as the API server shows it: the spec this project installs, and a status. */
function live(spec: { spec: CrdVersions['spec'] }, storedVersions: string[]): CrdVersions {
  return { spec: spec.spec, status: { storedVersions } };
}

describe('planStorageMigration', () => {
  const upgraded = miniClusterCrd();

  it('migrates a CRD upgraded from the v1alpha1-only one; storedVersions becomes v1alpha2 alone', () => {
    assert.deepEqual(planStorageMigration(live(upgraded, ['v1alpha1', 'v1alpha2']), 'v1alpha2', true), {
      kind: 'migrate',
      stale: ['v1alpha1'],
      storedVersionsAfter: ['v1alpha2'],
    });
    // In whatever order the API server lists them.
    assert.deepEqual(planStorageMigration(live(upgraded, ['v1alpha2', 'v1alpha1']), 'v1alpha2', true), {
      kind: 'migrate',
      stale: ['v1alpha1'],
      storedVersionsAfter: ['v1alpha2'],
    });
  });

  it('watching some namespaces, rewrites them but leaves storedVersions as it is', () => {
    assert.deepEqual(planStorageMigration(live(upgraded, ['v1alpha1', 'v1alpha2']), 'v1alpha2', false), {
      kind: 'migrate',
      stale: ['v1alpha1'],
      storedVersionsAfter: undefined,
    });
  });

  it('does nothing once storedVersions holds the storage version alone (a fresh install, or migrated)', () => {
    assert.deepEqual(planStorageMigration(live(upgraded, ['v1alpha2']), 'v1alpha2', true), {
      kind: 'current',
    });
    assert.deepEqual(planStorageMigration(live(upgraded, ['v1alpha2']), 'v1alpha2', false), {
      kind: 'current',
    });
  });

  it('waits while the CRD is still the v1alpha1-only one (the operator upgraded before its CRD)', () => {
    const old = miniClusterV1alpha1Crd();
    assert.equal(storageVersionOf(old), 'v1alpha1');
    assert.deepEqual(planStorageMigration(live(old, ['v1alpha1']), 'v1alpha2', true), {
      kind: 'crd-not-upgraded',
      storageVersion: 'v1alpha1',
    });
    assert.deepEqual(planStorageMigration({}, 'v1alpha2', true), {
      kind: 'crd-not-upgraded',
      storageVersion: undefined,
    });
  });

  it('finds the storage version in the CRD this project installs', () => {
    assert.equal(storageVersionOf(upgraded), 'v1alpha2');
  });
});

describe('rewriteOutcome', () => {
  it("tells the RBAC's 403 (every object refused) from an admission policy's (this object only)", () => {
    assert.equal(
      rewriteOutcome(
        403,
        'miniclusters.flux-framework.org "a" is forbidden: User "system:serviceaccount:ops:flux-operator" ' +
          'cannot update resource "miniclusters" in API group "flux-framework.org" in the namespace "x" (HTTP 403)',
      ),
      'forbidden',
    );
    assert.equal(
      rewriteOutcome(
        403,
        "miniclusters.flux-framework.org \"a\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' " +
          'denied request: no (HTTP 403)',
      ),
      'refused',
    );
  });

  it('takes a conflict and a deletion as done, stops on what heals by itself, refuses one object for the rest', () => {
    assert.deepEqual(
      [200, 201, 409, 404, 422, 400, 429, 500, 503, undefined].map((code) => [code, rewriteOutcome(code)]),
      [
        [200, 'rewritten'],
        [201, 'rewritten'],
        [409, 'conflict'],
        [404, 'gone'],
        [422, 'refused'],
        [400, 'refused'],
        [429, 'retry'],
        [500, 'retry'],
        [503, 'retry'],
        [undefined, 'retry'],
      ],
    );
  });
});

describe('retryDelayMs', () => {
  it('doubles from the base after each failure, up to the cap', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 7, 8, 100].map((failures) => retryDelayMs(failures, 60_000, 3_600_000)),
      [60_000, 120_000, 240_000, 480_000, 3_600_000, 3_600_000, 3_600_000],
    );
    assert.equal(retryDelayMs(0, 1_000, 10_000), 1_000);
  });
});
