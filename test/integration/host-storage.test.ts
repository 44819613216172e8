/**
 * Storage that reaches the node, and settings that give the pods the node itself, tried as a tenant would (docs/security.md, "Host storage"): a
 * MiniCluster mounting the node's `/` through a hostpath spec.volumes entry, or a hostPath or
 * csiDriver volume, in a namespace the administrator did not allow. The admission policy installed
 * with the CRD refuses it at `kubectl apply` (both API versions) with a message saying how to allow
 * it; in an allowed namespace it is accepted. An object stored before its namespace lost the label
 * (or before the policy existed) is refused by the operator itself, which makes nothing for it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { stringify } from 'yaml';
import { HOST_STORAGE_LABEL } from '../../src/api/index.ts';
import { toV1alpha1 } from '../../src/api/v1alpha1/convert.ts';
import { FIELD_MANAGER, hostStoragePolicy, hostStoragePolicyBinding } from '../../src/deploy/index.ts';
import { serverSideApply } from '../../src/kube/apply.ts';
import { apiClientsFor } from '../../src/kube/clients.ts';
import { cluster, httpStatus, waitFor, withNamespace } from '../harness/cluster.ts';
import {
  applyMiniCluster,
  installCrd,
  kubectl,
  miniClusterObject,
  startOperator,
  waitForCondition,
} from '../harness/operator.ts';

/** The policy and binding as `flux-operator install` applies them (the same objects, manager and content). */
async function installPolicy(): Promise<void> {
  await installCrd();
  const { objects } = await cluster();
  for (const object of [hostStoragePolicy(), hostStoragePolicyBinding()]) {
    await serverSideApply(objects, object as never, FIELD_MANAGER);
  }
}

const ROOT_V1ALPHA1 = (namespace: string) =>
  miniClusterObject(namespace, 'root', {
    size: 1,
    volumes: { root: { path: '/' } },
    containers: [{ image: 'busybox', command: 'cat /host/etc/shadow', volumes: { root: { path: '/host' } } }],
  });

const ROOT_V1ALPHA2 = (namespace: string, volume: Record<string, unknown>) => ({
  apiVersion: 'flux-framework.org/v1alpha2',
  kind: 'MiniCluster',
  metadata: { name: 'root2', namespace },
  spec: { size: 1, containers: [{ image: 'busybox', command: 'true', volumes: { root: volume } }] },
});

const PLAIN = (namespace: string) => miniClusterObject(namespace, 'plain', { size: 1 });

