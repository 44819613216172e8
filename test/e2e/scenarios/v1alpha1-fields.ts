// Fields of the Go operator's v1alpha1 API that this operator keeps, seen working on the real node:
// what a Flux job sees of them (and, for volumes, what stays on the host).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GROUP, PLURAL, VERSION_V1ALPHA1 } from '../../../src/api/index.ts';
import { deleteCustomObject } from '../../../src/kube/custom-objects.ts';
import { httpStatus, waitFor } from '../../harness/cluster.ts';
import { applyMiniCluster, conditionOf, readStatus, waitForCondition } from '../../harness/operator.ts';
import {
  FLUX_IMAGE,
  execIn,
  fluxInLead,
  leadLog,
  podAt,
  realMiniCluster,
  scenario,
  waitForNodesUp,
} from '../../harness/real-node.ts';

export function v1alpha1FieldScenarios(): void {
  it('container secrets: a missing Secret is named in Ready; once made, the job Flux runs sees its key as a variable', async (t) => {
    const { namespace, clients } = await scenario(t, 'secrets');
    await applyMiniCluster(
      clients,
      realMiniCluster(
        namespace,
        'secrets',
        { size: 2, logging: { quiet: true } },
        {
          command: 'printenv API_TOKEN',
          container: { secrets: { API_TOKEN: { name: 'api-credentials', key: 'token' } } },
        },
      ),
    );
    // The pods cannot start without it, and the condition says why.
    await waitFor(
      async () =>
        /CreateContainerConfigError: secret "api-credentials" not found/.test(
          conditionOf(await readStatus(clients, namespace, 'secrets'), 'Ready')?.message ?? '',
        ),
      { what: 'Ready to name the missing Secret', timeoutMs: 120_000, intervalMs: 1_000 },
    );
    // Made as a user would; the value never appears in the MiniCluster.
    await clients.core.createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: 'api-credentials', namespace },
        stringData: { token: 's3cr3t-from-a-secret' },
      },
    });
    const status = await waitForCondition(clients, namespace, 'secrets', 'Succeeded', 'True', 180_000);
    assert.equal(status.summary, 'Succeeded');
    assert.equal(await leadLog(clients, namespace, 'secrets'), 's3cr3t-from-a-secret\n');
  });

  it("shareProcessNamespace: the job Flux runs sees the sidecar container's process", async (t) => {
    const { namespace, clients } = await scenario(t, 'sharepid');
    // Every command line the job can see, one a line; the sidecar's is among them only when shared
    // (the bracket keeps this shell's own command line from matching).
    const command = `sh -c 'for f in /proc/[0-9]*/cmdline; do tr "\\0" " " <"$f"; echo; done 2>/dev/null | grep -x "sleep 6[1] "'`;
    const miniCluster = realMiniCluster(
      namespace,
      'sharepid',
      { size: 1, logging: { quiet: true }, shareProcessNamespace: true },
      { command, container: { runFlux: true } },
    );
    const spec = miniCluster.spec as { containers: Record<string, unknown>[] };
    // The sidecar ends on its own: the pod, and so the Job, succeeds only once all its containers have.
    spec.containers.push({ name: 'sidecar', image: FLUX_IMAGE, command: 'exec sleep 61' });
    await applyMiniCluster(clients, miniCluster);
    const status = await waitForCondition(clients, namespace, 'sharepid', 'Succeeded', 'True', 240_000);
    assert.equal(status.summary, 'Succeeded');
    assert.equal(await leadLog(clients, namespace, 'sharepid', 'sharepid'), 'sleep 61 \n');
  });

  it('volumes: a hostpath entry of spec.volumes is shared by the brokers (a Flux job on broker 1 writes, the lead reads); its PersistentVolume goes with the MiniCluster, the data stays', async (t) => {
    const { namespace, clients } = await scenario(t, 'volumes', { hostStorage: true });
    // The directory behind the volume, on this machine (the real node's host); the flux user writes it.
    const folder = await mkdtemp(path.join(tmpdir(), 'flux-e2e-shared-'));
    t.after(() => rm(folder, { recursive: true, force: true }));
    await chmod(folder, 0o777);
    // As a v1alpha1 manifest writes it: the entry under spec.volumes, the container naming it.
    await applyMiniCluster(
      clients,
      realMiniCluster(
        namespace,
        'shared',
        {
          size: 2,
          interactive: true,
          volumes: { data: { storageClass: 'hostpath', path: folder, labels: { type: 'local' } } },
        },
        { container: { volumes: { data: { path: '/data' } } } },
      ),
    );
    const volumeName = `${namespace}.shared.data`;
    const lead = (await podAt(clients, namespace, 'shared', 0, 180_000)).metadata?.name ?? '';
    await waitForNodesUp(namespace, lead, 2);
    // One task per broker; the one on broker 1 (pod shared-1) writes its host name to the volume. The
    // script is on the volume too, put there through the host directory.
    await writeFile(
      path.join(folder, 'write.sh'),
      'if [ "$FLUX_TASK_RANK" = 1 ]; then hostname > /data/from-broker-1; fi\n',
    );
    await fluxInLead(namespace, lead, ['run', '-N2', '-n2', 'sh', '/data/write.sh']);
    const { stdout } = await execIn(namespace, lead, ['cat', '/data/from-broker-1']);
    assert.equal(stdout, 'shared-1\n');
    assert.equal(await readFile(path.join(folder, 'from-broker-1'), 'utf8'), 'shared-1\n');
    const volume = await clients.core.readPersistentVolume({ name: volumeName });
    assert.equal(volume.status?.phase, 'Bound');
    assert.equal(volume.spec?.hostPath?.path, folder);

    await deleteCustomObject(clients.custom, PLURAL, namespace, 'shared');
    await waitFor(
      async () => {
        try {
          await clients.core.readPersistentVolume({ name: volumeName });
          return false;
        } catch (error) {
          if (httpStatus(error) === 404) return true;
          throw error;
        }
      },
      {
        what: `PersistentVolume ${volumeName} to go with its MiniCluster`,
        timeoutMs: 180_000,
        intervalMs: 1_000,
      },
    );
    // Only the object went: what the brokers wrote is still in the directory.
    assert.equal(await readFile(path.join(folder, 'from-broker-1'), 'utf8'), 'shared-1\n');
  });

  it('v1alpha1 fields left out: the API server refuses each by name, even from a client that asks it to ignore unknown fields', async (t) => {
    const { namespace, clients } = await scenario(t, 'leftout');
    // Every field of the spec is implemented; two of a container are not.
    const cases: [Record<string, unknown>, string][] = [
      [{ logs: '/tmp/logs' }, 'logs'],
      [{ diagnostics: true }, 'diagnostics'],
    ];
    for (const [fields, field] of cases) {
      const body = realMiniCluster(namespace, 'leftout', { size: 1 }, { command: 'true', container: fields });
      await assert.rejects(
        // `Ignore` would have the API server prune an undeclared field and store the rest.
        () =>
          clients.custom.createNamespacedCustomObject({
            group: GROUP,
            version: VERSION_V1ALPHA1,
            namespace,
            plural: PLURAL,
            body,
            fieldValidation: 'Ignore',
          }),
        (error: unknown) => {
          const text = String((error as { body?: unknown }).body);
          assert.match(
            text,
            new RegExp(`${field.replace('.', '\\.')} is a field of the Go Flux Operator's v1alpha1 API`),
            text,
          );
          return true;
        },
      );
    }
  });
}
