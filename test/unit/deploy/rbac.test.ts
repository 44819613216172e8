import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  LEADER_ELECTION_ROLE_NAME,
  LEADER_ELECTION_RULES,
  OPERATOR_NAME,
  OPERATOR_RULES,
  clusterRole,
  clusterRoleBinding,
  watchedNamespaceRole,
  watchedNamespaceRoleBinding,
  webhookSecretRole,
  webhookSecretRoleBinding,
  leaderElectionRole,
  leaderElectionRoleBinding,
  policyRule,
  rulesYaml,
  serviceAccount,
} from '../../../src/deploy/index.ts';
import { parse } from 'yaml';

/** `group/resource: verbs`, one string per rule, so a failure shows exactly which rule changed. */
function summary(rules: readonly { apiGroups?: string[]; resources?: string[]; verbs?: string[] }[]): string[] {
  return rules.map(
    (rule) => `${(rule.apiGroups ?? []).join(',') || 'core'} ${(rule.resources ?? []).join(',')}: ${(rule.verbs ?? []).join(',')}`,
  );
}

const CLUSTER_SUMMARY = [
  'flux-framework.org miniclusters: get,list,watch,create,patch,delete',
  'flux-framework.org miniclusters: update',
  'flux-framework.org miniclusters/status: patch',
  'flux-framework.org miniclusters/finalizers: update',
  'flux-framework.org bursttargets: get,list,watch',
  'flux-framework.org bursttargets/status: patch',
  'apiextensions.k8s.io customresourcedefinitions: get,patch',
  'apiextensions.k8s.io customresourcedefinitions/status: patch',
  'core persistentvolumes: list,watch,create,patch,delete',
  'authentication.k8s.io tokenreviews: create',
  'authorization.k8s.io subjectaccessreviews: create',
  'core namespaces: get',
];
const NAMESPACED_SUMMARY = [
  'batch jobs: get,list,watch,create,patch,delete',
  'core services,configmaps,secrets: get,list,watch,create,patch,delete',
  'apps deployments: get,list,watch,create,patch,delete',
  'core persistentvolumeclaims: list,watch,create,patch',
  'core pods: get,list,watch',
  'core pods/exec: get,create',
  'core namespaces: get',
  'kueue.x-k8s.io workloads: list',
  'events.k8s.io events: create,patch',
  'core events: create,patch',
];

