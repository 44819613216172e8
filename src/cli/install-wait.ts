/**
 * `install --with-deployment` waits for the operator it installed: until a pod of the Deployment is
 * Ready (its readiness includes the API server converting through its webhook when it owns the CRD's
 * conversion: `flux-operator run`'s crd-conversion check), so a manifest applied right after the
 * install just works. It says what it waits for every so often, and when the time is up it names what
 * each pod is stuck on (an image that cannot be pulled, no node that fits, a crashing container) with
 * where to look, instead of leaving the user to find the first 500 of a conversion.
 *
 * What a pod is waiting on is a pure function of the pod (`podWaitReason`); the loop only reads.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';

/** How long install waits for the operator by default (an image pull on a fresh node takes a while). */
export const DEFAULT_OPERATOR_WAIT_SECONDS = 180;
/** How often it looks, and how often it says it is still waiting. */
const POLL_MS = 1_000;
const SAY_EVERY_MS = 15_000;

/** What one pod of the Deployment is waiting on, in a few words; undefined when it is Ready. */
export function podWaitReason(pod: V1Pod): string | undefined {
  const status = pod.status;
  const ready = status?.conditions?.find((condition) => condition.type === 'Ready');
  if (ready?.status === 'True') return undefined;
  const scheduled = status?.conditions?.find((condition) => condition.type === 'PodScheduled');
  if (scheduled?.status === 'False') {
    return `not scheduled: ${scheduled.message ?? scheduled.reason ?? 'no node fits it'}`;
  }
  const containers = [...(status?.initContainerStatuses ?? []), ...(status?.containerStatuses ?? [])];
  for (const container of containers) {
    const waiting = container.state?.waiting;
    if (waiting?.reason !== undefined && waiting.reason !== 'PodInitializing') {
      const message = waiting.message === undefined ? '' : `: ${waiting.message}`;
      const restarts = container.restartCount > 0 ? ` after ${container.restartCount} restarts` : '';
      return `container ${container.name} ${waiting.reason}${restarts}${message}`;
    }
    const ended = container.lastState?.terminated;
    if (container.state?.running && ended !== undefined && ended.exitCode !== 0) {
      return `container ${container.name} running again after it exited with ${ended.exitCode} (${ended.reason ?? 'Error'})`;
    }
  }
  if (containers.some((container) => container.state?.running)) return 'running, not Ready yet';
  return status?.phase === undefined ? 'not started yet' : `${status.phase}, not Ready yet`;
}

/** The install is in place but its operator did not become Ready in time. */
export class OperatorNotReady extends Error {
  override readonly name = 'OperatorNotReady';
}

/**
 * Whether the Deployment's current template runs: its controller has seen this generation, every pod
 * is of the current template (an upgrade's old pods are gone), and one of them is available. An
 * upgrade's old Ready pod alone does not count: it serves the version being replaced.
 */
export function deploymentAvailable(deployment: V1Deployment | undefined): boolean {
  const status = deployment?.status;
  if (deployment === undefined || status === undefined) return false;
  const generation = deployment.metadata?.generation ?? 0;
  const updated = status.updatedReplicas ?? 0;
  return (
    (status.observedGeneration ?? 0) >= generation &&
    updated >= 1 &&
    (status.replicas ?? 0) === updated &&
    (status.availableReplicas ?? 0) >= 1
  );
}

/** One line on what the install still waits for: each pod and its reason, or that none exists yet. */
export function waitingLine(deployment: string, pods: readonly V1Pod[], seconds: number): string {
  return `waiting for ${deployment} to have a Ready pod (${seconds} s): ${podsWaiting(pods)}`;
}

/** Each pod that is not Ready and why, or that there is none yet. */
function podsWaiting(pods: readonly V1Pod[]): string {
  const waiting = pods.flatMap((pod) => {
    const reason = podWaitReason(pod);
    return reason === undefined ? [] : [`${pod.metadata?.name ?? '?'}: ${reason}`];
  });
  if (waiting.length > 0) return waiting.join('; ');
  return pods.length === 0 ? 'no pod yet' : 'rolling out';
}

/** The Deployment waited for: `<kind>/<name>` as install prints it, its namespace, its pods' selector. */
export interface OperatorNames {
  readonly deployment: string;
  readonly namespace: string;
  readonly selector: string;
}

/** The error when the time is up: what each pod waits on, what is in place, and where to look. */
export function notReadyMessage(names: OperatorNames, pods: readonly V1Pod[], seconds: number): string {
  return (
    `${names.deployment} has no Ready pod after ${seconds} s: ${podsWaiting(pods).replace(/\.+$/, '')}. ` +
    'Everything is applied, and the operator starts by itself once a pod runs; until then nothing ' +
    'reconciles MiniClusters, and conversions through its webhook fail (HTTP 500). ' +
    `Look with: kubectl -n ${names.namespace} describe pods -l ${names.selector}; ` +
    'wait longer with --wait-seconds, or not at all with --wait-seconds 0'
  );
}

export interface OperatorWaitReads {
  readDeployment(): Promise<V1Deployment | undefined>;
  listPods(): Promise<V1Pod[]>;
}

/**
 * Waits until the Deployment has a Ready pod, saying what it waits for every 15 s; throws
 * `notReadyMessage` after `seconds`. Resolves with the seconds it took.
 */
export async function waitForOperator(
  reads: OperatorWaitReads,
  names: OperatorNames,
  seconds: number,
  log: (line: string) => void,
): Promise<number> {
  const start = performance.now();
  let said = start;
  for (;;) {
    const deployment = await reads.readDeployment();
    const elapsed = (performance.now() - start) / 1000;
    if (deploymentAvailable(deployment)) return elapsed;
    if (elapsed >= seconds) {
      throw new OperatorNotReady(notReadyMessage(names, await reads.listPods(), seconds));
    }
    if (performance.now() - said >= SAY_EVERY_MS) {
      said = performance.now();
      log(waitingLine(names.deployment, await reads.listPods(), Math.round(elapsed)));
    }
    await sleep(POLL_MS);
  }
}
