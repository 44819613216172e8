// `npm run bench -- --conversion [--count N]`: what the conversion webhook adds to reads, on a local
// cluster of its own (`conversion-bench`, stopped at the end). N MiniClusters (default 100) are
// written, so stored as v1alpha2; then, interleaved so that load weighs on both alike, a get and a
// list of all N as v1alpha2 (nothing converted) and as v1alpha1 (every object through the webhook).
// Prints one JSON line: the medians in ms and what conversion adds.
import { Writable } from 'node:stream';
import { GROUP, PLURAL, VERSION_V1ALPHA1 } from '../../src/api/index.ts';
import { installCommand } from '../../src/cli/install-command.ts';
import { Operator } from '../../src/controllers/operator.ts';
import { FIELD_MANAGER, OPERATOR_NAMESPACE, WEBHOOK_CERT_SECRET } from '../../src/deploy/index.ts';
import { serverSideApply } from '../../src/kube/apply.ts';
import { apiClientsFor, loadKubeConfig } from '../../src/kube/clients.ts';
import { down, up } from '../../workbench/src/localcluster/index.ts';
import { createLogger } from '../../src/observability/logger.ts';

const CLUSTER = 'conversion-bench';
const NAMESPACE = 'conversion-bench';
const STORED = 'v1alpha2';
const ROUNDS = 60;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Number((sorted[Math.floor(sorted.length / 2)] ?? NaN).toFixed(2));
}

export async function conversionBench(argv: readonly string[]): Promise<void> {
  const count = argv.includes('--count') ? Number(argv[argv.indexOf('--count') + 1]) : 100;
  const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`);
  const { kubeconfig } = await up({ name: CLUSTER, progress });
  const operator = new Operator({
    clients: apiClientsFor(loadKubeConfig(kubeconfig)),
    log: createLogger({ level: 'warn', destination: new Writable({ write: (_c, _e, done) => done() }) }),
    // A namespace it never sees MiniClusters in: only the webhook works during the measure.
    namespaces: ['conversion-bench-none'],
    concurrency: 1,
    conversionWebhook: {
      address: { host: '127.0.0.1', port: 0 },
      secret: { namespace: OPERATOR_NAMESPACE, name: WEBHOOK_CERT_SECRET },
    },
  });
  try {
    await installCommand({ kubeconfig, log: () => undefined });
    await operator.start();
    const clients = apiClientsFor(loadKubeConfig(kubeconfig));
    await clients.core.createNamespace({ body: { metadata: { name: NAMESPACE } } }).catch(() => undefined);
    progress(`writing ${count} MiniClusters`);
    for (let i = 0; i < count; i++) {
      await serverSideApply(
        clients.objects,
        {
          apiVersion: `${GROUP}/${VERSION_V1ALPHA1}`,
          kind: 'MiniCluster',
          metadata: { name: `mc-${i}`, namespace: NAMESPACE },
          spec: { size: 2, containers: [{ image: 'localhost/flux:0.88.0', command: 'hostname' }] },
        } as never,
        FIELD_MANAGER,
      );
    }
    const samples: Record<string, number[]> = {};
    const time = async (name: string, read: () => Promise<unknown>) => {
      const start = performance.now();
      await read();
      (samples[name] ??= []).push(performance.now() - start);
    };
    const ref = (version: string) => ({ group: GROUP, version, plural: PLURAL, namespace: NAMESPACE });
    for (let round = 0; round < ROUNDS; round++) {
      await time('get_stored', () =>
        clients.custom.getNamespacedCustomObject({ ...ref(STORED), name: 'mc-0' }),
      );
      await time('get_converted', () =>
        clients.custom.getNamespacedCustomObject({ ...ref(VERSION_V1ALPHA1), name: 'mc-0' }),
      );
      await time('list_stored', () => clients.custom.listNamespacedCustomObject(ref(STORED)));
      await time('list_converted', () => clients.custom.listNamespacedCustomObject(ref(VERSION_V1ALPHA1)));
    }
    const m = Object.fromEntries(
      Object.entries(samples).map(([name, values]) => [name, median(values.slice(10))]),
    );
    process.stdout.write(
      `${JSON.stringify({
        count,
        get_ms: m.get_stored,
        get_through_webhook_ms: m.get_converted,
        get_added_ms: Number(((m.get_converted ?? 0) - (m.get_stored ?? 0)).toFixed(2)),
        list_ms: m.list_stored,
        list_through_webhook_ms: m.list_converted,
        list_added_ms: Number(((m.list_converted ?? 0) - (m.list_stored ?? 0)).toFixed(2)),
      })}\n`,
    );
  } finally {
    await operator.stop();
    await down({ name: CLUSTER, progress });
  }
}
