// e2e helpers: MiniClusters placed on the real node (real Flux in real pods), their pods' logs and
// commands run in them the way a user runs them (`kubectl exec`).
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { KubernetesObject, V1Pod } from '@kubernetes/client-node';
import { REAL_NODE_PLACEMENT } from '../../workbench/src/localcluster/real-node/config.ts';
import type { ApiClients } from '../../src/kube/api-clients.ts';
import { cluster, waitFor, withNamespace } from './cluster.ts';
import {
  applyMiniCluster,
  kubectl,
  miniClusterObject,
  podsOf,
  startOperator,
  waitForCondition,
  type ExtraOperatorOptions,
} from './operator.ts';
import {
  API_VERSION,
  LABEL_JOB_COMPLETION_INDEX,
  PLURAL,
  type MiniClusterStatus,
} from '../../src/api/index.ts';
import { listCustomObjects } from '../../src/kube/custom-objects.ts';
import { PLAIN_IMAGE_REPOSITORY } from '../../workbench/src/images/plain-image.ts';

/** The Flux image built from source and loaded into the real node (no registry). */
export const FLUX_IMAGE = 'localhost/flux:0.88.0';
/** The same Flux on an image where uid 1000 is taken and munge is installed the Debian way. */
export const AWKWARD_FLUX_IMAGE = 'localhost/flux:0.88.0-awkward';

/** What a MiniCluster needs to land on the real node (and nowhere else). */
export const ON_REAL_NODE = REAL_NODE_PLACEMENT;

export interface RealMiniClusterOptions {
  image?: string;
  command?: string;
  container?: Record<string, unknown>;
}

/** A MiniCluster object whose pods run on the real node with the local Flux image. */
export function realMiniCluster(
  namespace: string,
  name: string,
  spec: Record<string, unknown>,
  options: RealMiniClusterOptions = {},
): Record<string, unknown> {
  const container: Record<string, unknown> = {
    image: options.image ?? FLUX_IMAGE,
    ...(options.command !== undefined ? { command: options.command } : {}),
    ...options.container,
  };
  const object = miniClusterObject(namespace, name, { ...spec, containers: [container] });
  const objectSpec = object.spec as Record<string, unknown>;
  objectSpec.pod = { ...(spec.pod as Record<string, unknown> | undefined), ...ON_REAL_NODE };
  return object;
}

function indexOf(pod: V1Pod): number {
  return Number(pod.metadata?.labels?.[LABEL_JOB_COMPLETION_INDEX] ?? -1);
}

/** The running pod of a MiniCluster's Job with this completion index (0: the lead broker). */
export async function podAt(
  clients: ApiClients,
  namespace: string,
  miniCluster: string,
  index = 0,
  timeoutMs = 60_000,
): Promise<V1Pod> {
  return waitFor(
    async () =>
      (await podsOf(clients, namespace, miniCluster)).find(
        (pod) => indexOf(pod) === index && pod.status?.phase === 'Running',
      ),
    { what: `pod ${index} of ${namespace}/${miniCluster} running`, timeoutMs },
  );
}

/** A pod's log; `container` names which one when the pod has several. */
export async function podLog(
  clients: ApiClients,
  namespace: string,
  pod: string,
  container?: string,
  options: { timestamps?: boolean } = {},
): Promise<string> {
  return clients.core.readNamespacedPodLog({
    name: pod,
    namespace,
    ...(container ? { container } : {}),
    ...(options.timestamps === undefined ? {} : { timestamps: options.timestamps }),
  });
}

/** Runs a command in a pod as a user would (`kubectl exec`); resolves with its output, rejects on failure. */
export async function execIn(namespace: string, pod: string, command: string[]) {
  return kubectl('exec', '--namespace', namespace, pod, '--', ...command);
}

/**
 * Runs `flux <args>` in the lead broker's pod against the instance, as its owner: what a user does with
 * `kubectl exec` (root may look, but Flux refuses jobs submitted as root).
 */
export async function fluxInLead(namespace: string, pod: string, args: string[]) {
  return execIn(namespace, pod, [
    'runuser',
    '-u',
    'flux',
    '--',
    'flux',
    'proxy',
    'local:///run/flux/local',
    'flux',
    ...args,
  ]);
}

/** How a test runs `flux <args>` in a lead pod: `fluxInLead` (Flux in the image) or `fluxFromView`. */
export type FluxIn = typeof fluxInLead;