/** `kubectl apply --dry-run=server` of the object: its stderr when refused, undefined when accepted. */
async function refusal(t: TestContext, object: object): Promise<string | undefined> {
  const dir = mkdtempSync(join(tmpdir(), 'host-storage-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'mc.yaml');
  writeFileSync(file, stringify(object));
  try {
    await kubectl('apply', '--dry-run=server', '-f', file);
    return undefined;
  } catch (error) {
    return String((error as { stderr?: unknown }).stderr ?? error);
  }
}

describe('host storage needs the namespace allowed (local API server)', () => {
  it('kubectl apply of a MiniCluster mounting the node`s / is refused in an unlabelled namespace, with how to allow it, and accepted in a labelled one', async (t) => {
    await installPolicy();
    const tenant = await withNamespace(t, 'tenant');
    const allowed = await withNamespace(t, 'allowed', { hostStorage: true });
    // The policy is compiled and its binding seen a moment after the apply.
    const first = await waitFor(() => refusal(t, ROOT_V1ALPHA1(tenant)), {
      what: 'the hostpath MiniCluster to be refused',
      timeoutMs: 30_000,
    });
    assert.match(first, /ValidatingAdmissionPolicy 'flux-operator-host-storage'/);
    assert.match(first, /spec\.volumes \(root\): storage on the node/);
    assert.match(first, new RegExp(`namespace ${tenant} does not allow`));
    assert.match(
      first,
      new RegExp(`kubectl label namespace ${tenant} flux-framework\\.org/host-storage=allowed`),
    );
    assert.match(first, new RegExp(`flux-operator install --allow-host-storage ${tenant}`));

    const hostPath = await refusal(t, ROOT_V1ALPHA2(tenant, { path: '/host', hostPath: '/' }));
    assert.match(
      hostPath ?? 'accepted',
      /spec\.containers\[\]\.volumes \(\(unnamed\)\): hostPath or csiDriver/,
    );
    const csi = await refusal(t, ROOT_V1ALPHA2(tenant, { path: '/v', csiDriver: 'someone.csi.io' }));
    assert.match(csi ?? 'accepted', /spec\.containers\[\]\.volumes/);
    const csiVolume = await refusal(
      t,
      miniClusterObject(tenant, 'csi', {
        size: 1,
        volumes: { theirs: { storageClass: 'x', driver: 'someone.csi.io', volumeHandle: 'their-volume' } },
      }),
    );
    assert.match(csiVolume ?? 'accepted', /spec\.volumes \(theirs\)/);

    // What needs no node storage is not the policy's business; an allowed namespace takes it all.
    assert.equal(await refusal(t, PLAIN(tenant)), undefined);
    assert.equal(await refusal(t, ROOT_V1ALPHA1(allowed)), undefined);
    assert.equal(await refusal(t, ROOT_V1ALPHA2(allowed, { path: '/host', hostPath: '/' })), undefined);
  });

  it('kubectl apply of a MiniCluster reaching the node itself (hostPID, hostIPC, privileged, capabilities, Unconfined; a conversion annotation carrying them) is refused without the label and accepted with it', async (t) => {
    await installPolicy();
    const tenant = await withNamespace(t, 'tenant-node');
    const allowed = await withNamespace(t, 'allowed-node', { hostStorage: true });
    const v1alpha2 = (
      namespace: string,
      spec: Record<string, unknown>,
      container: Record<string, unknown> = {},
    ) => ({
      apiVersion: 'flux-framework.org/v1alpha2',
      kind: 'MiniCluster',
      metadata: { name: 'node', namespace },
      spec: {
        size: 1,
        containers: [{ image: 'busybox', command: 'nsenter -t 1 -a true', ...container }],
        ...spec,
      },
    });
    const privileged = (namespace: string) =>
      miniClusterObject(namespace, 'node1', {
        size: 1,
        containers: [{ image: 'busybox', command: 'true', securityContext: { privileged: true } }],
      });
    const first = await waitFor(() => refusal(t, v1alpha2(tenant, { pod: { hostPID: true } })), {
      what: 'the hostPID MiniCluster to be refused',
      timeoutMs: 30_000,
    });
    assert.match(first, /spec\.pod \(hostPID\): the namespaces of the node/);
    assert.match(first, new RegExp(`namespace ${tenant} does not allow`));
    assert.match(
      first,
      new RegExp(`kubectl label namespace ${tenant} flux-framework\\.org/host-storage=allowed`),
    );

    const refused: [string, object, RegExp][] = [
      ['hostIPC', v1alpha2(tenant, { pod: { hostIPC: true } }), /spec\.pod \(hostIPC\)/],
      [
        'seccomp Unconfined',
        v1alpha2(tenant, { pod: { securityContext: { seccompProfile: { type: 'Unconfined' } } } }),
        /spec\.pod \(securityContext\)/,
      ],
      [
        'v1alpha2 privileged',
        v1alpha2(tenant, {}, { name: 'app', securityContext: { privileged: true } }),
        /spec\.containers\[\]\.securityContext \(app\)/,
      ],
      [
        'v1alpha2 SYS_ADMIN',
        v1alpha2(tenant, {}, { securityContext: { capabilities: { add: ['SYS_ADMIN'] } } }),
        /spec\.containers\[\]\.securityContext \(\(unnamed\)\)/,
      ],
      ['v1alpha1 privileged', privileged(tenant), /spec\.containers\[\]\.securityContext/],
      [
        'v1alpha1 addCapabilities',
        miniClusterObject(tenant, 'node2', {
          size: 1,
          containers: [
            { image: 'busybox', command: 'true', securityContext: { addCapabilities: ['SYS_PTRACE'] } },
          ],
        }),
        /spec\.containers\[\]\.securityContext/,
      ],
      [
        "v1alpha1 carrying v1alpha2's hostPID in its conversion annotation",
        toV1alpha1(v1alpha2(tenant, { pod: { hostPID: true } })),
        /metadata\.annotations \(conversion\.flux-framework\.org\/v1alpha2\)/,
      ],
    ];
    for (const [what, object, message] of refused) {
      assert.match((await refusal(t, object)) ?? 'accepted', message, what);
    }

    // Capabilities of the runtime's default set, dropped ones, RuntimeDefault: not the node.
    const contained = v1alpha2(
      tenant,
      { pod: { securityContext: { seccompProfile: { type: 'RuntimeDefault' } } } },
      { securityContext: { privileged: false, capabilities: { add: ['NET_BIND_SERVICE'], drop: ['ALL'] } } },
    );
    assert.equal(await refusal(t, contained), undefined);
    for (const object of [
      v1alpha2(allowed, { pod: { hostPID: true, hostIPC: true } }, { securityContext: { privileged: true } }),
      privileged(allowed),
      toV1alpha1(v1alpha2(allowed, { pod: { hostPID: true } })),
    ]) {
      assert.equal(await refusal(t, object), undefined);
    }
  });

  it('the operator refuses a stored MiniCluster with host storage once its namespace is not allowed: Ready=False naming the field and the fix, no PersistentVolume, no Job', async (t) => {
    const namespace = await withNamespace(t, 'stored', { hostStorage: true });
    await installCrd();
    const { core, batch, kc } = await cluster();
    // Stored while allowed (as an object stored before the policy existed, or before the label went).
    await applyMiniCluster(apiClientsFor(kc), ROOT_V1ALPHA1(namespace));
    await core.patchNamespace({
      name: namespace,
      body: { metadata: { labels: { [HOST_STORAGE_LABEL]: null } } },
    });
    const operator = await startOperator(namespace);
    t.after(() => operator.stop());
    const status = await waitForCondition(operator.clients, namespace, 'root', 'Ready', 'False', 30_000);
    const ready = status.conditions?.find((c) => c.type === 'Ready');
    assert.equal(ready?.reason, 'HostStorageNotAllowed', JSON.stringify(status.conditions));
    assert.match(ready?.message ?? '', /^spec\.volumes\.root \(storageClass hostpath, path \/\)/);
    assert.match(
      ready?.message ?? '',
      new RegExp(`kubectl label namespace ${namespace} flux-framework\\.org/host-storage=allowed`),
    );
    const volume = await core
      .readPersistentVolume({ name: `${namespace}.root.root` })
      .catch((error: unknown) => error);
    assert.equal(httpStatus(volume), 404, 'no PersistentVolume at the node`s /');
    const jobs = await batch.listNamespacedJob({ namespace });
    assert.deepEqual(
      jobs.items.map((job) => job.metadata?.name),
      [],
    );
    // Its status and event only: no Secret, ConfigMap, Service, claim or volume either.
    assert.ok(
      operator.writes.every((write) => /:(miniclusters(\/status)?|events)$/.test(write)),
      JSON.stringify(operator.writes),
    );
  });
});
