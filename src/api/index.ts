/**
 * The MiniCluster API: import from here rather than from the individual modules. The plain names are
 * the hub, the stored version (v1alpha2); v1alpha1's carry its version (MiniClusterV1alpha1,
 * validateMiniClusterV1alpha1, ...) and live in v1alpha1/ with the conversion; shared/ holds what
 * both versions are built from.
 */
export * from './group.ts';
export * from './go-defaults.ts';
export * from './schema.ts';
export { ContainerVolumeSchema, EMPTY_DIR_MEDIA } from './volume-schema.ts';
export { FluxContainerSchema } from './flux-schema.ts';
export { applyDefaults, defaultMiniCluster } from './defaults.ts';
export type { DefaultsOptions } from './defaults.ts';
export { validateMiniCluster } from './validate.ts';
export type { ValidationResult } from './validate.ts';
export { volumeMountPath, volumeSources } from './volume-rules.ts';
export { miniClusterCrdVersion } from './crd-version.ts';
export type { MiniClusterCrdVersion } from './crd-version.ts';
export { miniClusterCrd } from './minicluster-crd.ts';
export { NOT_YET_RENDERED, notYetRenderedProblems } from './not-yet-rendered.ts';
export type { NotYetRendered } from './not-yet-rendered.ts';
export * from './v1alpha1/index.ts';
export type * from './shared/field-types.ts';

export * from './shared/spec-fields.ts';
export * from './shared/labels.ts';
export * from './shared/limits.ts';
export * from './shared/secret-keys.ts';
export * from './shared/namespaced.ts';
export * from './shared/autoscale-schema.ts';
export * from './shared/status-schema.ts';
export { VolumeSchema } from './shared/container-fields.ts';
export { StorageVolumeSchema } from './shared/storage-schema.ts';
export { hasOwnSource } from './shared/storage-problems.ts';
export { DEFAULT_CAPACITY, HOSTPATH_STORAGE_CLASS } from './shared/storage-cel.ts';
export {
  BurstingSchema,
  LeadBrokerSchema,
  LeadBrokerExposureSchema,
  BurstClusterSchema,
  QUEUE_POLICIES,
  FLAT_TOPOLOGY,
} from './shared/flux-fields.ts';
export type { CelRule, Defaulted } from './shared/schema-helpers.ts';
export { applySchemaDefaults } from './shared/defaulting.ts';
export { miniClusterNameProblems } from './shared/minicluster-name.ts';
export { userBrokerConfigFacts } from './shared/user-broker-config.ts';
export type { UserBrokerConfigFacts } from './shared/user-broker-config.ts';
export { formatProblem } from './shared/problems.ts';
export type { Problem } from './shared/problems.ts';
export {
  CONVERSION_WEBHOOK_PATH,
  DEFAULT_CONVERSION_SERVICE,
  toStructuralSchema,
  webhookConversion,
  PRINTER_COLUMNS,
  SCALE_SUBRESOURCE,
} from './shared/crd.ts';
export type {
  ConversionClientConfig,
  CrdConversion,
  CustomResourceDefinition,
  JsonSchemaProps,
  PrinterColumn,
} from './shared/crd.ts';
export * from './burst-target-schema.ts';
export { burstTargetCrd, BURST_TARGET_PRINTER_COLUMNS } from './burst-target-crd.ts';
export type { BurstTargetCustomResourceDefinition } from './burst-target-crd.ts';
export {
  applyBurstTargetDefaults,
  defaultBurstTarget,
  validateBurstTarget,
} from './burst-target-validate.ts';
export type { BurstTargetValidationResult } from './burst-target-validate.ts';
export {
  DEFAULT_RESTFUL_PORT,
  DEFAULT_RESTFUL_USER,
  FluxRestfulSchema,
  UsersSchema,
  servesRestfulApi,
} from './shared/restful-schema.ts';
export * from './shared/host-storage.ts';
export * from './shared/node-access.ts';
export { DEFAULT_SHM_SIZE, SHM_MOUNT_PATH } from './shared/shm-cel.ts';
export { shmSizeLimit } from './shared/shm.ts';