/**
 * `flux <args>` in a pod whose Flux comes from the view, as a user does it there: the view's
 * environment file, then the instance's socket (the brokers run as the container's own user).
 */
export async function fluxFromView(namespace: string, pod: string, args: string[]) {
  return execIn(namespace, pod, [
    'bash',
    '-c',
    '. /mnt/flux/flux-view.sh && FLUX_URI="$fluxsocket" exec flux "$@"',
    'flux',
    ...args,
  ]);
}

/**
 * When the test fails, prints what explains it: every pod of the watched namespace with its phase and
 * log tail, and the namespace's events. Call it before anything that registers cleanup (hooks run in
 * order), then `watch` the namespace once it exists.
 */
export function explainOnFailure(t: TestContext): {
  watch(clients: ApiClients, namespace: string, operatorLog?: readonly string[]): void;
} {
  let watched: { clients: ApiClients; namespace: string; operatorLog?: readonly string[] } | undefined;
  t.after(async () => {
    // `passed` is set by the time after-hooks run (Node >= 21.7; not yet in @types/node).
    if ((t as TestContext & { passed?: boolean }).passed !== false || !watched) return;
    const { clients, namespace } = watched;
    const lines: string[] = [`--- ${namespace}: what the cluster shows ---`];
    const pods = await clients.core.listNamespacedPod({ namespace }).catch(() => undefined);
    for (const pod of pods?.items ?? []) {
      const name = pod.metadata?.name ?? '?';
      lines.push(`pod ${name} on ${pod.spec?.nodeName ?? '-'}: ${pod.status?.phase ?? '?'}`);
      const log = await podLog(clients, namespace, name).catch((err: unknown) => `(no log: ${String(err)})`);
      lines.push(
        ...log
          .split('\n')
          .slice(-40)
          .map((line) => `  | ${line}`),
      );
    }
    // Each MiniCluster's own account: its conditions (Bursting says why a queue read waited) and bursts.
    const miniClusters = await listCustomObjects<KubernetesObject & { status?: MiniClusterStatus }>(
      clients.custom,
      PLURAL,
      namespace,
    ).catch(() => undefined);
    for (const item of miniClusters?.items ?? []) {
      const { conditions = [], bursts } = item.status ?? {};
      lines.push(`minicluster ${item.metadata?.name ?? '?'}: bursts ${JSON.stringify(bursts ?? [])}`);
      lines.push(...conditions.map((condition) => `  | ${JSON.stringify(condition)}`));
    }
    const events = await clients.core.listNamespacedEvent({ namespace }).catch(() => undefined);
    for (const e of events?.items ?? []) {
      lines.push(
        `event ${e.involvedObject.kind}/${e.involvedObject.name}: ${e.reason ?? ''} ${e.message ?? ''}`,
      );
    }
    // What the operator said other than routine: why a pass failed or waited.
    lines.push(
      ...(watched.operatorLog ?? [])
        .filter((line) => /"level":"(warn|error)"/.test(line))
        .slice(-20)
        .map((line) => `operator: ${line}`),
    );
    process.stderr.write(`${lines.join('\n')}\n`);
  });
  return {
    watch(clients, namespace, operatorLog) {
      watched = { clients, namespace, ...(operatorLog ? { operatorLog } : {}) };
    },
  };
}

/** A namespace of its own, the operator watching it, and the cluster's story printed if the test fails. */
export async function scenario(
  t: TestContext,
  prefix: string,
  options: { readonly hostStorage?: boolean } & ExtraOperatorOptions = {},
) {
  // Registered first so that it runs first, before the namespace is deleted.
  const story = explainOnFailure(t);
  const { hostStorage, ...extra } = options;
  const namespace = await withNamespace(t, prefix, hostStorage === undefined ? {} : { hostStorage });
  // PersistentVolumes of spec.volumes are cluster-wide: none of this scenario's outlives it, whatever
  // the operator had time to collect (a volume still bound goes once its claim has gone).
  t.after(async () => {
    const { core } = await cluster();
    const { items } = await core.listPersistentVolume({
      labelSelector: `flux-framework.org/minicluster-namespace=${namespace}`,
    });
    for (const volume of items) {
      await core.deletePersistentVolume({ name: volume.metadata?.name ?? '' }).catch(() => undefined);
    }
  });
  const operator = await startOperator(namespace, extra);
  t.after(() => operator.stop());
  story.watch(operator.clients, namespace, operator.logLines);
  return { namespace, clients: operator.clients };
}

