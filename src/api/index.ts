/** The MiniCluster API: import from here rather than from the individual modules. */
export * from './group.ts';
export * from './labels.ts';
export * from './limits.ts';
export * from './schema.ts';
export * from './secret-keys.ts';
export * from './namespaced.ts';
export * from './status-schema.ts';
export * from './autoscale-schema.ts';
export { ContainerSchema, VolumeSchema } from './container-schema.ts';
export { StorageVolumeSchema } from './storage-schema.ts';
export { hasOwnSource } from './storage-rules.ts';
export { DEFAULT_CAPACITY, HOSTPATH_STORAGE_CLASS } from './storage-cel.ts';
export {
  FluxSchema,
  BurstingSchema,
  LeadBrokerSchema,
  LeadBrokerExposureSchema,
  BurstClusterSchema,
  QUEUE_POLICIES,
  FLAT_TOPOLOGY,
} from './flux-schema.ts';
export type { CelRule, Defaulted } from './schema-helpers.ts';
export { applyDefaults, applySchemaDefaults, defaultMiniCluster } from './defaults.ts';
export { validateMiniCluster } from './validate.ts';
export { miniClusterNameProblems } from './host-name-rules.ts';
export { userBrokerConfigFacts } from './user-broker-config.ts';
export type { UserBrokerConfigFacts } from './user-broker-config.ts';
export type { ValidationResult } from './validate.ts';
export { formatProblem } from './problems.ts';
export type { Problem } from './problems.ts';
export {
  CONVERSION_WEBHOOK_PATH,
  DEFAULT_CONVERSION_SERVICE,
  miniClusterV1alpha1Crd,
  toStructuralSchema,
  webhookConversion,
  PRINTER_COLUMNS,
  SCALE_SUBRESOURCE,
} from './crd.ts';
export { miniClusterCrd } from './minicluster-crd.ts';
export type {
  ConversionClientConfig,
  CrdConversion,
  CustomResourceDefinition,
  JsonSchemaProps,
  PrinterColumn,
} from './crd.ts';
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
} from './restful-schema.ts';
export * from './host-storage.ts';
export * from './node-access.ts';
export { DEFAULT_SHM_SIZE, SHM_MOUNT_PATH } from './shm-cel.ts';
export { shmSizeLimit } from './shm-rules.ts';
