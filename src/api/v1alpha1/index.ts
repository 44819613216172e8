/**
 * The spoke: v1alpha1, the MiniCluster version the CRD still serves but no longer stores. Its schema,
 * defaults, validation and CRD version, and the conversion to and from the hub (../).
 */
export * from './version.ts';
export * from './schema.ts';
export { applyDefaultsV1alpha1, defaultMiniClusterV1alpha1 } from './defaults.ts';
export { validateMiniClusterV1alpha1 } from './validate.ts';
export type { ValidationResultV1alpha1 } from './validate.ts';
export { miniClusterV1alpha1Crd } from './crd.ts';
export {
  CONVERTIBLE_API_VERSIONS,
  V1ALPHA1_RESIDUE_ANNOTATION,
  V1ALPHA2_RESIDUE_ANNOTATION,
  convertMiniCluster,
  toV1alpha1,
  toV1alpha2,
} from './convert.ts';
export { defaultedToV1alpha2, hubModelOf } from './convert-defaulted.ts';
