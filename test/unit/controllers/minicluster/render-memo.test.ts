import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toV1alpha2, validateMiniCluster, type ValidationResult } from '../../../../src/api/index.ts';
import { containsDesired } from '../../../../src/controllers/minicluster/desired-state.ts';
import { RenderMemo, sameKeys } from '../../../../src/controllers/minicluster/render-memo.ts';
import type { LiveMiniCluster } from '../../../../src/controllers/minicluster/watched-kinds.ts';
import { renderMiniCluster, type KubeObject } from '../../../../src/render/index.ts';
import { IMAGE, KEYS } from '../../render/fixtures.ts';

const KEY = 'default/flux-sample';

/** A MiniCluster written as v1alpha1, read as the stored v1alpha2 (what the operator's cache holds). */
function live(overrides: { generation?: number; size?: number; maximumSize?: number; uid?: string } = {}) {
  return toV1alpha2({
    apiVersion: 'flux-framework.org/v1alpha1',
    kind: 'MiniCluster',
    metadata: {
      name: 'flux-sample',
      namespace: 'default',
      uid: overrides.uid ?? 'uid-1',
      generation: overrides.generation ?? 1,
      resourceVersion: '10',
    },
    spec: { size: overrides.size ?? 2, containers: [{ image: IMAGE }] },
    ...(overrides.maximumSize === undefined ? {} : { status: { maximumSize: overrides.maximumSize } }),
  }) as unknown as LiveMiniCluster;
}

/** validateMiniClusterV1alpha1, counting its calls. */
function counted(object: LiveMiniCluster) {
  const calls = { count: 0 };
  return {
    calls,
    validate: (): ValidationResult => {
      calls.count += 1;
      return validateMiniCluster(object);
    },
  };
}

function validSpec(result: ValidationResult) {
  assert.ok(result.ok);
  return result.value;
}

describe('RenderMemo.validated', () => {
  it('validates once per generation, and returns the metadata and status of the object passed now', () => {
    const memo = new RenderMemo();
    const first = live();
    const firstRun = counted(first);
    const value = validSpec(memo.validated(KEY, first, firstRun.validate));

    const later = { ...live(), metadata: { ...live().metadata, resourceVersion: '11', labels: { a: 'b' } } };
    const laterRun = counted(later);
    const again = validSpec(memo.validated(KEY, later, laterRun.validate));
    assert.equal(firstRun.calls.count, 1);
    assert.equal(laterRun.calls.count, 0);
    assert.equal(again.spec, value.spec);
    assert.equal((again.metadata as { resourceVersion?: string }).resourceVersion, '11');
    assert.deepEqual(again.metadata.labels, { a: 'b' });
  });

  it('validates again when the generation, the uid or status.maximumSize changes', () => {
    const memo = new RenderMemo();
    memo.validated(KEY, live(), counted(live()).validate);
    for (const changed of [live({ generation: 2 }), live({ uid: 'uid-2' }), live({ maximumSize: 4 })]) {
      const run = counted(changed);
      memo.validated(KEY, changed, run.validate);
      assert.equal(run.calls.count, 1, JSON.stringify(changed.metadata));
    }
  });

  it('keeps no refused spec: the next pass validates again and says the same', () => {
    const memo = new RenderMemo();
    const tooBig = live({ size: 8, maximumSize: 4 });
    for (let pass = 0; pass < 2; pass += 1) {
      const run = counted(tooBig);
      const result = memo.validated(KEY, tooBig, run.validate);
      assert.equal(run.calls.count, 1);
      assert.equal(result.ok, false);
    }
    assert.equal(memo.size, 0);
  });

  it('keeps nothing for an object without a generation (it could not tell a spec change)', () => {
    const memo = new RenderMemo();
    const object = live();
    delete (object.metadata as { generation?: number }).generation;
    memo.validated(KEY, object, counted(object).validate);
    const run = counted(object);
    memo.validated(KEY, object, run.validate);
    assert.equal(run.calls.count, 1);
  });

  it('keeps the most recently used MiniClusters only', () => {
    const memo = new RenderMemo(2);
    for (const name of ['a', 'b', 'c']) memo.validated(`default/${name}`, live(), counted(live()).validate);
    assert.equal(memo.size, 2);
    const run = counted(live());
    memo.validated('default/a', live(), run.validate);
    assert.equal(run.calls.count, 1, 'the oldest entry was dropped');
  });
});

