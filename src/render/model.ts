/**
 * The one model the renderer reads: the hub's DefaultedMiniCluster (v1alpha2, the stored version).
 * A v1alpha1 MiniCluster is converted where it is first held (the controller reads MiniClusters in
 * the hub's version; the CLI converts a v1alpha1 file with src/api/v1alpha1/convert-defaulted.ts),
 * so the renderer has one version to read and a v1alpha1 MiniCluster renders as it always has.
 */
export type { DefaultedContainer, DefaultedMiniCluster, DefaultedServiceContainer } from '../api/index.ts';
