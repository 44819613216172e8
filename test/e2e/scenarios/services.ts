// v1alpha1 `spec.services` on the real node: a service container (a tiny HTTP server on the Flux
// image, which has python3) in a pod of its own, reached by its v1alpha1 DNS name
// `<name>-services.flux-service.<namespace>.svc.cluster.local` from a Flux job on both brokers;
// never counted as a broker; left running when the MiniCluster finishes; deleted once the spec
// drops it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { parse } from 'yaml';
import type { V1Deployment } from '@kubernetes/client-node';
import { isNotFound } from '../../../src/kube/api-errors.ts';
import type { ApiClients } from '../../../src/kube/api-clients.ts';
import { waitFor } from '../../harness/cluster.ts';
import { applyMiniCluster, readStatus, waitForCondition } from '../../harness/operator.ts';
import { FLUX_IMAGE, ON_REAL_NODE, leadLog, realMiniCluster, scenario } from '../../harness/real-node.ts';

/** The services example of docs/v1alpha1.md, as a user copies it. */
function documentedExample(): Record<string, unknown> {
  const text = readFileSync(new URL('../../../docs/v1alpha1.md', import.meta.url), 'utf8');
  const block = [...text.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)]
    .map((match) => match[1] ?? '')
    .find((yaml) => /^\s+services:/m.test(yaml));
  assert.ok(block, 'docs/v1alpha1.md has a MiniCluster with services');
  return parse(block) as Record<string, unknown>;
}

const GREETING = 'hello from the services pod';

/** The Deployment of the services pod, or undefined when there is none. */
async function servicesDeployment(
  clients: ApiClients,
  namespace: string,
  name: string,
): Promise<V1Deployment | undefined> {
  try {
    return await clients.apps.readNamespacedDeployment({ name, namespace });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** Each task fetches the service's page (retrying while its pod starts) and prints `<host>: <page>`. */
function fetchFromEveryBroker(url: string): string {
  const program = [
    'import socket, time, urllib.request',
    `url = "${url}"`,
    'for attempt in range(180):',
    '    try:',
    '        page = urllib.request.urlopen(url, timeout=5).read().decode().strip()',
    '        break',
    '    except OSError:',
    '        time.sleep(1)',
    'else:',
    '    raise SystemExit("no answer from " + url)',
    'print(socket.gethostname() + ": " + page, flush=True)',
  ].join('\n');
  return `flux run -N2 -n2 python3 -c '${program}'`;
}

export function servicesScenarios(): void {
  it('services: a Flux job on each broker reaches the service container by its v1alpha1 DNS name', async (t) => {
    const { namespace, clients } = await scenario(t, 'services');
    const name = 'mc';
    // The name a v1alpha1 manifest writes (its Service was always flux-service): the headless
    // Service here takes that name for it.
    const url = `http://${name}-services.flux-service.${namespace}.svc.cluster.local:8080/`;
    const miniCluster = realMiniCluster(
      namespace,
      name,
      {
        size: 2,
        logging: { quiet: true },
        services: [
          {
            name: 'web',
            image: FLUX_IMAGE,
            ports: [8080],
            command: `mkdir -p /tmp/www && echo '${GREETING}' > /tmp/www/index.html && exec python3 -m http.server 8080 --directory /tmp/www`,
          },
        ],
      },
      { command: fetchFromEveryBroker(url), container: { launcher: true } },
    );
    await applyMiniCluster(clients, miniCluster);

    const status = await waitForCondition(clients, namespace, name, 'Succeeded', 'True', 300_000);
    assert.equal(status.summary, 'Succeeded');
    const log = await leadLog(clients, namespace, name);
    assert.deepEqual(log.trimEnd().split('\n').sort(), [`mc-0: ${GREETING}`, `mc-1: ${GREETING}`], log);

    // Not a broker: the scale selector (what an autoscaler averages over) finds the 2 brokers alone,
    // while the services pod runs on beside them.
    assert.match(status.selector ?? '', /app\.kubernetes\.io\/component=broker/);
    const brokers = await clients.core.listNamespacedPod({ namespace, labelSelector: status.selector ?? '' });
    assert.deepEqual(brokers.items.map((pod) => pod.metadata?.name?.replace(/-[a-z0-9]+$/, '')).sort(), [
      'mc-0',
      'mc-1',
    ]);
    const servicesPods = await clients.core.listNamespacedPod({
      namespace,
      labelSelector: `flux-framework.org/minicluster=${name},app.kubernetes.io/component=services`,
    });
    assert.equal(servicesPods.items.length, 1);
    assert.equal(servicesPods.items[0]?.spec?.hostname, 'mc-services');
    assert.equal(servicesPods.items[0]?.spec?.subdomain, 'flux-service');

    // A finished MiniCluster keeps its services (as v1alpha1 did) until it is deleted or drops them.
    const kept = await servicesDeployment(clients, namespace, 'mc-services');
    assert.equal(kept?.spec?.replicas, 1);
    assert.equal((await readStatus(clients, namespace, name)).summary, 'Succeeded');

    const spec = miniCluster.spec as Record<string, unknown>;
    delete spec.services;
    await applyMiniCluster(clients, miniCluster);
    await waitFor(async () => (await servicesDeployment(clients, namespace, 'mc-services')) === undefined, {
      what: 'the services Deployment to be deleted once the spec drops services',
      timeoutMs: 60_000,
      intervalMs: 500,
    });
  });

  it('services: the example of docs/v1alpha1.md runs as written (its own Service name), on the real node', async (t) => {
    const { namespace, clients } = await scenario(t, 'services-doc');
    const example = documentedExample();
    const metadata = example.metadata as { name: string };
    // Only where it runs changes: this namespace, and the real node's placement.
    const spec = example.spec as Record<string, unknown>;
    await applyMiniCluster(clients, {
      ...example,
      metadata: { ...metadata, namespace },
      spec: { ...spec, pod: { ...ON_REAL_NODE } },
    });
    const status = await waitForCondition(clients, namespace, metadata.name, 'Succeeded', 'True', 300_000);
    assert.equal(status.summary, 'Succeeded');
    const log = await leadLog(clients, namespace, metadata.name);
    assert.equal(log.split('\n').filter((line) => line === 'hello').length, 2, log);
  });
}
