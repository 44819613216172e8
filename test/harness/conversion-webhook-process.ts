// The conversion webhook the tests of one local cluster share: `node conversion-webhook-process.ts
// <kubeconfig> <state file>`, started detached by conversion-webhook.ts. Test files come and go, each
// with operators that serve no webhook of their own (so they never take the CRD from each other); this
// process serves the conversions for all of them and writes where it serves into the state file. A
// test that installs the operator points the CRD at the installed one: while that one answers (checked
// every half second as the API server would reach it), it keeps the CRD; when it does not (not ready
// yet, its namespace deleted), this process takes the CRD back at once. It exits on SIGTERM, or by
// itself once its cluster has been gone for a minute.
import { rmSync, writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConversionWebhook } from '../../src/controllers/conversion/webhook.ts';
import { convertMiniCluster } from '../../src/api/index.ts';
import { apiClients } from '../../src/kube/api-clients.ts';
import { loadClusterAccess } from '../../src/kube/cluster-access.ts';
import { createLogger } from '../../src/observability/logger.ts';
import type { ConversionClientConfig } from '../../src/api/index.ts';
import { CRD_NAME } from '../../src/api/index.ts';
import { webhookReach } from '../../src/controllers/conversion/service-probe.ts';

export const TEST_WEBHOOK_SECRET = { namespace: 'default', name: 'flux-operator-tests-webhook-cert' };
const GONE_EXIT_MS = 60_000;

const [kubeconfig, stateFile] = process.argv.slice(2);
if (!kubeconfig || !stateFile)
  throw new Error('usage: conversion-webhook-process.ts <kubeconfig> <state file>');
const log = createLogger({ level: 'info' });
const clients = apiClients(loadClusterAccess(kubeconfig));
const webhook = new ConversionWebhook({
  transport: clients.transport,
  log,
  convert: convertMiniCluster,
  address: { host: '127.0.0.1', port: 0 },
  secret: TEST_WEBHOOK_SECRET,
  secretLabels: { 'flux-operator.test/owned': 'true' },
  // Its own passes only follow its Secret; the loop below decides when to take the CRD.
  mayWrite: () => false,
});

let stopping = false;
const stop = async (code: number) => {
  if (stopping) return;
  stopping = true;
  await webhook.stop();
  rmSync(stateFile, { force: true });
  process.exit(code);
};
process.once('SIGTERM', () => void stop(0));
process.once('SIGINT', () => void stop(0));

for (;;) {
  try {
    await webhook.start();
    break;
  } catch (error) {
    log.error({ error: (error as Error).message }, 'cannot start the tests conversion webhook');
    await sleep(1000);
  }
}
for (;;) {
  const config = webhook.clientConfig();
  if (config) {
    writeFileSync(stateFile, JSON.stringify({ pid: process.pid, clientConfig: config }));
    break;
  }
  await sleep(200);
}
async function liveClientConfig(): Promise<ConversionClientConfig | undefined> {
  const crd = await clients.transport.request<{
    spec?: { conversion?: { strategy?: string; webhook?: { clientConfig?: ConversionClientConfig } } };
  }>('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`, { timeoutMs: 5_000 });
  return crd.spec?.conversion?.strategy === 'Webhook' ? crd.spec.conversion.webhook?.clientConfig : undefined;
}

let goneSince: number | undefined;
let lastProbe = 0;
for (;;) {
  await sleep(500);
  try {
    const live = await liveClientConfig();
    const mine = webhook.clientConfig();
    if (
      live &&
      mine &&
      !isDeepStrictEqual(live, mine) &&
      !(await webhookReach(clients.transport, live, 2_000)).ok
    ) {
      await webhook.sync(true);
    }
    goneSince = undefined;
  } catch {
    goneSince ??= Date.now();
  }
  if (Date.now() - lastProbe > 5_000) {
    lastProbe = Date.now();
    if (!(await clients.transport.probe('/readyz', 3_000))) goneSince ??= Date.now();
  }
  if (goneSince !== undefined && Date.now() - goneSince > GONE_EXIT_MS) await stop(0);
}
