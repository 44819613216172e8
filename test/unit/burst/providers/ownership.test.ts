/**
 * The ownership rule on its own: a cluster is a BurstTarget's only when its owner mark is exactly
 * that BurstTarget's uid. The providers' and connectors' tests show it applied to recorded clouds.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProviderError } from '../../../../src/burst/providers/cluster-provider.ts';
import {
  MANAGED_BY_KEY,
  MANAGED_BY_VALUE,
  OWNER_UID_KEY,
  ownerMarks,
  ownershipOf,
  requireOwnerUid,
} from '../../../../src/burst/providers/ownership.ts';

const UID = '6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f';

describe('ownershipOf', () => {
  it('owns what ownerMarks marked, for that uid only', () => {
    assert.deepEqual(ownershipOf(ownerMarks(UID), UID, 'label'), { owned: true });
    assert.equal(ownershipOf(ownerMarks(UID), UID.replace('6f', '7f'), 'label').owned, false);
  });

  const notOwned: [string, Record<string, string> | null | undefined][] = [
    ['no marks (undefined)', undefined],
    ['no marks (null)', null],
    ['unrelated marks', { team: 'prod' }],
    ['managed-by only', { [MANAGED_BY_KEY]: MANAGED_BY_VALUE }],
    ['an empty owner', { [OWNER_UID_KEY]: '' }],
    ['the uid in upper case', { [OWNER_UID_KEY]: UID.toUpperCase() }],
    ['the uid with a suffix', { [OWNER_UID_KEY]: `${UID}-x` }],
    ['the uid as a prefix of the mark', { [OWNER_UID_KEY]: UID.slice(0, 8) }],
    ['the uid under another key', { 'burst-target-uid': UID }],
  ];
  for (const [what, marks] of notOwned) {
    it(`does not own a cluster with ${what}`, () => {
      const ownership = ownershipOf(marks, UID, 'tag');
      assert.equal(ownership.owned, false);
      assert.ok(!ownership.owned && ownership.why.includes(OWNER_UID_KEY), 'the message names the mark');
    });
  }
});

describe('requireOwnerUid', () => {
  it('accepts a Kubernetes uid', () => {
    assert.equal(requireOwnerUid('gke', UID), UID);
  });
  for (const bad of ['', 'A-UID', 'uid with spaces', `${'a'.repeat(64)}`, '-leading', undefined, 42]) {
    it(`refuses ${JSON.stringify(bad)}, naming the field`, () => {
      assert.throws(
        () => requireOwnerUid('eks', bad),
        (e: unknown) => e instanceof ProviderError && /^eks: spec\.ownerUid must be/.test(e.message),
      );
    });
  }
});
