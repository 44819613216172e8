import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  customResourceDefinitions,
  parseKustomization,
  parseObjects,
  placed,
  webhookConfigurations,
} from '../../../workbench/src/localcluster/kueue/manifests.ts';

const endpoint = { url: 'https://127.0.0.1:30001', caBundle: 'Q0E=' };
const placement = { namePrefix: 'kueue-', namespace: 'kueue-system' };

const crd = (name: string) =>
  parseObjects(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${name}
spec:
  group: kueue.x-k8s.io
  versions: [{ name: v1beta2, served: true, storage: true }]
`)[0];

describe("Kueue's install objects, as config/default makes them, for a Kueue on this host", () => {
  it('reads a kustomization: namespace, prefix, resources and both kinds of patch', () => {
    const k = parseKustomization(`namespace: kueue-system
namePrefix: kueue-
resources:
- a.yaml
patches:
- path: p.yaml
- patch: |-
    kind: X
`);
    assert.deepEqual(k, {
      namespace: 'kueue-system',
      namePrefix: 'kueue-',
      resources: ['a.yaml'],
      patches: [{ path: 'p.yaml' }, { patch: 'kind: X' }],
    });
    assert.deepEqual(parseKustomization('resources: [b.yaml]'), { resources: ['b.yaml'], patches: [] });
  });

  it('parses every object of a multi-document text, leaving out empty and comment-only documents', () => {
    const objects = parseObjects('---\n# a comment\n---\nkind: A\nmetadata: {name: a}\n---\nkind: B\n');
    assert.deepEqual(
      objects.map((o) => o.kind),
      ['A'],
    );
  });

  it("gives a CRD its patch's conversion webhook on the loopback URL with the CA, and leaves the others", () => {
    const workloads = crd('workloads.kueue.x-k8s.io');
    const flavors = crd('resourceflavors.kueue.x-k8s.io');
    assert.ok(workloads && flavors);
    const patch = parseObjects(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: workloads.kueue.x-k8s.io
spec:
  conversion:
    strategy: Webhook
    webhook:
      clientConfig:
        service: { namespace: system, name: webhook-service, path: /convert }
      conversionReviewVersions: [v1]
`);
    const [patched, untouched] = customResourceDefinitions([workloads, flavors], patch, endpoint);
    assert.deepEqual((patched?.spec as Record<string, unknown>).conversion, {
      strategy: 'Webhook',
      webhook: {
        clientConfig: { url: 'https://127.0.0.1:30001/convert', caBundle: 'Q0E=' },
        conversionReviewVersions: ['v1'],
      },
    });
    assert.equal((patched?.spec as Record<string, unknown>).group, 'kueue.x-k8s.io');
    assert.deepEqual(untouched, flavors);
  });

  it('prefixes names, moves namespaced objects to the namespace, and follows bindings to roles and accounts', () => {
    const objects = parseObjects(`apiVersion: v1
kind: ServiceAccount
metadata: { name: controller-manager, namespace: system }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: manager-role }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: leader-election-rolebinding, namespace: system }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: leader-election-role }
subjects:
- { kind: ServiceAccount, name: controller-manager, namespace: system }
- { kind: Group, name: system:authenticated }
`);
    const [account, role, binding] = placed(objects, placement);
    assert.deepEqual(account?.metadata, { name: 'kueue-controller-manager', namespace: 'kueue-system' });
    assert.deepEqual(role?.metadata, { name: 'kueue-manager-role' });
    assert.deepEqual(binding?.metadata, {
      name: 'kueue-leader-election-rolebinding',
      namespace: 'kueue-system',
    });
    assert.deepEqual(binding?.roleRef, {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Role',
      name: 'kueue-leader-election-role',
    });
    assert.deepEqual(binding?.subjects, [
      { kind: 'ServiceAccount', name: 'kueue-controller-manager', namespace: 'kueue-system' },
      { kind: 'Group', name: 'system:authenticated' },
    ]);
  });

  it("points every webhook at the loopback URL with its own path, merges the patches' fields by webhook name, drops the Service", () => {
    const objects = parseObjects(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: { name: mutating-webhook-configuration }
webhooks:
- name: mjob.kb.io
  clientConfig: { service: { name: webhook-service, namespace: system, path: /mutate-batch-v1-job } }
  failurePolicy: Fail
- name: mpod.kb.io
  clientConfig: { service: { name: webhook-service, namespace: system, path: /mutate--v1-pod } }
---
apiVersion: v1
kind: Service
metadata: { name: webhook-service, namespace: system }
`);
    const patches = parseObjects(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: { name: mutating-webhook-configuration }
webhooks:
- name: mpod.kb.io
  namespaceSelector: { matchExpressions: [{ key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system] }] }
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: { name: mutating-webhook-configuration }
webhooks:
- name: mjob.kb.io
  failurePolicy: Ignore
`);
    const configs = webhookConfigurations(objects, patches, endpoint, placement);
    assert.equal(configs.length, 1);
    assert.equal(configs[0]?.metadata.name, 'kueue-mutating-webhook-configuration');
    const [job, pod] = configs[0]?.webhooks as Record<string, unknown>[];
    assert.deepEqual(job, {
      name: 'mjob.kb.io',
      clientConfig: { url: 'https://127.0.0.1:30001/mutate-batch-v1-job', caBundle: 'Q0E=' },
      failurePolicy: 'Fail', // the patch of another kind does not apply
    });
    assert.deepEqual(pod?.clientConfig, { url: 'https://127.0.0.1:30001/mutate--v1-pod', caBundle: 'Q0E=' });
    assert.deepEqual(pod?.namespaceSelector, {
      matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }],
    });
  });
});