describe('RenderMemo.rendered', () => {
  function rendering(memo: RenderMemo) {
    const object = live();
    const value = validSpec(memo.validated(KEY, object, counted(object).validate));
    const calls = { count: 0 };
    return {
      calls,
      render: (keys = KEYS) =>
        memo.rendered(KEY, keys, () => {
          calls.count += 1;
          return renderMiniCluster(value, keys, {
            owner: {
              apiVersion: 'flux-framework.org/v1alpha1',
              kind: 'MiniCluster',
              name: 'flux-sample',
              uid: 'uid-1',
            },
          });
        }),
    };
  }

  it('renders once while the spec and the keys stay the same', () => {
    const memo = new RenderMemo();
    const { calls, render } = rendering(memo);
    const first = render();
    assert.equal(render({ ...KEYS, mungeKey: Uint8Array.from(KEYS.mungeKey) }), first);
    assert.equal(calls.count, 1);
  });

  it('renders again when a key differs', () => {
    const memo = new RenderMemo();
    const { calls, render } = rendering(memo);
    render();
    render({ ...KEYS, curveCertificate: 'ANOTHER' });
    assert.equal(calls.count, 2);
  });

  it('renders every time for a MiniCluster whose spec it does not hold', () => {
    const memo = new RenderMemo();
    let calls = 0;
    for (let pass = 0; pass < 2; pass += 1) {
      memo.rendered(KEY, KEYS, () => {
        calls += 1;
        return [];
      });
    }
    assert.equal(calls, 2);
  });
});

describe('RenderMemo.contains', () => {
  const desired: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'flux-sample-flux-config', namespace: 'default' },
  };

  function memoHolding(objects: KubeObject[]) {
    const memo = new RenderMemo();
    memo.validated(KEY, live(), counted(live()).validate);
    memo.rendered(KEY, KEYS, () => objects);
    return memo;
  }

  function countedContains() {
    const calls = { count: 0 };
    return {
      calls,
      contains: (wanted: KubeObject, found: KubeObject) => {
        calls.count += 1;
        return containsDesired(wanted, found);
      },
    };
  }

  const liveAt = (resourceVersion: string, extra: Record<string, string> = {}): KubeObject => ({
    ...desired,
    metadata: { ...desired.metadata, resourceVersion, labels: extra },
  });

  it('compares a rendered object with a live resourceVersion once', () => {
    const memo = memoHolding([desired]);
    const { calls, contains } = countedContains();
    assert.equal(memo.contains(KEY, desired, liveAt('5'), contains), true);
    assert.equal(memo.contains(KEY, desired, liveAt('5'), contains), true);
    assert.equal(calls.count, 1);
    assert.equal(memo.contains(KEY, desired, liveAt('6'), contains), true);
    assert.equal(calls.count, 2);
  });

  it('never remembers a difference, nor an object it did not render', () => {
    const memo = memoHolding([desired]);
    const { calls, contains } = countedContains();
    const different = { ...liveAt('5'), metadata: { name: 'other', resourceVersion: '5' } };
    assert.equal(memo.contains(KEY, desired, different, contains), false);
    assert.equal(memo.contains(KEY, desired, different, contains), false);
    const copy = { ...desired };
    assert.equal(memo.contains(KEY, copy, liveAt('5'), contains), true);
    assert.equal(memo.contains(KEY, copy, liveAt('5'), contains), true);
    assert.equal(calls.count, 4);
  });

  it('says false for an object not live yet, without comparing', () => {
    const memo = memoHolding([desired]);
    const { calls, contains } = countedContains();
    assert.equal(memo.contains(KEY, desired, undefined, contains), false);
    assert.equal(calls.count, 0);
  });
});

describe('sameKeys', () => {
  it('compares the certificate text and the bytes of the munge key and the seed', () => {
    assert.equal(sameKeys(KEYS, { ...KEYS, restfulSeed: Uint8Array.from(KEYS.restfulSeed ?? []) }), true);
    assert.equal(sameKeys(KEYS, { ...KEYS, mungeKey: new Uint8Array(1024) }), false);
    const { restfulSeed: _seed, ...withoutSeed } = KEYS;
    assert.equal(sameKeys(KEYS, withoutSeed), false);
  });
});
