import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiClients, collectionPath } from '../../../src/kube/api-clients.ts';
import { watchedKinds } from '../../../src/controllers/minicluster/watched-kinds.ts';

describe('collectionPath', () => {
  it('puts the namespace between the API prefix and the resource, or leaves it out for all', () => {
    assert.equal(collectionPath('/api/v1', 'pods', 'ns'), '/api/v1/namespaces/ns/pods');
    assert.equal(collectionPath('/apis/batch/v1', 'jobs'), '/apis/batch/v1/jobs');
  });

  it('gives each watched kind the path the API server serves it at', () => {
    const kinds = watchedKinds(
      apiClients({
        server: 'https://127.0.0.1:1',
        tls: { rejectUnauthorized: true },
        authorization: () => Promise.resolve(undefined),
        clientConfig: () => Promise.reject(new Error('not used')),
      }),
    );
    assert.deepEqual(
      Object.values(kinds).map((kind) => [kind.path('ns'), kind.path(undefined)]),
      [
        [
          '/apis/flux-framework.org/v1alpha2/namespaces/ns/miniclusters',
          '/apis/flux-framework.org/v1alpha2/miniclusters',
        ],
        ['/apis/batch/v1/namespaces/ns/jobs', '/apis/batch/v1/jobs'],
        ['/api/v1/namespaces/ns/pods', '/api/v1/pods'],
        ['/api/v1/namespaces/ns/services', '/api/v1/services'],
        ['/api/v1/namespaces/ns/configmaps', '/api/v1/configmaps'],
        ['/api/v1/namespaces/ns/secrets', '/api/v1/secrets'],
        ['/apis/apps/v1/namespaces/ns/deployments', '/apis/apps/v1/deployments'],
        ['/api/v1/namespaces/ns/persistentvolumeclaims', '/api/v1/persistentvolumeclaims'],
        ['/api/v1/persistentvolumes', '/api/v1/persistentvolumes'],
      ],
    );
  });
});
