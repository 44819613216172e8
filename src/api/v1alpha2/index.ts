/** The v1alpha2 MiniCluster API: import from here rather than from the individual modules. */
export * from './version.ts';
export * from './schema.ts';
export { ContainerVolumeSchema, EMPTY_DIR_MEDIA } from './volume-schema.ts';
export { FluxContainerSchema } from './flux-schema.ts';
export { applyDefaultsV1alpha2, defaultMiniClusterV1alpha2 } from './defaults.ts';
export type { DefaultsOptions } from './defaults.ts';
export { validateMiniClusterV1alpha2 } from './validate.ts';
export type { ValidationResultV1alpha2 } from './validate.ts';
export { volumeMountPath, volumeSources } from './volume-rules.ts';
export { miniClusterV1alpha2CrdVersion } from './crd-version.ts';
export type { MiniClusterCrdVersion } from './crd-version.ts';
export { NOT_YET_RENDERED, notYetRenderedProblems } from './not-yet-rendered.ts';
export type { NotYetRendered } from './not-yet-rendered.ts';
export {
  CONVERTIBLE_API_VERSIONS,
  V1ALPHA1_RESIDUE_ANNOTATION,
  V1ALPHA2_RESIDUE_ANNOTATION,
  convertMiniCluster,
  toV1alpha1,
  toV1alpha2,
} from './convert.ts';
