import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { writeOf } from '../../../src/kube/request-write.ts';

const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';

describe('writeOf', () => {
  it('names the verb by method and content type, the resource as RBAC does', () => {
    const cases: [string, string, string | undefined, string][] = [
      ['PATCH', '/apis/batch/v1/namespaces/ns/jobs/mc?fieldManager=f&force=true', APPLY, 'apply jobs'],
      [
        'PATCH',
        '/apis/flux-framework.org/v1alpha2/namespaces/ns/miniclusters/mc/status',
        MERGE,
        'patch miniclusters/status',
      ],
      ['PATCH', '/api/v1/persistentvolumes/pv', MERGE, 'patch persistentvolumes'],
      ['POST', '/api/v1/namespaces/ns/secrets?fieldManager=f', 'application/json', 'create secrets'],
      ['POST', '/api/v1/namespaces', 'application/json', 'create namespaces'],
      [
        'POST',
        '/api/v1/namespaces/ns/serviceaccounts/sa/token',
        'application/json',
        'create serviceaccounts/token',
      ],
      ['PUT', '/apis/coordination.k8s.io/v1/namespaces/ns/leases/l', 'application/json', 'update leases'],
      ['DELETE', '/api/v1/namespaces/ns', undefined, 'delete namespaces'],
      [
        'DELETE',
        '/apis/apps/v1/namespaces/ns/deployments/d?propagationPolicy=Background',
        undefined,
        'delete deployments',
      ],
      ['DELETE', '/api/v1/namespaces/ns/pods', undefined, 'deletecollection pods'],
    ];
    for (const [method, path, contentType, expected] of cases) {
      const write = writeOf({ method, path, contentType });
      assert.equal(write && `${write.verb} ${write.resource}`, expected, `${method} ${path}`);
    }
  });

  it('is undefined for reads, watches, dry runs and reviews', () => {
    assert.equal(writeOf({ method: 'POST', path: '/apis/authentication.k8s.io/v1/tokenreviews' }), undefined);
    assert.equal(
      writeOf({ method: 'POST', path: '/apis/authorization.k8s.io/v1/subjectaccessreviews' }),
      undefined,
    );
    assert.equal(writeOf({ method: 'GET', path: '/api/v1/namespaces/ns/pods' }), undefined);
    assert.equal(writeOf({ method: 'GET', path: '/api/v1/pods?watch=true' }), undefined);
    assert.equal(
      writeOf({ method: 'PATCH', path: '/api/v1/namespaces/ns/services/s?dryRun=All', contentType: APPLY }),
      undefined,
    );
  });
});
