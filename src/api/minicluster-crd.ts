/**
 * The MiniCluster CRD as installed: the v1alpha1 version of crd.ts (served, no longer stored) and the
 * v1alpha2 version (served and stored), converted by the operator's webhook. Apart from crd.ts, which
 * the v1alpha2 schema builds on, so that neither imports the other in a loop.
 */
import {
  DEFAULT_CONVERSION_SERVICE,
  miniClusterV1alpha1Crd,
  webhookConversion,
  type ConversionClientConfig,
  type CustomResourceDefinition,
} from './crd.ts';
import { miniClusterV1alpha2CrdVersion } from './v1alpha2/index.ts';

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
      versions: [...v1alpha1, miniClusterV1alpha2CrdVersion()],
      conversion: webhookConversion(clientConfig),
    },
  };
}
