// `flux-operator install` against the local control plane: the CRD becomes Established with its names,
// the RBAC is exactly src/deploy's and grants the operator's ServiceAccount what it needs (and no more,
// as the API server's own authorizer answers), a second run changes nothing, and the Deployment's pod
// passes the "restricted" Pod Security admission of the operator namespace.
// Cluster-scoped objects (the CRD, the ClusterRole and its binding) are shared and left in place.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { V1ResourceAttributes } from '@kubernetes/client-node';
import { CRD_NAME } from '../../src/api/index.ts';
import { installCommand, scopeLine } from '../../src/cli/install-command.ts';
import { InputError } from '../../src/cli/input-error.ts';
import { OperatorNotReady } from '../../src/cli/install-wait.ts';
import {
  LEADER_ELECTION_ROLE_NAME,
  OPERATOR_NAME,
  clusterRole,
  clusterRoleBindingName,
  watchedRoleName,
  crdAndRbacObjects,
  leaderElectionRole,
  operatorSelectorLabels,
} from '../../src/deploy/index.ts';
import { cluster, waitFor, withNamespace } from '../harness/cluster.ts';
import { installCrd } from '../harness/operator.ts';

const selector = Object.entries(operatorSelectorLabels())
  .map(([key, value]) => `${key}=${value}`)
  .join(',');

