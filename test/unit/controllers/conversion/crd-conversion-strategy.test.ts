import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { miniClusterCrd, miniClusterV1alpha1Crd } from '../../../../src/api/index.ts';
import {
  storageVersion,
  storedOnlyAs,
  toNoWebhookPatch,
  toWebhookPatch,
  withoutWebhook,
  type CrdConversionView,
} from '../../../../src/controllers/conversion/crd-conversion-strategy.ts';

const URL_CONFIG = { url: 'https://127.0.0.1:9443/convert', caBundle: 'Q0E=' };

function live(crd: object, resourceVersion: string, storedVersions: string[]): CrdConversionView {
  return { ...crd, metadata: { resourceVersion }, status: { storedVersions } } as CrdConversionView;
}

describe('the CRD converting nothing until an operator serves its webhook', () => {
  it('withoutWebhook serves the storage version alone and converts nothing; the schemas stay', () => {
    const crd = miniClusterCrd();
    const without = withoutWebhook(crd);
    assert.deepEqual(without.spec.conversion, { strategy: 'None' });
    assert.deepEqual(
      without.spec.versions.map(({ name, served, storage }) => ({ name, served, storage })),
      [
        { name: 'v1alpha1', served: false, storage: false },
        { name: 'v1alpha2', served: true, storage: true },
      ],
    );
    assert.deepEqual(
      without.spec.versions.map((version) => version.schema),
      crd.spec.versions.map((version) => version.schema),
    );
    assert.deepEqual(crd.spec.conversion?.strategy, 'Webhook', 'the CRD given is left as it was');
  });

  it('may convert nothing only when everything is stored as the version the applied CRD stores', () => {
    const storage = storageVersion(miniClusterCrd());
    assert.equal(storage, 'v1alpha2');
    for (const [stored, expected] of [
      [['v1alpha2'], true],
      [[], true],
      [['v1alpha1', 'v1alpha2'], false],
      // The single-version CRD stores v1alpha1: its objects need the webhook once v1alpha2 is stored.
      [['v1alpha1'], false],
    ] as const) {
      assert.equal(
        storedOnlyAs(live(miniClusterV1alpha1Crd(), '1', [...stored]), storage),
        expected,
        stored.join(),
      );
    }
  });

  it('toWebhookPatch turns a CRD converting nothing to the webhook and serves every version, guarded', () => {
    const crd = live(withoutWebhook(miniClusterCrd()), '42', ['v1alpha2']);
    assert.deepEqual(toWebhookPatch(crd, URL_CONFIG), [
      { op: 'test', path: '/metadata/resourceVersion', value: '42' },
      {
        op: 'replace',
        path: '/spec/conversion',
        value: {
          strategy: 'Webhook',
          webhook: { conversionReviewVersions: ['v1'], clientConfig: URL_CONFIG },
        },
      },
      { op: 'replace', path: '/spec/versions/0/served', value: true },
    ]);
  });

  it('toWebhookPatch leaves a CRD with a webhook to the clientConfig sync, and a single-version CRD alone', () => {
    assert.equal(toWebhookPatch(live(miniClusterCrd(), '1', ['v1alpha2']), URL_CONFIG), undefined);
    assert.equal(toWebhookPatch(live(miniClusterV1alpha1Crd(), '1', ['v1alpha1']), URL_CONFIG), undefined);
  });

  it('toNoWebhookPatch is the step back, in one guarded patch', () => {
    assert.deepEqual(toNoWebhookPatch(live(miniClusterCrd(URL_CONFIG), '7', ['v1alpha2'])), [
      { op: 'test', path: '/metadata/resourceVersion', value: '7' },
      { op: 'replace', path: '/spec/conversion', value: { strategy: 'None' } },
      { op: 'replace', path: '/spec/versions/0/served', value: false },
    ]);
  });
});
