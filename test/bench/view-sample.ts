// One MiniCluster of `npm run bench -- --view`: applied, watched until it succeeded, timed, then deleted.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { V1Pod } from '@kubernetes/client-node';
import {
  GROUP,
  LABEL_MINICLUSTER,
  PLURAL,
  VERSION_V1ALPHA1,
  type MiniClusterStatus,
} from '../../src/api/index.ts';
import { stateDir } from '../../workbench/src/localcluster/index.ts';
import { realNodeLayout, realNodePaths } from '../../workbench/src/localcluster/real-node/config.ts';
import type { ApiClients } from '../../src/kube/api-clients.ts';
import { httpStatus, waitFor } from '../harness/cluster.ts';
import { applyMiniCluster } from '../harness/operator.ts';
import type { ViewKind } from './view-options.ts';
import type { ViewSample } from './view-result.ts';

/** The longest any one request to the API server may take. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** How often the MiniCluster and its pods are read while it runs. */
const POLL_MS = 100;
/** Where the real node's kubelet keeps each pod's folder (its volumes), by the pod's uid. */
const KUBELET_PODS = path.join(realNodePaths(realNodeLayout(stateDir())).kubeletRoot, 'pods');

/** `promise`, or an error naming `what` once `ms` have passed (it is not cancelled). */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface SampleTarget {
  clients: ApiClients;
  namespace: string;
  name: string;
  size: number;
  timeoutMs: number;
  signal: AbortSignal;
}

async function readStatus(target: SampleTarget): Promise<MiniClusterStatus | undefined> {
  const object = (await target.clients.custom.getNamespacedCustomObject({
    group: GROUP,
    version: VERSION_V1ALPHA1,
    plural: PLURAL,
    namespace: target.namespace,
    name: target.name,
  })) as { status?: MiniClusterStatus };
  return object.status;
}

async function podsOf(target: SampleTarget): Promise<V1Pod[]> {
  const list = await target.clients.core.listNamespacedPod({
    namespace: target.namespace,
    labelSelector: `${LABEL_MINICLUSTER}=${target.name}`,
  });
  return list.items;
}

function isTrue(status: MiniClusterStatus | undefined, type: string): boolean {
  return (
    status?.conditions?.some((condition) => condition.type === type && condition.status === 'True') ?? false
  );
}

/** Every container of the pod (init containers aside) has started: it runs, or already ended. */
function started(pod: V1Pod): boolean {
  const statuses = pod.status?.containerStatuses ?? [];
  return (
    statuses.length > 0 &&
    statuses.every((status) => status.state?.running !== undefined || status.state?.terminated !== undefined)
  );
}

/** The images the pods' init containers ran, by their ids (the view that was copied). */
function initImageIds(pods: readonly V1Pod[]): string[] {
  const ids = pods.flatMap((pod) =>
    (pod.status?.initContainerStatuses ?? []).map((status) => status.imageID),
  );
  return [...new Set(ids)].sort();
}

/**
 * Each pod's init containers that end, start to end, from their status (whole seconds: the API's
 * precision). A sidecar (the view's copy now) lives as long as its pod, so it is left out.
 */
function initSeconds(pods: readonly V1Pod[]): number[] {
  return pods.flatMap((pod) =>
    (pod.status?.initContainerStatuses ?? []).flatMap((status) => {
      const spec = pod.spec?.initContainers?.find((init) => init.name === status.name);
      if (spec?.restartPolicy === 'Always') return [];
      const ended = status.state?.terminated;
      if (!ended?.startedAt || !ended.finishedAt) return [];
      return [(new Date(ended.finishedAt).getTime() - new Date(ended.startedAt).getTime()) / 1000];
    }),
  );
}

/**
 * Applies `miniCluster` and times it: from the apply to all `size` pods' containers started, and to
 * its Succeeded condition. Throws when it fails or takes longer than the target's timeout.
 */
export async function measureMiniCluster(
  target: SampleTarget,
  kind: ViewKind,
  miniCluster: Record<string, unknown>,
): Promise<ViewSample> {
  const start = performance.now();
  const seconds = (at: number) => (at - start) / 1000;
  await within(REQUEST_TIMEOUT_MS, `applying ${target.name}`, applyMiniCluster(target.clients, miniCluster));
  let podsStartedAt: number | undefined;
  for (;;) {
    target.signal.throwIfAborted();
    const [status, pods] = await Promise.all([readStatus(target), podsOf(target)]);
    const now = performance.now();
    if (podsStartedAt === undefined && pods.filter(started).length >= target.size) podsStartedAt = now;
    if (isTrue(status, 'Failed')) {
      throw new Error(
        `MiniCluster ${target.namespace}/${target.name} failed: ${JSON.stringify(status?.conditions)}`,
      );
    }
    if (isTrue(status, 'Succeeded')) {
      return {
        kind,
        succeededSeconds: seconds(now),
        podsStartedSeconds: seconds(podsStartedAt ?? now),
        initSeconds: initSeconds(pods),
        initImageIds: initImageIds(pods),
      };
    }
    if (now - start > target.timeoutMs) {
      throw new Error(
        `MiniCluster ${target.namespace}/${target.name} (${kind}) did not succeed in ${target.timeoutMs / 1000} s: ` +
          `${pods.filter(started).length}/${target.size} pods started, conditions ${JSON.stringify(status?.conditions)}`,
      );
    }
    await sleep(POLL_MS, undefined, { signal: target.signal });
  }
}

/**
 * Deletes the MiniCluster (gone already is fine) and waits until it and its pods are gone, and with
 * them their folders on the real node: the kubelet removes a pod's volumes (the view's copies: hundreds
 * of files each) after the API server forgot the pod, and the next MiniCluster should not pay for that.
 */
export async function deleteMiniCluster(target: SampleTarget): Promise<void> {
  const pods = await podsOf(target).catch(() => []);
  const folders = pods.flatMap((pod) =>
    pod.metadata?.uid ? [path.join(KUBELET_PODS, pod.metadata.uid)] : [],
  );
  try {
    await target.clients.custom.deleteNamespacedCustomObject({
      group: GROUP,
      version: VERSION_V1ALPHA1,
      plural: PLURAL,
      namespace: target.namespace,
      name: target.name,
    });
  } catch (error) {
    if (httpStatus(error) !== 404) throw error;
  }
  await waitFor(
    async () => {
      const gone = await readStatus(target).then(
        () => false,
        (error: unknown) => httpStatus(error) === 404,
      );
      return gone && (await podsOf(target)).length === 0;
    },
    { what: `${target.namespace}/${target.name} and its pods to be gone`, timeoutMs: target.timeoutMs },
  );
  await waitFor(() => !folders.some((folder) => existsSync(folder)), {
    what: `the real node to remove the folders of ${target.name}'s pods (${folders.join(', ')})`,
    timeoutMs: target.timeoutMs,
  });
}
