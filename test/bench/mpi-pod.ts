// One plain Pod of `npm run bench -- --mpi` (the floor, and the probe of LAMMPS's styles): created,
// watched until its container ended, timed, its log read, then deleted. Every request has a timeout.
import { setTimeout as sleep } from 'node:timers/promises';
import type { V1Pod } from '@kubernetes/client-node';
import type { ApiClients } from '../../src/kube/api-clients.ts';
import { httpStatus, waitFor } from '../harness/cluster.ts';
import { withCleanUp } from './mpi-cleanup.ts';
import { tail } from './mpi-logs.ts';

/** How often the pod is read while it runs (as view-sample.ts reads a MiniCluster). */
const POLL_MS = 100;
/** Waiting reasons that never end by themselves. */
const STUCK = /^(ErrImage|ImagePullBackOff|ErrImageNeverPull|InvalidImageName|CreateContainer)/;

export interface PodTarget {
  clients: ApiClients;
  namespace: string;
  timeoutMs: number;
  signal: AbortSignal;
}

export interface PodRun {
  /** Its container's log (standard output and error). */
  log: string;
  /** From the create request to its container seen terminated. */
  seconds: number;
  /** Its creationTimestamp to its container's finishedAt (whole seconds). */
  statusSeconds: number;
}

function wallSeconds(from: Date | string | undefined, to: Date | string | undefined): number {
  return from === undefined || to === undefined
    ? Number.NaN
    : (new Date(to).getTime() - new Date(from).getTime()) / 1000;
}

/** Runs the pod to its end; throws when it fails, cannot start or takes longer than the timeout. */
export async function runPod(target: PodTarget, pod: V1Pod): Promise<PodRun> {
  const { core } = target.clients;
  const { namespace } = target;
  const name = pod.metadata?.name ?? '';
  const command = (pod.spec?.containers[0]?.command ?? []).join(' ');
  const start = performance.now();
  await core.createNamespacedPod({ namespace, body: pod });
  for (;;) {
    target.signal.throwIfAborted();
    const seen = await core.readNamespacedPod({ name, namespace });
    const now = performance.now();
    const state = seen.status?.containerStatuses?.[0]?.state;
    const ended = state?.terminated;
    if (ended !== undefined) {
      const log = await core.readNamespacedPodLog({ name, namespace });
      if (ended.exitCode !== 0) {
        throw new Error(`pod ${namespace}/${name} (${command}) exited with ${ended.exitCode}:\n${tail(log)}`);
      }
      return {
        log,
        seconds: (now - start) / 1000,
        statusSeconds: wallSeconds(seen.metadata?.creationTimestamp, ended.finishedAt),
      };
    }
    const waiting = state?.waiting;
    if (waiting?.reason !== undefined && STUCK.test(waiting.reason)) {
      throw new Error(`pod ${namespace}/${name} cannot start: ${waiting.reason}: ${waiting.message ?? ''}`);
    }
    if (now - start > target.timeoutMs) {
      throw new Error(
        `pod ${namespace}/${name} (${command}) did not end in ${target.timeoutMs / 1000} s: ` +
          `${seen.status?.phase ?? 'no phase'}, ${JSON.stringify(state ?? {})}`,
      );
    }
    await sleep(POLL_MS, undefined, { signal: target.signal });
  }
}

/** Deletes the pod (gone already is fine) and waits until the API server has forgotten it. */
export async function deletePod(target: PodTarget, name: string): Promise<void> {
  const { core } = target.clients;
  const { namespace } = target;
  try {
    await core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 });
  } catch (error) {
    if (httpStatus(error) !== 404) throw error;
  }
  await waitFor(
    () =>
      core.readNamespacedPod({ name, namespace }).then(
        () => false,
        (error: unknown) => {
          if (httpStatus(error) === 404) return true;
          throw error;
        },
      ),
    { what: `pod ${namespace}/${name} to be gone`, timeoutMs: target.timeoutMs },
  );
}

/** `runPod`, then `deletePod` whatever happened. */
export function runPodOnce(target: PodTarget, pod: V1Pod): Promise<PodRun> {
  return withCleanUp(
    () => runPod(target, pod),
    () => deletePod(target, pod.metadata?.name ?? ''),
  );
}
