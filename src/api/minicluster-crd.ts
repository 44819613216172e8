/**
 * The MiniCluster CRD as installed: the spoke's v1alpha1 version (v1alpha1/crd.ts: served, no longer
 * stored) and the hub's version (crd-version.ts: served and stored), converted by the operator's webhook.
 */
import {
  DEFAULT_CONVERSION_SERVICE,
  webhookConversion,
  type ConversionClientConfig,
  type CustomResourceDefinition,
} from './shared/crd.ts';
import { miniClusterCrdVersion } from './crd-version.ts';
import { miniClusterV1alpha1Crd } from './v1alpha1/crd.ts';

/**
 * The MiniCluster CRD: v1alpha1 served, v1alpha2 served and stored, converted by the operator's
 * webhook at `clientConfig` (the default install's Service unless given). Pure: the same object for
 * the same argument.
 */
export function miniClusterCrd(
  clientConfig: ConversionClientConfig = { service: { ...DEFAULT_CONVERSION_SERVICE } },
): CustomResourceDefinition {
  const single = miniClusterV1alpha1Crd();
  const v1alpha1 = single.spec.versions.map((version) => ({ ...version, storage: false }));
  return {
    ...single,
    spec: {
      ...single.spec,
      versions: [...v1alpha1, miniClusterCrdVersion()],
      conversion: webhookConversion(clientConfig),
    },
  };
}
