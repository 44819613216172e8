// What a user sees when the Flux view cannot come in: the MiniCluster's status names the view's init
// container and what Kubernetes said of it, on the real node with a real kubelet and containerd. An
// image that is not a Flux view of either layout (this project's copy command, the Go operator's Spack
// view) fails the MiniCluster saying so, in the init container's own words; one without even a
// /bin/sh, in the runtime's, and once its sidecar failed again its Job is stopped and its pods go; a view image that cannot be pulled keeps its brokers waiting, the Ready
// condition saying why.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { MiniClusterStatus } from '../../../src/api/index.ts';
import type { ApiClients } from '../../../src/kube/api-clients.ts';
import { waitFor } from '../../harness/cluster.ts';
import { goTestMiniCluster } from '../../harness/go-v1alpha2-cases.ts';
import { applyMiniCluster, conditionOf, readStatus } from '../../harness/operator.ts';
import {
  STOP_DEADLINE_SECONDS,
  STOPPED_ANNOTATION,
} from '../../../src/controllers/minicluster/stopped-job.ts';
import { FLUX_IMAGE, scenario } from '../../harness/real-node.ts';

const NAME = 'flux-sample';
const PLAIN = 'localhost/plain:bookworm';

/** The Go operator's hello-world case on the plain image, its Flux view image replaced by `viewImage`. */
async function helloWorldWithView(namespace: string, viewImage: string): Promise<Record<string, unknown>> {
  const miniCluster = await goTestMiniCluster('hello-world', namespace, PLAIN);
  const spec = miniCluster.spec as { flux?: Record<string, unknown> };
  spec.flux = { ...spec.flux, container: { image: viewImage } };
  return miniCluster;
}

/** The MiniCluster's status once it failed. */
async function failed(clients: ApiClients, namespace: string): Promise<MiniClusterStatus> {
  return waitFor(
    async () => {
      const current = await readStatus(clients, namespace, NAME);
      return conditionOf(current, 'Failed')?.status === 'True' ? current : false;
    },
    { what: `${namespace}/${NAME} to fail`, timeoutMs: 120_000, intervalMs: 1_000 },
  );
}

export function fluxViewErrorScenarios(): void {
  it('Flux view errors: an image of neither layout fails the MiniCluster, naming the image and both layouts', async (t) => {
    const { namespace, clients } = await scenario(t, 'view-not-a-view');
    // A Flux image: /bin/sh and coreutils, Flux reached from /usr (its /opt/flux-core), but no view of either layout.
    await applyMiniCluster(clients, await helloWorldWithView(namespace, FLUX_IMAGE));
    const status = await failed(clients, namespace);
    const condition = conditionOf(status, 'Failed');
    assert.equal(condition?.reason, 'InitContainerFailed', JSON.stringify(status.conditions));
    assert.match(
      condition?.message ?? '',
      /^init container flux-view of pod flux-sample-\d-\w+ exited with status 2 \(Error: flux-view-init: the image localhost\/flux:[\w.]+ is not a Flux view of either layout: /,
    );
    assert.match(
      condition?.message ?? '',
      /\/usr\/local\/bin\/flux-view-copy/,
      'names this project`s layout',
    );
    assert.match(
      condition?.message ?? '',
      /Spack view in \/opt\/views\/\._view/,
      'names the Go operator`s layout',
    );
    assert.equal(status.summary, 'Failed');
  });

  it('Flux view errors: an image without /bin/sh fails the MiniCluster, in the runtime`s words', async (t) => {
    const { namespace, clients } = await scenario(t, 'view-no-shell');
    await applyMiniCluster(clients, await helloWorldWithView(namespace, PLAIN));
    const status = await failed(clients, namespace);
    const condition = conditionOf(status, 'Failed');
    assert.equal(condition?.reason, 'InitContainerFailed', JSON.stringify(status.conditions));
    const noShell =
      /^init container flux-view of pod flux-sample-\d-\w+ exited with status \d+ \(StartError: .*\/bin\/sh/;
    assert.match(condition?.message ?? '', noShell);
    // The kubelet restarts the sidecar for ever: once it failed again, the operator stops the Job, so
    // its pods go instead of crash-looping, and the Failed condition keeps its words without them.
    const job = await waitFor(
      async () => {
        const current = await clients.batch.readNamespacedJob({ name: NAME, namespace });
        const jobFailed = current.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
        return jobFailed ? current : false;
      },
      { what: `${namespace}/${NAME}'s Job to be stopped`, timeoutMs: 120_000, intervalMs: 1_000 },
    );
    const because = job.metadata?.annotations?.[STOPPED_ANNOTATION] ?? '';
    assert.match(because, noShell, 'the Job says why');
    assert.equal(job.spec?.activeDeadlineSeconds, STOP_DEADLINE_SECONDS);
    await waitFor(
      async () => {
        const { items } = await clients.core.listNamespacedPod({
          namespace,
          labelSelector: `job-name=${NAME}`,
        });
        return items.length === 0;
      },
      { what: `${namespace}/${NAME}'s pods to go`, timeoutMs: 120_000, intervalMs: 1_000 },
    );
    const after = await waitFor(
      async () => {
        const current = await readStatus(clients, namespace, NAME);
        return current.summary === 'Failed' && (current.size ?? 0) === 0 ? current : false;
      },
      { what: `${namespace}/${NAME}'s status without pods`, timeoutMs: 60_000, intervalMs: 1_000 },
    );
    const kept = conditionOf(after, 'Failed');
    assert.deepEqual([kept?.reason, kept?.message], ['InitContainerFailed', because]);
  });

  it('Flux view errors: a view image that cannot be pulled keeps the brokers waiting, and Ready says why', async (t) => {
    const { namespace, clients } = await scenario(t, 'view-not-pulled');
    const image = 'localhost/no-such-flux-view:0';
    await applyMiniCluster(clients, await helloWorldWithView(namespace, image));
    const ready = await waitFor(
      async () => {
        const message = conditionOf(await readStatus(clients, namespace, NAME), 'Ready')?.message ?? '';
        return /init container flux-view: (ErrImagePull|ImagePullBackOff)/.test(message) ? message : false;
      },
      {
        what: `${namespace}/${NAME}'s Ready condition to name the view's pull`,
        timeoutMs: 120_000,
        intervalMs: 1_000,
      },
    );
    assert.match(
      ready,
      /^0\/4 brokers running; waiting for flux-sample-\d-\w+ Pending \(init container flux-view: /,
    );
    assert.ok(ready.includes(image), ready);
  });
}
