/** The operator's own install (Namespace, CRD, RBAC, Deployment): pure builders. */
export * from './constants.ts';
export * from './rbac.ts';
export * from './deployment.ts';
export * from './install-objects.ts';
export * from './yaml.ts';
export * from './host-storage-policy.ts';
