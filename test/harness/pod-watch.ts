// A watch on every pod of a namespace for the whole of a test: each pod the API server ever showed,
// with the MiniCluster and index it belongs to and whether it was ever scheduled or started, in the
// order seen. Tests assert on what it saw (no pod of a queued MiniCluster while another ran).
import type { V1Pod } from '@kubernetes/client-node';
import type { Transport } from '../../src/kube/transport.ts';
import { LABEL_JOB_COMPLETION_INDEX, LABEL_MINICLUSTER } from '../../src/api/index.ts';

export interface SeenPod {
  readonly uid: string;
  readonly name: string;
  readonly miniCluster: string;
  readonly index: number;
  /** When the watch first saw it (ms since the epoch). */
  readonly firstSeenMs: number;
  /** When it was first seen with a node (scheduled), or Running. */
  scheduledMs?: number;
  runningMs?: number;
  /** When its containers were seen ended (phase Succeeded or Failed): it runs no more. */
  endedMs?: number;
  /** When it was deleted (the watch's DELETED event). */
  goneMs?: number;
}

export interface PodWatch {
  /** Every pod seen, in the order first seen. */
  readonly pods: readonly SeenPod[];
  /** Every pod of a MiniCluster seen. */
  of(miniCluster: string): SeenPod[];
  stop(): void;
}

/** How soon a watch the API server ended (its timeout) is started again, from where it was. */
const RESTART_MS = 200;

export function watchPods(transport: Transport, namespace: string): PodWatch {
  const pods: SeenPod[] = [];
  const byUid = new Map<string, SeenPod>();
  let stopped = false;
  let resourceVersion: string | undefined;
  let stopWatch: (() => void) | undefined;
  const seen = (type: string, pod: V1Pod) => {
    const uid = pod.metadata?.uid ?? '';
    const now = Date.now();
    let entry = byUid.get(uid);
    if (!entry) {
      entry = {
        uid,
        name: pod.metadata?.name ?? '?',
        miniCluster: pod.metadata?.labels?.[LABEL_MINICLUSTER] ?? '',
        index: Number(pod.metadata?.labels?.[LABEL_JOB_COMPLETION_INDEX] ?? -1),
        firstSeenMs: now,
      };
      byUid.set(uid, entry);
      pods.push(entry);
    }
    if (pod.spec?.nodeName && entry.scheduledMs === undefined) entry.scheduledMs = now;
    if (pod.status?.phase === 'Running' && entry.runningMs === undefined) entry.runningMs = now;
    const phase = pod.status?.phase;
    if ((phase === 'Succeeded' || phase === 'Failed') && entry.endedMs === undefined) entry.endedMs = now;
    if (type === 'DELETED' && entry.goneMs === undefined) entry.goneMs = now;
  };
  const start = (): void => {
    if (stopped) return;
    stopWatch = transport.watch(`/api/v1/namespaces/${namespace}/pods`, {
      ...(resourceVersion ? { query: { resourceVersion } } : {}),
      onEvent: (event) => {
        // An expired resourceVersion (410): from the start again; pods seen before are known by uid.
        if (event.type === 'ERROR') {
          resourceVersion = undefined;
          return;
        }
        const pod = event.object as V1Pod;
        resourceVersion = pod.metadata?.resourceVersion ?? resourceVersion;
        if (event.type !== 'BOOKMARK') seen(event.type, pod);
      },
      // The server's timeout, a dropped connection or an ERROR event: again, from where it was.
      onDone: () => {
        if (!stopped) setTimeout(start, RESTART_MS);
      },
    });
  };
  start();
  return {
    pods,
    of: (miniCluster) => pods.filter((pod) => pod.miniCluster === miniCluster),
    stop: () => {
      stopped = true;
      stopWatch?.();
    },
  };
}
