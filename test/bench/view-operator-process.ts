/**
 * The operator as `npm run bench -- --view` runs it, in a process of its own: the compiled operator
 * (dist/, what its image runs), out of cluster, watching one namespace, with the Flux view image of
 * MiniClusters naming none set as test/harness/operator.ts sets it for the e2e suite, and no
 * conversion webhook of its own (the tests' shared one converts: test/harness/conversion-webhook.ts),
 * as `flux-operator run --flux-view-image IMAGE --webhook-addr 0` would run it.
 *
 *   node test/bench/view-operator-process.ts KUBECONFIG NAMESPACE FLUX_VIEW_IMAGE
 *
 * Logs JSON lines on standard output; stops cleanly on SIGTERM.
 */
import { once } from 'node:events';

type OperatorModule = typeof import('../../src/controllers/operator.ts');
type ClientsModule = typeof import('../../src/kube/clients.ts');
type LoggerModule = typeof import('../../src/observability/logger.ts');

const [kubeconfig, namespace, fluxViewImage] = process.argv.slice(2);
if (kubeconfig === undefined || namespace === undefined || fluxViewImage === undefined) {
  process.stderr.write('usage: view-operator-process.ts KUBECONFIG NAMESPACE FLUX_VIEW_IMAGE\n');
  process.exit(2);
}

const dist = new URL('../../dist/src/', import.meta.url);
const compiled = async <T>(module: string): Promise<T> => (await import(new URL(module, dist).href)) as T;
const { Operator } = await compiled<OperatorModule>('controllers/operator.js');
const { loadKubeConfig, apiClientsFor } = await compiled<ClientsModule>('kube/clients.js');
const { createLogger } = await compiled<LoggerModule>('observability/logger.js');

const operator = new Operator({
  clients: apiClientsFor(loadKubeConfig(kubeconfig)),
  log: createLogger({ level: 'info' }),
  namespaces: [namespace],
  // What `flux-operator run` reconciles at once by default.
  concurrency: 4,
  fluxViewImage,
});
await operator.start();
await once(process, 'SIGTERM');
await operator.stop();
process.exit(0);