test('install applies the CRD and RBAC, and a second run changes nothing', async (t) => {
  const { kubeconfig, apiextensions, rbac, authorization } = await cluster();
  // The CRD points at the tests' shared webhook first, as in any run where another file came first:
  // install keeps a webhook that converts (and turning the shared CRD off would fail the others).
  await installCrd();
  const namespace = await withNamespace(t, 'install');
  const lines: string[] = [];
  const first = await installCommand({ kubeconfig, namespace, log: (line) => lines.push(line) });

  const outcome = (object: string, result = first) =>
    result.applied.find((a) => a.object === object)?.outcome;
  assert.equal(outcome(`namespace/${namespace}`), 'configured', 'the namespace existed; install labels it');
  assert.equal(outcome('serviceaccount/flux-operator'), 'created');
  assert.equal(outcome(`role.rbac.authorization.k8s.io/${LEADER_ELECTION_ROLE_NAME}`), 'created');
  assert.equal(outcome(`rolebinding.rbac.authorization.k8s.io/${LEADER_ELECTION_ROLE_NAME}`), 'created');
  assert.equal(
    first.applied.length,
    crdAndRbacObjects({ namespace }).length,
    'no Deployment without withDeployment',
  );
  assert.ok(
    !first.applied.some((a) => a.object.startsWith('deployment.')),
    'no Deployment without withDeployment',
  );
  // The tests' shared webhook (or a test's installed operator) converts for this cluster: kept.
  const conversion = lines.at(-2) ?? '';
  assert.match(
    conversion,
    /^conversion: kept the webhook at \S+.*, which the API server converts MiniClusters through$/,
  );
  assert.deepEqual(lines, [
    ...first.applied.map((a) => `${a.object} ${a.outcome}`),
    `customresourcedefinition.apiextensions.k8s.io/${CRD_NAME} established`,
    conversion,
    scopeLine([]),
  ]);

  const crd = await apiextensions.readCustomResourceDefinition({ name: CRD_NAME });
  assert.equal(crd.status?.conditions?.find((c) => c.type === 'Established')?.status, 'True');
  assert.deepEqual(JSON.parse(JSON.stringify(crd.status?.acceptedNames)), {
    kind: 'MiniCluster',
    listKind: 'MiniClusterList',
    plural: 'miniclusters',
    singular: 'minicluster',
    shortNames: ['mc'],
    categories: ['flux'],
  });

  const role = await rbac.readClusterRole({ name: OPERATOR_NAME });
  assert.deepEqual(JSON.parse(JSON.stringify(role.rules)), clusterRole().rules);
  const binding = await rbac.readClusterRoleBinding({ name: clusterRoleBindingName(namespace) });
  assert.deepEqual(
    binding.subjects?.map((s) => `${s.kind}/${s.namespace}/${s.name}`),
    [`ServiceAccount/${namespace}/${OPERATOR_NAME}`],
  );
  const leaseRole = await rbac.readNamespacedRole({ name: LEADER_ELECTION_ROLE_NAME, namespace });
  assert.deepEqual(JSON.parse(JSON.stringify(leaseRole.rules)), leaderElectionRole(namespace).rules);

  // What the API server's authorizer lets the operator's ServiceAccount do.
  const user = `system:serviceaccount:${namespace}:${OPERATOR_NAME}`;
  const allowed = async (resourceAttributes: V1ResourceAttributes) => {
    const review = await authorization.createSubjectAccessReview({
      body: { spec: { user, groups: ['system:serviceaccounts'], resourceAttributes } },
    });
    return review.status?.allowed === true;
  };
  const elsewhere = 'some-user-namespace';
  const expectations: [V1ResourceAttributes, boolean][] = [
    [{ group: 'flux-framework.org', resource: 'miniclusters', verb: 'watch', namespace: elsewhere }, true],
    [{ group: 'flux-framework.org', resource: 'miniclusters', subresource: 'status', verb: 'patch' }, true],
    // In-cluster bursting creates the burst MiniCluster beside its own.
    [{ group: 'flux-framework.org', resource: 'miniclusters', verb: 'create', namespace: elsewhere }, true],
    [{ group: 'flux-framework.org', resource: 'miniclusters', verb: 'delete', namespace: elsewhere }, true],
    [{ group: 'flux-framework.org', resource: 'miniclusters', subresource: 'scale', verb: 'update' }, false],
    // The storage-version migration: a no-op PUT of each MiniCluster, then the CRD's storedVersions.
    [{ group: 'flux-framework.org', resource: 'miniclusters', verb: 'update', namespace: elsewhere }, true],
    [
      {
        group: 'apiextensions.k8s.io',
        resource: 'customresourcedefinitions',
        subresource: 'status',
        verb: 'patch',
        name: CRD_NAME,
      },
      true,
    ],
    [
      {
        group: 'apiextensions.k8s.io',
        resource: 'customresourcedefinitions',
        subresource: 'status',
        verb: 'patch',
        name: 'jobsets.jobset.x-k8s.io',
      },
      false,
    ],
    [{ group: 'batch', resource: 'jobs', verb: 'delete', namespace: elsewhere }, true],
    // The services pod of spec.services: applied, watched and pruned.
    [{ group: 'apps', resource: 'deployments', verb: 'watch', namespace: elsewhere }, true],
    [{ group: 'apps', resource: 'deployments', verb: 'patch', namespace: elsewhere }, true],
    [{ group: 'apps', resource: 'deployments', verb: 'delete', namespace: elsewhere }, true],
    [{ group: 'apps', resource: 'statefulsets', verb: 'create', namespace: elsewhere }, false],
    [{ resource: 'secrets', verb: 'create', namespace: elsewhere }, true],
    [{ resource: 'pods', subresource: 'exec', verb: 'create', namespace: elsewhere }, true],
    // A WebSocket exec (what the client does) is authorized as `get`.
    [{ resource: 'pods', subresource: 'exec', verb: 'get', namespace: elsewhere }, true],
    [{ resource: 'pods', verb: 'delete', namespace: elsewhere }, false],
    // spec.volumes: claims applied (server-side apply creates) and watched; PersistentVolumes also
    // deleted by the volume collector. The garbage collector, not the operator, deletes claims.
    [{ resource: 'persistentvolumeclaims', verb: 'create', namespace: elsewhere }, true],
    [{ resource: 'persistentvolumeclaims', verb: 'patch', namespace: elsewhere }, true],
    [{ resource: 'persistentvolumeclaims', verb: 'watch', namespace: elsewhere }, true],
    [{ resource: 'persistentvolumeclaims', verb: 'delete', namespace: elsewhere }, false],
    [{ resource: 'persistentvolumes', verb: 'create' }, true],
    [{ resource: 'persistentvolumes', verb: 'patch' }, true],
    [{ resource: 'persistentvolumes', verb: 'list' }, true],
    [{ resource: 'persistentvolumes', verb: 'delete' }, true],
    [{ group: 'events.k8s.io', resource: 'events', verb: 'create', namespace: elsewhere }, true],
    [{ group: 'coordination.k8s.io', resource: 'leases', verb: 'update', namespace }, true],
    [{ group: 'coordination.k8s.io', resource: 'leases', verb: 'update', namespace: elsewhere }, false],
    [{ group: 'coordination.k8s.io', resource: 'leases', verb: 'delete', namespace }, false],
    [{ resource: 'nodes', verb: 'list' }, false],
    [{ group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions', verb: 'update' }, false],
  ];
  for (const [attributes, expected] of expectations) {
    assert.equal(
      await allowed(attributes),
      expected,
      `${user} ${attributes.verb} ${JSON.stringify(attributes)}`,
    );
  }

  // Idempotent: the same objects again, nothing to change (the shared CRD may have been re-applied by
  // other tests' field managers in between, so it only must not be created again).
  const second = await installCommand({ kubeconfig, namespace, log: () => {} });
  for (const { object, outcome: result } of second.applied) {
    // The API server writes the admission policy's status (its type checking) a while after it is
    // created, which changes its resourceVersion without any change of ours.
    if (object.startsWith('customresourcedefinition') || object.startsWith('validatingadmissionpolicy.')) {
      assert.notEqual(result, 'created', object);
    } else assert.equal(result, 'unchanged', object);
  }
});

test('install watching ns-a: Secrets, pods, pods/exec, Jobs... in ns-a only (SubjectAccessReviews), and gone from ns-a once it watches ns-b instead; --allow-host-storage labels its namespace', async (t) => {
  const { kubeconfig, core, objects, authorization } = await cluster();
  const namespace = await withNamespace(t, 'install-watch');
  const watched = await withNamespace(t, 'ns-a');
  const unwatched = await withNamespace(t, 'ns-b');
  const storage = await withNamespace(t, 'storage');
  t.after(async () => {
    for (const kind of ['ClusterRoleBinding', 'ClusterRole']) {
      await objects
        .delete({
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind,
          metadata: { name: `flux-operator-cluster-${namespace}` },
        })
        .catch(() => undefined);
    }
  });
  const result = await installCommand({
    kubeconfig,
    namespace,
    withDeployment: true,
    image: 'example.com/flux-operator:test',
    watchNamespaces: [watched],
    allowHostStorage: [storage],
    log: () => {},
  });
  const applied = result.applied.map((a) => a.object);
  assert.ok(
    applied.includes(`clusterrole.rbac.authorization.k8s.io/flux-operator-cluster-${namespace}`),
    applied.join(),
  );
  assert.ok(
    !applied.includes('clusterrole.rbac.authorization.k8s.io/flux-operator'),
    'not the broad ClusterRole',
  );
  const labels = (await core.readNamespace({ name: storage })).metadata?.labels ?? {};
  assert.equal(labels['flux-framework.org/host-storage'], 'allowed');
  assert.equal(labels['flux-operator.test/owned'], 'true', 'the namespace keeps its own labels');

  const user = `system:serviceaccount:${namespace}:${OPERATOR_NAME}`;
  const allowed = async (resourceAttributes: V1ResourceAttributes) => {
    const review = await authorization.createSubjectAccessReview({
      body: { spec: { user, groups: ['system:serviceaccounts'], resourceAttributes } },
    });
    return review.status?.allowed === true;
  };
  const expectations: [V1ResourceAttributes, boolean][] = [
    [{ resource: 'secrets', verb: 'get', namespace: watched }, true],
    [{ resource: 'secrets', verb: 'get', namespace: unwatched }, false],
    [{ resource: 'secrets', verb: 'get', namespace: 'kube-system' }, false],
    [{ resource: 'secrets', verb: 'list' }, false],
    [{ resource: 'secrets', verb: 'watch', namespace: watched }, true],
    // Its own namespace: the webhook's certificate Secret only, and creating it.
    [{ resource: 'secrets', verb: 'update', namespace, name: 'flux-operator-webhook-cert' }, true],
    [{ resource: 'secrets', verb: 'get', namespace, name: 'someone-else' }, false],
    // The webhook's Service (its readiness, in the logs), not another namespace's.
    [{ resource: 'services', verb: 'get', namespace, name: 'flux-operator-webhook' }, true],
    [{ resource: 'pods', subresource: 'exec', verb: 'create', namespace: watched }, true],
    [{ resource: 'pods', subresource: 'exec', verb: 'get', namespace: watched }, true],
    [{ resource: 'pods', subresource: 'exec', verb: 'create', namespace: unwatched }, false],
    [{ resource: 'pods', subresource: 'exec', verb: 'create', namespace: 'kube-system' }, false],
    [{ resource: 'pods', verb: 'list', namespace: unwatched }, false],
    [{ group: 'batch', resource: 'jobs', verb: 'patch', namespace: watched }, true],
    [{ group: 'batch', resource: 'jobs', verb: 'patch', namespace: unwatched }, false],
    [{ resource: 'services', verb: 'create', namespace: unwatched }, false],
    [{ resource: 'configmaps', verb: 'get', namespace: unwatched }, false],
    [{ group: 'apps', resource: 'deployments', verb: 'patch', namespace: unwatched }, false],
    [{ resource: 'events', verb: 'create', namespace: unwatched }, false],
    [{ group: 'events.k8s.io', resource: 'events', verb: 'create', namespace: watched }, true],
    // Its namespace's labels (host storage), not another's.
    [{ resource: 'namespaces', verb: 'get', namespace: watched, name: watched }, true],
    [{ resource: 'namespaces', verb: 'get', namespace: unwatched, name: unwatched }, false],
    [{ resource: 'namespaces', verb: 'get', namespace: 'kube-system', name: 'kube-system' }, true],
    // Cluster-wide only what must be.
    [{ group: 'flux-framework.org', resource: 'miniclusters', verb: 'watch' }, true],
    [
      {
        group: 'flux-framework.org',
        resource: 'miniclusters',
        subresource: 'status',
        verb: 'patch',
        namespace: watched,
      },
      true,
    ],
    [{ resource: 'persistentvolumes', verb: 'create' }, true],
    [
      { group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions', verb: 'patch', name: CRD_NAME },
      true,
    ],
    [{ group: 'coordination.k8s.io', resource: 'leases', verb: 'update', namespace }, true],
    [{ group: 'coordination.k8s.io', resource: 'leases', verb: 'update', namespace: watched }, false],
  ];
  const wrong: string[] = [];
  for (const [attributes, expected] of expectations) {
    if ((await allowed(attributes)) !== expected)
      wrong.push(`${expected ? 'denied' : 'allowed'}: ${JSON.stringify(attributes)}`);
  }
  assert.deepEqual(wrong, []);

  // Watching ns-b instead: the rights in ns-a go with the watch.
  const said: string[] = [];
  await installCommand({
    kubeconfig,
    namespace,
    withDeployment: true,
    image: 'example.com/flux-operator:test',
    watchNamespaces: [unwatched],
    log: (line) => said.push(line),
  });
  const moved: [V1ResourceAttributes, boolean][] = [
    [{ resource: 'secrets', verb: 'get', namespace: watched }, false],
    [{ resource: 'pods', subresource: 'exec', verb: 'create', namespace: watched }, false],
    [{ resource: 'secrets', verb: 'get', namespace: unwatched }, true],
  ];
  const wrongAfter: string[] = [];
  for (const [attributes, expected] of moved) {
    if ((await allowed(attributes)) !== expected)
      wrongAfter.push(`${expected ? 'denied' : 'allowed'}: ${JSON.stringify(attributes)}`);
  }
  assert.deepEqual(wrongAfter, [], said.join('\n'));
  const role = watchedRoleName(namespace);
  assert.deepEqual(
    said.filter((line) => line.includes('no longer watched')),
    [
      `rolebinding.rbac.authorization.k8s.io/${role} deleted in ${watched} (no longer watched)`,
      `role.rbac.authorization.k8s.io/${role} deleted in ${watched} (no longer watched)`,
    ],
  );
});

test('install --with-deployment runs a pod the restricted Pod Security profile admits', async (t) => {
  const { kubeconfig, core } = await cluster();
  const namespace = await withNamespace(t, 'install-deploy');
  const result = await installCommand({
    kubeconfig,
    namespace,
    withDeployment: true,
    image: 'example.com/flux-operator:test',
    log: () => {},
  });
  assert.equal(result.applied.at(-1)?.object, 'deployment.apps/flux-operator');
  assert.equal(result.applied.at(-1)?.outcome, 'created');

  const ns = await core.readNamespace({ name: namespace });
  assert.equal(ns.metadata?.labels?.['pod-security.kubernetes.io/enforce'], 'restricted');
  // The ReplicaSet controller creates the pod only if Pod Security admission accepts it.
  const pod = await waitFor(
    async () => (await core.listNamespacedPod({ namespace, labelSelector: selector })).items[0],
    { what: `the operator pod in ${namespace}`, timeoutMs: 60_000 },
  );
  const container = pod.spec?.containers[0];
  assert.equal(container?.image, 'example.com/flux-operator:test');
  assert.equal(pod.spec?.serviceAccountName, OPERATOR_NAME);
  assert.equal(container?.securityContext?.readOnlyRootFilesystem, true);
});

test('install --with-deployment waits for a Ready operator pod, and names what a pod that cannot start waits on', async (t) => {
  const { kubeconfig, rbac } = await cluster();
  // The namespaces go with the test; the install's binding of the cluster-wide role is cluster-scoped.
  const withInstall = async (prefix: string) => {
    const namespace = await withNamespace(t, prefix);
    t.after(() =>
      rbac.deleteClusterRoleBinding({ name: clusterRoleBindingName(namespace) }).then(
        () => undefined,
        () => undefined,
      ),
    );
    return namespace;
  };
  // kwok runs the pod at once: the install says so and returns.
  const ready = await withInstall('install-wait');
  const said: string[] = [];
  await installCommand({
    kubeconfig,
    namespace: ready,
    withDeployment: true,
    image: 'example.com/flux-operator:test',
    leaveCrdConversion: true,
    log: (line) => said.push(line),
  });
  assert.match(
    said.at(-1) ?? '',
    /^deployment\.apps\/flux-operator ready: a pod of it is Ready \(waited \d+\.\d s\)$/,
  );
  // No node has the label: the time is up, the error names the pod, the scheduler's reason and the fix.
  const stuck = await withInstall('install-stuck');
  await assert.rejects(
    installCommand({
      kubeconfig,
      namespace: stuck,
      withDeployment: true,
      image: 'example.com/flux-operator:test',
      leaveCrdConversion: true,
      nodeSelector: { 'flux-operator.test/no-such-node': 'true' },
      waitSeconds: 3,
      log: () => {},
    }),
    (error: unknown) => {
      assert.ok(error instanceof OperatorNotReady, String(error));
      assert.match(
        error.message,
        /^deployment\.apps\/flux-operator has no Ready pod after 3 s: flux-operator-[a-z0-9]+-[a-z0-9]+: not scheduled: 0\/\d+ nodes are available: .*didn't match Pod's node affinity\/selector/,
      );
      assert.match(error.message, new RegExp(`kubectl -n ${stuck} describe pods -l ${selector};`));
      return true;
    },
  );
});

test('install by a user without rights fails with a message naming the context', async (t) => {
  const { kc, core } = await cluster();
  const namespace = await withNamespace(t, 'install-denied');
  const token = await core.createNamespacedServiceAccountToken({
    name: 'default',
    namespace,
    body: { spec: { expirationSeconds: 600 } },
  });
  const server = kc.getCurrentCluster()?.server;
  const caFile = kc.getCurrentCluster()?.caFile;
  const caData = kc.getCurrentCluster()?.caData;
  const path = join(mkdtempSync(join(tmpdir(), 'flux-operator-install-')), 'kubeconfig');
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'local',
          cluster: {
            server,
            ...(caData ? { 'certificate-authority-data': caData } : {}),
            ...(caFile ? { 'certificate-authority': caFile } : {}),
            ...(caData || caFile ? {} : { 'insecure-skip-tls-verify': true }),
          },
        },
      ],
      users: [{ name: 'nobody', user: { token: token.status?.token } }],
      contexts: [{ name: 'nobody@local', context: { cluster: 'local', user: 'nobody' } }],
      'current-context': 'nobody@local',
    }),
  );
  await assert.rejects(installCommand({ kubeconfig: path, namespace, log: () => {} }), (error) => {
    assert.ok(error instanceof InputError, String(error));
    assert.match(
      error.message,
      /^applying namespace\/[a-z0-9-]+: forbidden for the user of context "nobody@local"/,
    );
    assert.match(error.message, new RegExp(`of kubeconfig ${path}`));
    assert.match(error.message, /cluster-admin/);
    return true;
  });
});
