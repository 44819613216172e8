import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONVERSION_WEBHOOK_PATH, DEFAULT_CONVERSION_SERVICE } from '../../../src/api/shared/crd.ts';
import { miniClusterV1alpha1Crd } from '../../../src/api/v1alpha1/crd.ts';
import { miniClusterCrd } from '../../../src/api/minicluster-crd.ts';
import {
  OPERATOR_NAMESPACE,
  WEBHOOK_SERVICE_NAME,
  WEBHOOK_SERVICE_PORT,
  installedMiniClusterCrd,
} from '../../../src/deploy/index.ts';

describe('the MiniCluster CRD with two versions', () => {
  it('serves v1alpha1 and v1alpha2 and stores v1alpha2 only', () => {
    const versions = miniClusterCrd().spec.versions.map(({ name, served, storage }) => ({
      name,
      served,
      storage,
    }));
    assert.deepEqual(versions, [
      { name: 'v1alpha1', served: true, storage: false },
      { name: 'v1alpha2', served: true, storage: true },
    ]);
  });

  it('converts through the webhook with ConversionReview v1, at the default install Service by default', () => {
    assert.deepEqual(miniClusterCrd().spec.conversion, {
      strategy: 'Webhook',
      webhook: {
        conversionReviewVersions: ['v1'],
        clientConfig: {
          service: {
            namespace: 'flux-operator-system',
            name: 'flux-operator-webhook',
            path: '/convert',
            port: 443,
          },
        },
      },
    });
    // The API's default is the install's: the same names as src/deploy.
    assert.deepEqual(DEFAULT_CONVERSION_SERVICE, {
      namespace: OPERATOR_NAMESPACE,
      name: WEBHOOK_SERVICE_NAME,
      path: CONVERSION_WEBHOOK_PATH,
      port: WEBHOOK_SERVICE_PORT,
    });
  });

  it('sends conversions where it is told: a URL with its caBundle, or the Service of an install', () => {
    const url = { url: 'https://127.0.0.1:40000/convert', caBundle: 'Q0E=' };
    assert.deepEqual(miniClusterCrd(url).spec.conversion?.webhook.clientConfig, url);
    assert.deepEqual(installedMiniClusterCrd('ops').spec.conversion?.webhook.clientConfig, {
      service: { namespace: 'ops', name: 'flux-operator-webhook', path: '/convert', port: 443 },
    });
  });

  it('keeps the v1alpha1 version of the single-version CRD, which stays available for upgrades', () => {
    const single = miniClusterV1alpha1Crd();
    assert.equal(single.spec.conversion, undefined);
    assert.deepEqual(
      single.spec.versions.map((v) => [v.name, v.served, v.storage]),
      [['v1alpha1', true, true]],
    );
    const { storage: _storage, ...v1alpha1 } = miniClusterCrd().spec.versions[0] ?? { storage: false };
    const { storage: _single, ...before } = single.spec.versions[0] ?? { storage: true };
    assert.deepEqual(v1alpha1, before, 'the same schema, columns and subresources');
  });

  it('returns a fresh object on each call', () => {
    const a = miniClusterCrd();
    a.spec.versions.pop();
    assert.equal(miniClusterCrd().spec.versions.length, 2);
  });
});
