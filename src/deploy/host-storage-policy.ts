/**
 * The ValidatingAdmissionPolicy (and its binding) that refuses, at `kubectl apply`, MiniClusters
 * naming storage that reaches the node (src/api/host-storage.ts), or settings that give their pods the
 * node itself (src/api/node-access.ts), in namespaces an administrator has not allowed (the label HOST_STORAGE_LABEL=allowed, which `flux-operator install
 * --allow-host-storage` sets). Installed with the CRD. The operator checks the same in its reconcile,
 * for clusters without the policy and objects stored before it.
 */
import {
  GROUP,
  HOST_STORAGE_ALLOWED,
  HOST_STORAGE_CEL,
  HOST_STORAGE_LABEL,
  NODE_ACCESS_CEL,
  PLURAL,
  celRefusal,
} from '../api/index.ts';
import type { Rendered } from '../render/kube-object.ts';
import { OPERATOR_NAME, operatorLabels } from './constants.ts';

export const HOST_STORAGE_POLICY_NAME = `${OPERATOR_NAME}-host-storage`;

const API_VERSION = 'admissionregistration.k8s.io/v1';

/** An admission object (no client model is used for them: plain JSON, applied server-side). */
export type AdmissionObject = Rendered<{ spec: Record<string, unknown> }>;

const NODE_ACCESS = 'access to the node itself (root on it)';
const NODE_CONTEXT = `a security context with ${NODE_ACCESS}: privileged, capabilities beyond the default set of the runtime, seccomp or AppArmor Unconfined, or SELinux options beyond those of a container`;

/** The node-access checks: the variable, the field its refusal names, and what is refused (no quote: CEL text). */
const NODE_ACCESS_CHECKS: readonly [string, string, string][] = [
  ['nodePod', 'spec.pod', `the namespaces of the node (hostPID, hostIPC, hostNetwork) or ${NODE_CONTEXT}`],
  ['nodeContainers', 'spec.containers[].securityContext', NODE_CONTEXT],
  ['nodeServices', 'spec.services[].securityContext', NODE_CONTEXT],
  [
    'nodeAnnotations',
    'metadata.annotations',
    `conversion steps naming host storage or ${NODE_ACCESS} (hostPID, privileged, capabilities, Unconfined...)`,
  ],
];

/** The policy: what counts as host storage, with a message naming the field and how to allow it. */
export function hostStoragePolicy(): AdmissionObject {
  return {
    apiVersion: API_VERSION,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: HOST_STORAGE_POLICY_NAME, labels: operatorLabels() },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: [GROUP],
            apiVersions: ['*'],
            operations: ['CREATE', 'UPDATE'],
            resources: [PLURAL],
          },
        ],
      },
      // An update that leaves the spec as it was (a finalizer, a label) is let through: an object
      // stored before the policy can still be deleted. The operator refuses to run such an object.
      matchConditions: [
        { name: 'spec-written', expression: "request.operation == 'CREATE' || object.spec != oldObject.spec" },
      ],
      variables: [
        { name: 'nodeVolumes', expression: HOST_STORAGE_CEL.nodeVolumes },
        { name: 'containers', expression: HOST_STORAGE_CEL.containers('containers') },
        { name: 'services', expression: HOST_STORAGE_CEL.containers('services') },
        { name: 'nodePod', expression: NODE_ACCESS_CEL.pod },
        { name: 'nodeContainers', expression: NODE_ACCESS_CEL.containers('containers') },
        { name: 'nodeServices', expression: NODE_ACCESS_CEL.containers('services') },
        { name: 'nodeAnnotations', expression: NODE_ACCESS_CEL.annotations },
      ],
      validations: [
        {
          expression: 'size(variables.nodeVolumes) == 0',
          messageExpression: celRefusal(
            'spec.volumes',
            'variables.nodeVolumes',
            'storage on the node (storageClass hostpath) or a CSI volume (driver)',
          ),
          reason: 'Forbidden',
        },
        {
          expression: 'size(variables.containers) == 0',
          messageExpression: celRefusal(
            'spec.containers[].volumes',
            'variables.containers',
            'hostPath or csiDriver volumes',
          ),
          reason: 'Forbidden',
        },
        {
          expression: 'size(variables.services) == 0',
          messageExpression: celRefusal(
            'spec.services[].volumes',
            'variables.services',
            'hostPath or csiDriver volumes',
          ),
          reason: 'Forbidden',
        },
        ...NODE_ACCESS_CHECKS.map(([variable, field, kind]) => ({
          expression: `size(variables.${variable}) == 0`,
          messageExpression: celRefusal(field, `variables.${variable}`, kind),
          reason: 'Forbidden',
        })),
      ],
    },
  };
}

/** The binding: the policy denies in every namespace without the label. */
export function hostStoragePolicyBinding(): AdmissionObject {
  return {
    apiVersion: API_VERSION,
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: HOST_STORAGE_POLICY_NAME, labels: operatorLabels() },
    spec: {
      policyName: HOST_STORAGE_POLICY_NAME,
      validationActions: ['Deny'],
      matchResources: {
        namespaceSelector: {
          matchExpressions: [{ key: HOST_STORAGE_LABEL, operator: 'NotIn', values: [HOST_STORAGE_ALLOWED] }],
        },
      },
    },
  };
}

/** A namespace labelled to allow host storage (applied server-side: only the label is ours). */
export function hostStorageNamespace(name: string): Rendered<object> {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels: { [HOST_STORAGE_LABEL]: HOST_STORAGE_ALLOWED } },
  };
}
