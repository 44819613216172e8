// The conversion webhook the tests of one local cluster share: `node conversion-webhook-process.ts
// <kubeconfig> <state file>`, started detached by conversion-webhook.ts. Test files come and go, each
// with operators that serve no webhook of their own (so they never take the CRD from each other); this
// process serves the conversions for all of them, keeps the CRD pointed at itself (a test that installs
// the operator points it elsewhere for a moment), and writes where it serves into the state file. It
// exits on SIGTERM, or by itself once its cluster has been gone for a minute.
import { rmSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConversionWebhook } from '../../src/controllers/conversion/webhook.ts';
import { convertMiniCluster } from '../../src/api/crd-v1alpha2-placeholder.ts';
import { apiClients } from '../../src/kube/api-clients.ts';
import { loadClusterAccess } from '../../src/kube/cluster-access.ts';
import { createLogger } from '../../src/observability/logger.ts';

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
  // Another webhook may have taken the CRD (an installed operator under test): taken back within 0.5 s.
  syncIntervalMs: 500,
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
let goneSince: number | undefined;
for (;;) {
  await sleep(5_000);
  const ready = await clients.transport.probe('/readyz', 3_000);
  goneSince = ready ? undefined : (goneSince ?? Date.now());
  if (goneSince !== undefined && Date.now() - goneSince > GONE_EXIT_MS) await stop(0);
  // A renewed certificate changes the caBundle: keep the state file current for installCrd.
  const config = webhook.clientConfig();
  if (config) writeFileSync(stateFile, JSON.stringify({ pid: process.pid, clientConfig: config }));
}
