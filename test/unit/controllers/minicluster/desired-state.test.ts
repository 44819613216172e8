import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { containsDesired, staleChildren } from '../../../../src/controllers/minicluster/desired-state.ts';

describe('containsDesired', () => {
  it('accepts a live object with extra, defaulted fields', () => {
    const desired = { spec: { ports: [{ port: 8050 }], clusterIP: 'None' } };
    const live = {
      spec: { ports: [{ port: 8050, protocol: 'TCP' }], clusterIP: 'None', type: 'ClusterIP' },
      status: {},
    };
    assert.equal(containsDesired(desired, live), true);
  });

  it('sees a changed value, a missing field and a list of another length', () => {
    assert.equal(containsDesired({ a: { b: 1 } }, { a: { b: 2 } }), false);
    assert.equal(containsDesired({ a: 'x' }, {}), false);
    assert.equal(containsDesired({ list: [1, 2] }, { list: [1, 2, 3] }), false);
    assert.equal(containsDesired({ list: [{ x: 1 }] }, { list: [{ x: 2 }] }), false);
  });

  it('treats desired zero values as matching fields the API omits', () => {
    assert.equal(containsDesired({ readOnly: false, items: [], labels: {}, n: 0 }, {}), true);
    assert.equal(containsDesired({ readOnly: true }, {}), false);
  });

  it('does not confuse a list with a map', () => {
    assert.equal(containsDesired({ a: [1] }, { a: { 0: 1 } }), false);
    assert.equal(containsDesired({ a: { b: 1 } }, { a: [1] }), false);
  });
});

describe('staleChildren', () => {
  const owned = (kind: string, name: string, uid = 'u1', controller = true) => ({
    kind,
    metadata: { name, ownerReferences: [{ uid, controller }] },
  });
  const desired = [{ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'mc' } }];

  it('names the children this MiniCluster controls that it no longer renders', () => {
    assert.deepEqual(
      staleChildren(desired, [owned('Deployment', 'mc-services'), owned('Job', 'mc')], 'u1').map(
        (object) => `${object.kind}/${object.metadata.name}`,
      ),
      ['Deployment/mc-services'],
    );
  });

  it("never names another owner's object, an uncontrolled one, or anything without a uid to match", () => {
    assert.deepEqual(staleChildren(desired, [owned('Deployment', 'mc-services', 'u2')], 'u1'), []);
    assert.deepEqual(staleChildren(desired, [owned('Deployment', 'mc-services', 'u1', false)], 'u1'), []);
    assert.deepEqual(
      staleChildren(desired, [{ kind: 'Deployment', metadata: { name: 'mc-services' } }], 'u1'),
      [],
    );
    assert.deepEqual(staleChildren(desired, [owned('Deployment', 'mc-services', '')], ''), []);
  });

  it('keeps what is still rendered', () => {
    const services = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'mc-services' } };
    assert.deepEqual(staleChildren([...desired, services], [owned('Deployment', 'mc-services')], 'u1'), []);
  });
});
