import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  conversionLine,
  deploymentConversionLine,
} from '../../../../src/controllers/conversion/install-conversion.ts';

describe("install's line on the conversion", () => {
  it('says what a v1alpha1 manifest gets in each case', () => {
    assert.equal(
      conversionLine({ kind: 'none', served: ['v1alpha2'], unserved: ['v1alpha1'] }),
      'conversion: none until an operator serves it: only v1alpha2 is served; a manifest of ' +
        '"flux-framework.org/v1alpha1" is refused (kubectl: no matches for kind "MiniCluster" in version ...; ' +
        'the API: 404) until `flux-operator run` (or an install with --with-deployment) points the CRD at ' +
        'its conversion webhook',
    );
    assert.match(
      conversionLine({
        kind: 'needs-operator',
        webhook: 'service a/b:443/convert',
        stored: ['v1alpha1', 'v1alpha2'],
      }),
      /^conversion: through service a\/b:443\/convert, which no operator answers yet: MiniClusters may be stored as v1alpha1, v1alpha2 .* fail \(HTTP 500\)/,
    );
    assert.match(
      conversionLine({ kind: 'unchecked', webhook: 'https://x/convert', reason: 'forbidden (HTTP 403)' }),
      /^conversion: kept the webhook at https:\/\/x\/convert; .* could not be checked \(forbidden \(HTTP 403\)\)$/,
    );
  });

  it('with the Deployment: its Service, answered once a pod is Ready, or the webhook kept', () => {
    const service = {
      service: { namespace: 'ops', name: 'flux-operator-webhook', path: '/convert', port: 443 },
    };
    assert.match(
      deploymentConversionLine({ ...service, caBundle: 'Q0E=' }, service, false),
      /^conversion: through service ops\/flux-operator-webhook:443\/convert, answered once a pod of the Deployment is Ready/,
    );
    const url = { url: 'https://127.0.0.1:1/convert' };
    assert.equal(
      deploymentConversionLine(url, service, true),
      'conversion: kept the webhook at https://127.0.0.1:1/convert (--leave-crd-conversion)',
    );
    assert.match(deploymentConversionLine(url, service, false), /until the Deployment's operator/);
  });
});
