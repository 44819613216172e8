/**
 * Pure Flux artifacts: hostlists, broker.toml, R, CURVE certificate, munge key, entrypoint script, the
 * Flux view's init command.
 */
export {
  HostlistError,
  MAX_DECODED_HOSTS,
  decodeHostlist,
  encodeHostlist,
  indexedHostNames,
} from './hostlist.ts';
export {
  DEFAULT_BIND_URI,
  DEFAULT_BROKER_PORT,
  DEFAULT_CLUSTER_DOMAIN,
  brokerConfigDocument,
  brokerConfigToml,
  brokerHostlist,
  burstClusterHostEntries,
  expandBrokerHosts,
  kubernetesConnectUri,
  miniClusterHostEntries,
} from './broker-config.ts';
export type {
  BrokerConfigDocument,
  BrokerConfigInput,
  BrokerHostEntry,
  BurstClusterHostsInput,
  BurstSlot,
  FluxionQueuePolicy,
  MiniClusterHostsInput,
} from './broker-config.ts';
export { idsetFromZero, resourceSpec, resourceSpecJson } from './resource-spec.ts';
export type { ResourceChildren, ResourceSetV1, ResourceSpecInput } from './resource-spec.ts';
export { z85Decode, z85Encode } from './z85.ts';
export {
  CURVE_KEY_BYTES,
  CurveCertificateError,
  curveCertificateText,
  curvePublicKeyFromSecret,
  generateCurveKeyPair,
  parseCurveCertificate,
} from './curve-cert.ts';
export type { CurveCertificateInput, CurveKeyPair, ParsedCurveCertificate } from './curve-cert.ts';
export { MUNGE_KEY_BYTES, mungeKey } from './munge-key.ts';
export type { RandomBytes } from './munge-key.ts';
export { shellQuote, shellQuoteWords } from './shell.ts';
export { entrypointScript, fluxStartWords, initialProgramWords, sizeFlags, staysUp } from './entrypoint.ts';
export type {
  BrokerRuntimeOptions,
  EntrypointHooks,
  EntrypointInput,
  EntrypointLogging,
  EntrypointPaths,
  FluxViewInput,
  InitialProgram,
  MungeInput,
  PlacementInput,
  ProgramContext,
  WhenDone,
} from './entrypoint.ts';
export { sidecarScript } from './sidecar.ts';
export {
  SPACK_SOFTWARE_COPY,
  SPACK_SOFTWARE_DIR,
  VIEW_INIT_FILE,
  VIEW_INIT_SHELL,
  VIEW_SIDECAR_FILE,
  viewInitCommand,
  viewInitScript,
  viewSidecarScript,
} from './view-init.ts';
export type { SidecarInput } from './sidecar.ts';
export {
  FORGET_CERTIFICATE_FILE,
  FORGET_CERTIFICATE_RC_PATH,
  MODPROBE_DIR,
  ONE_STEP_CLEANUP_FILE,
  ONE_STEP_CLEANUP_RC_PATH,
  oneStepCleanupScript,
  forgetCertificateScript,
} from './rc-scripts.ts';
