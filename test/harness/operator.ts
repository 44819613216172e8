// Integration-test helpers for the operator: the CRD installed once, an in-process manager watching
// one test namespace, and small MiniCluster helpers.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { V1Pod } from '@kubernetes/client-node';
import { Writable } from 'node:stream';
import {
  CRD_NAME,
  GROUP,
  PLURAL,
  VERSION_V1ALPHA1,
  miniClusterCrd,
  type MiniClusterStatus,
} from '../../src/api/index.ts';
import { serverSideApply } from '../../src/kube/apply.ts';
import { apiClients, type ApiClients } from '../../src/kube/api-clients.ts';
import { writeOf } from '../../src/kube/request-write.ts';
import type { AnsweredRequest } from '../../src/kube/transport.ts';
import { readMiniClusterStatus } from '../../src/controllers/minicluster/minicluster-client.ts';
import { Operator, type OperatorOptions } from '../../src/controllers/operator.ts';
import { fluxViewReference, readFluxCoreVersion } from '../../workbench/src/images/index.ts';
import { binDir, readVersions } from '../../workbench/src/localcluster/index.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { installBurstTargetCrd } from './burst-target.ts';
import { ensureConversionWebhook } from './conversion-webhook.ts';
import { applyCrdKeepingClientConfig } from '../../src/kube/conversion-client-config.ts';
import { cluster, waitFor } from './cluster.ts';
import { usesNamespace } from './namespace-users.ts';

const run = promisify(execFile);
let crdInstalled: Promise<void> | undefined;

/** Applies the MiniCluster CRD (once per process) and waits until it is served. */
export function installCrd(): Promise<void> {
  crdInstalled ??= (async () => {
    const clients = await cluster();
    const { objects, kubeconfig } = clients;
    // v1alpha2 is stored: every v1alpha1 request goes through the cluster's shared test webhook (or,
    // while a test's installed operator holds the CRD and answers, through that one).
    const crd = miniClusterCrd(await ensureConversionWebhook(kubeconfig));
    await applyCrdKeepingClientConfig(objects, crd, (applied) =>
      serverSideApply(objects, applied as never, 'flux-operator-tests'),
    );
    await waitFor(
      async () => {
        const crd = (await objects.read({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: CRD_NAME },
        })) as { status?: { conditions?: { type: string; status: string }[] } };
        if (!crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True'))
          return false;
        // Established can precede the storage being ready to list: list once to be sure (through the
        // webhook, when anything is stored).
        await clients.custom.listClusterCustomObject({
          group: GROUP,
          version: VERSION_V1ALPHA1,
          plural: PLURAL,
        });
        return true;
      },
      { what: 'the MiniCluster CRD to be established', timeoutMs: 30_000 },
    );
    // The operator also watches BurstTargets.
    await installBurstTargetCrd(clients);
  })();
  return crdInstalled;
}

export interface RunningOperator {
  readonly manager: Operator;
  readonly clients: ApiClients;
  /** Every API write the operator made, as `verb:resource` (`apply:jobs`, `patch:miniclusters/status`). */
  readonly writes: string[];
  /** Every log line the operator wrote (JSON). */
  readonly logLines: string[];
  stop(): Promise<void>;
}

/** An in-process operator watching only `namespace`, so test files do not see each other's objects. */
/** Settings of the in-process operator a test may add (what `flux-operator run` wires to its metrics). */
export type ExtraOperatorOptions = Pick<OperatorOptions, 'onFluxQueue'>;

export async function startOperator(
  namespace: string,
  extra: ExtraOperatorOptions = {},
): Promise<RunningOperator> {
  await installCrd();
  const { access } = (await cluster()).transport;
  const clients = apiClients(access);
  const writes: string[] = [];
  // As the operator's metrics count them: every answered write, by verb and resource.
  const countWrites = (request: AnsweredRequest) => {
    const write = request.code === undefined ? undefined : writeOf(request);
    if (write) writes.push(`${write.verb}:${write.resource}`);
  };
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((line) => line !== ''),
      );
      done();
    },
  });
  const manager = new Operator({
    clients: apiClients(access, { onRequest: countWrites }),
    log: createLogger({ level: 'debug', destination: sink }),
    namespaces: [namespace],
    concurrency: 2,
    onTargetRequest: countWrites,
    // The Flux view the real node has (no registry): what v1alpha2 MiniClusters naming none run.
    fluxViewImage: fluxViewReference(readFluxCoreVersion()),
    ...extra,
  });
  await manager.start();
  const stop = usesNamespace(namespace, () => manager.stop());
  return { manager, clients, writes, logLines, stop };
}

export async function applyMiniCluster(clients: ApiClients, object: Record<string, unknown>): Promise<void> {
  await clients.objects.apply(object as never, 'flux-operator-tests');
}

export function miniClusterObject(
  namespace: string,
  name: string,
  spec: Record<string, unknown>,
): Record<string, unknown> {
  return {
    apiVersion: `${GROUP}/${VERSION_V1ALPHA1}`,
    kind: 'MiniCluster',
    metadata: { name, namespace },
    spec: {
      containers: [{ image: 'ghcr.io/flux-framework/flux-restful-api:latest', command: 'hostname' }],
      ...spec,
    },
  };
}

/** The MiniCluster's status; throws when it does not exist. */
export async function readStatus(
  clients: ApiClients,
  namespace: string,
  name: string,
): Promise<MiniClusterStatus> {
  const status = await readMiniClusterStatus(clients, namespace, name);
  if (status === undefined) throw new Error(`MiniCluster ${namespace}/${name} does not exist`);
  return status;
}

export function conditionOf(status: MiniClusterStatus, type: string) {
  return status.conditions?.find((condition) => condition.type === type);
}

/** Waits until the condition has the status, and returns the whole status. */
export async function waitForCondition(
  clients: ApiClients,
  namespace: string,
  name: string,
  type: string,
  wanted: 'True' | 'False',
  timeoutMs = 30_000,
): Promise<MiniClusterStatus> {
  return waitFor(
    async () => {
      const status = await readStatus(clients, namespace, name);
      return conditionOf(status, type)?.status === wanted ? status : false;
    },
    { what: `${namespace}/${name} condition ${type}=${wanted}`, timeoutMs },
  );
}

export async function podsOf(clients: ApiClients, namespace: string, name: string): Promise<V1Pod[]> {
  const list = await clients.core.listNamespacedPod({
    namespace,
    labelSelector: `flux-framework.org/minicluster=${name}`,
  });
  return list.items;
}

export async function scaleMiniCluster(
  clients: ApiClients,
  namespace: string,
  name: string,
  replicas: number,
): Promise<void> {
  await clients.custom.patchNamespacedCustomObjectScale({
    group: GROUP,
    version: VERSION_V1ALPHA1,
    namespace,
    plural: PLURAL,
    name,
    body: { spec: { replicas } },
  });
}

/**
 * How long one kubectl may run (a `kubectl exec` of a `flux run` included): a hung one is killed and
 * fails its test instead of hanging the suite.
 */
export const KUBECTL_TIMEOUT_MS = 300_000;

/** Runs the cluster's kubectl against the local control plane. */
export async function kubectl(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  const { kubeconfig } = await cluster();
  return run(`${binDir(readVersions())}/kubectl`, ['--kubeconfig', kubeconfig, ...args], {
    encoding: 'utf8',
    timeout: KUBECTL_TIMEOUT_MS,
  });
}