/** `flux resource list` rows as state -> nodes. */
export async function resourceStates(
  namespace: string,
  pod: string,
  flux: FluxIn = fluxInLead,
): Promise<Record<string, number>> {
  const { stdout } = await flux(namespace, pod, [
    'resource',
    'list',
    '--no-header',
    '-o',
    '{state}:{nnodes}',
  ]);
  const states: Record<string, number> = {};
  for (const line of stdout.trim().split('\n')) {
    const [state, nodes] = line.trim().split(':');
    if (state) states[state] = (states[state] ?? 0) + Number(nodes);
  }
  return states;
}

/** Waits until `up` brokers are up (free or allocated) in the instance of the lead pod. */
export async function waitForNodesUp(
  namespace: string,
  pod: string,
  up: number,
  timeoutMs = 120_000,
  flux: FluxIn = fluxInLead,
) {
  return waitFor(
    async () => {
      const states = await resourceStates(namespace, pod, flux);
      return (states.free ?? 0) + (states.allocated ?? 0) === up ? states : false;
    },
    { what: `${up} Flux nodes up in ${namespace}/${pod}`, timeoutMs, intervalMs: 1_000 },
  );
}

export async function hostnamesFromJob(namespace: string, pod: string, nodes: number): Promise<string[]> {
  const { stdout } = await fluxInLead(namespace, pod, [
    'run',
    '-N',
    String(nodes),
    '-n',
    String(nodes),
    'hostname',
  ]);
  return stdout.trim().split('\n').sort();
}

export async function leadLog(
  clients: ApiClients,
  namespace: string,
  name: string,
  container?: string,
  options: { timestamps?: boolean } = {},
): Promise<string> {
  const pods = await podsOf(clients, namespace, name);
  const lead = pods.find((pod) => pod.metadata?.labels?.[LABEL_JOB_COMPLETION_INDEX] === '0');
  assert.ok(lead?.metadata?.name, `the lead pod of ${name} exists`);
  return podLog(clients, namespace, lead.metadata.name, container, options);
}

/**
 * A MiniCluster of 2 brokers that may burst one cluster of 2 (`burst-0`, polling its queue every 2 s),
 * up and with both brokers in its instance; resolves with its lead pod's name. `policy` adds to the
 * bursting policy.
 */
/** An application image without Flux, no sh, no hostname (workbench/src/images/plain-image.ts). */
export const PLAIN_IMAGE = `${PLAIN_IMAGE_REPOSITORY}:bookworm`;

export async function burstableMiniCluster(
  clients: ApiClients,
  namespace: string,
  name: string,
  policy: Record<string, unknown> = {},
  options: { readonly fromView?: boolean } = {},
): Promise<string> {
  const object = realMiniCluster(
    namespace,
    name,
    {
      size: 2,
      interactive: true,
      flux: { bursting: { clusters: [{ name: 'burst-0', size: 2 }], policy: { pollSeconds: 2, ...policy } } },
    },
    // v1alpha2 with no flux.container: Flux from the view, in an image without Flux.
    options.fromView ? { image: PLAIN_IMAGE } : {},
  );
  await applyMiniCluster(clients, options.fromView ? { ...object, apiVersion: API_VERSION } : object);
  await waitForCondition(clients, namespace, name, 'Ready', 'True', 180_000);
  const lead = (await podAt(clients, namespace, name)).metadata?.name ?? '';
  await waitForNodesUp(namespace, lead, 2, 120_000, options.fromView ? fluxFromView : fluxInLead);
  return lead;
}

/**
 * Submits a burstable job of 4 tasks on 4 nodes printing the host's name (`uname -n`: the plain
 * images have no `hostname`); resolves with its output lines, sorted.
 */
export async function runBurstableHostnames(
  namespace: string,
  lead: string,
  flux: FluxIn = fluxInLead,
): Promise<string[]> {
  const { stdout } = await flux(namespace, lead, [
    'submit',
    '--setattr=burstable',
    '-N',
    '4',
    '-n',
    '4',
    'uname',
    '-n',
  ]);
  const { stdout: output } = await flux(namespace, lead, ['job', 'attach', stdout.trim()]);
  return output.trim().split('\n').sort();
}