describe('ClusterRole', () => {
  it('grants exactly the verbs the controller uses', () => {
    // No `update` but where a PUT is made (finalizers: the admission plugin's check; MiniClusters: the
    // storage-version migration's no-op rewrites): the operator server-side applies (patch) and writes
    // status with patches; no `get` of a status it never reads.
    assert.deepEqual(summary(clusterRole().rules ?? []), [...CLUSTER_SUMMARY, ...NAMESPACED_SUMMARY]);
  });

  it('watching namespaces, keeps only what must be cluster-wide; the rest is a Role in each watched namespace', () => {
    const role = clusterRole(['ns-a', 'ns-b'], 'ops');
    assert.equal(role.metadata.name, 'flux-operator-cluster-ops');
    assert.deepEqual(summary(role.rules ?? []), CLUSTER_SUMMARY);
    for (const rule of role.rules ?? []) {
      for (const kind of ['secrets', 'pods', 'pods/exec', 'jobs', 'services', 'configmaps', 'deployments', 'events']) {
        assert.ok(!rule.resources?.includes(kind), `${kind} cluster-wide: ${JSON.stringify(rule)}`);
      }
      if (rule.resources?.includes('namespaces')) assert.deepEqual(rule.resourceNames, ['kube-system']);
    }
    const binding = clusterRoleBinding('ops', ['ns-a']);
    assert.equal(binding.metadata.name, 'flux-operator-cluster-ops');
    assert.equal(binding.roleRef.name, 'flux-operator-cluster-ops');
    const inA = watchedNamespaceRole('ns-a', 'ops');
    assert.equal(inA.metadata.namespace, 'ns-a');
    assert.deepEqual(summary(inA.rules ?? []), NAMESPACED_SUMMARY);
    const bindingA = watchedNamespaceRoleBinding('ns-a', 'ops');
    assert.equal(bindingA.metadata.namespace, 'ns-a');
    assert.deepEqual(bindingA.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: inA.metadata.name });
    assert.deepEqual(bindingA.subjects, [{ kind: 'ServiceAccount', name: OPERATOR_NAME, namespace: 'ops' }]);
  });

  it("the webhook's certificate Secret (get and update by name, create) and its Service, in the operator's namespace only", () => {
    const role = webhookSecretRole('ops');
    assert.equal(role.metadata.namespace, 'ops');
    assert.deepEqual(role.rules, [
      { apiGroups: [''], resources: ['secrets'], resourceNames: ['flux-operator-webhook-cert'], verbs: ['get', 'update'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
      { apiGroups: [''], resources: ['services'], verbs: ['get'] },
    ]);
    assert.equal(webhookSecretRoleBinding('ops').roleRef.name, role.metadata.name);
  });

  it('has no wildcard, no non-resource URLs, no lease access, only get on namespaces, and names only the MiniCluster CRD among CRDs', () => {
    const rules = clusterRole().rules ?? [];
    for (const rule of rules) {
      const named = rule.resourceNames !== undefined;
      const keys = named ? ['apiGroups', 'resourceNames', 'resources', 'verbs'] : ['apiGroups', 'resources', 'verbs'];
      assert.deepEqual(Object.keys(rule).sort(), keys);
      if (rule.resources?.includes('namespaces')) assert.deepEqual(rule.verbs, ['get']);
      if (rule.resources?.some((resource) => resource.startsWith('customresourcedefinitions'))) {
        assert.deepEqual(rule.resourceNames, ['miniclusters.flux-framework.org']);
      }
      for (const value of [...(rule.apiGroups ?? []), ...(rule.resources ?? []), ...(rule.verbs ?? [])]) {
        assert.ok(!value.includes('*'), `wildcard in ${JSON.stringify(rule)}`);
      }
      assert.ok(!rule.apiGroups?.includes('coordination.k8s.io'), 'leases belong in the namespaced Role');
    }
    assert.ok(!rules.some((rule) => rule.resources?.includes('pods') && rule.verbs.includes('delete')));
  });

  it('gives every rule a reason', () => {
    for (const rule of [...OPERATOR_RULES, ...LEADER_ELECTION_RULES]) {
      assert.ok(rule.why.length > 20, `rule ${JSON.stringify(policyRule(rule))} needs a reason`);
    }
  });

  it('is bound cluster-wide to the ServiceAccount in the given namespace', () => {
    const binding = clusterRoleBinding('ops');
    assert.deepEqual(binding.roleRef, {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: OPERATOR_NAME,
    });
    assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: OPERATOR_NAME, namespace: 'ops' }]);
    assert.equal(binding.metadata.namespace, undefined);
    // Its own binding per install namespace, so that two installs do not take it from each other.
    assert.equal(binding.metadata.name, 'flux-operator-ops');
    assert.equal(clusterRoleBinding('flux-operator-system').metadata.name, 'flux-operator');
    assert.deepEqual(serviceAccount('ops').metadata, {
      name: OPERATOR_NAME,
      namespace: 'ops',
      labels: { 'app.kubernetes.io/name': 'flux-operator' },
    });
  });
});

describe('leader-election Role', () => {
  it("lets the operator hold Leases and list the webhook Service's endpoints in its own namespace only", () => {
    const role = leaderElectionRole('ops');
    assert.equal(role.kind, 'Role');
    assert.equal(role.metadata.namespace, 'ops');
    assert.deepEqual(summary(role.rules ?? []), [
      'coordination.k8s.io leases: get,create,update',
      'discovery.k8s.io endpointslices: list',
    ]);
    const binding = leaderElectionRoleBinding('ops');
    assert.equal(binding.metadata.namespace, 'ops');
    assert.deepEqual(binding.roleRef, {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Role',
      name: LEADER_ELECTION_ROLE_NAME,
    });
    assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: OPERATOR_NAME, namespace: 'ops' }]);
  });
});

describe('rulesYaml', () => {
  it('parses back to the rules, with each reason as a comment before its rule', () => {
    const text = rulesYaml(OPERATOR_RULES);
    assert.deepEqual(parse(text), OPERATOR_RULES.map(policyRule));
    const comments = text.split('\n').filter((line) => line.startsWith('# '));
    assert.deepEqual(
      comments,
      OPERATOR_RULES.map((rule) => `# ${rule.why}`),
    );
  });
});
