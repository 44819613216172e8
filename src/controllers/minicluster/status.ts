/**
 * The MiniCluster's status as a pure function of what the controller observed: the Job, its pods
 * and any problem that stopped the pass. Each decision is a small function returning a condition,
 * so the reasons and messages are honest and testable (cert-manager style).
 */
import type {
  V1ContainerStateTerminated,
  V1ContainerStatus,
  V1Job,
  V1Pod,
  V1Service,
} from '@kubernetes/client-node';
import {
  CONDITION_BURSTING,
  CONDITION_DRAINING,
  CONDITION_FAILED,
  CONDITION_QUEUED,
  CONDITION_READY,
  CONDITION_RESTFUL_API,
  CONDITION_SCALING,
  CONDITION_SUCCEEDED,
  LABEL_JOB_COMPLETION_INDEX,
  selectorString,
  type Condition,
  type MiniClusterStatus,
  type Summary,
} from '../../api/index.ts';
import { miniClusterNames, restfulPort, servesRestful } from '../../render/index.ts';
import type { DefaultedMiniCluster } from '../../api/index.ts';
import { canonical } from './canonical.ts';
import { SPEC_CHANGE_NEEDS_RECREATE } from './job-template.ts';
import { stoppedBecause } from './stopped-job.ts';
import type { BlockingProblem } from '../../runtime/steps.ts';

export interface Observation {
  readonly miniCluster: DefaultedMiniCluster;
  readonly previous: MiniClusterStatus | undefined;
  readonly job: V1Job | undefined;
  readonly pods: readonly V1Pod[];
  /** What stopped the pass before the Job could be brought to its desired state. */
  readonly problem?: BlockingProblem;
  /** The Service exposing the lead broker, when this MiniCluster declares burst clusters. */
  readonly leadBrokerService?: V1Service;
  /** What the bursting step found and did this pass (MiniClusters with burst slots). */
  readonly burst?: {
    readonly bursts: NonNullable<MiniClusterStatus['bursts']>;
    readonly jobs: NonNullable<MiniClusterStatus['burstJobs']>;
    readonly condition: DesiredCondition;
  };
  /** What the scale step found and did this pass (autoscaled MiniClusters, and any scale-in). */
  readonly scale?: {
    readonly autoscale: MiniClusterStatus['autoscale'];
    readonly condition?: DesiredCondition;
  };
  /** Under Kueue (queue-status.ts): the Queued condition, whether Kueue holds the Job, a held size. */
  readonly queue?: {
    readonly condition: DesiredCondition;
    readonly waiting: boolean;
    readonly scaling?: DesiredCondition;
  };
  readonly now: Date;
}

type ConditionStatus = Condition['status'];
/** A condition as a pass decides it; the transition time and generation are added when writing. */
export type DesiredCondition = Pick<Condition, 'type' | 'status' | 'reason' | 'message'> &
  // Set only on a condition carried over from an earlier pass: the generation it was decided on.
  Partial<Pick<Condition, 'observedGeneration'>>;

function jobCondition(job: V1Job | undefined, type: string) {
  return job?.status?.conditions?.find((condition) => condition.type === type && condition.status === 'True');
}

function isPodReady(pod: V1Pod): boolean {
  if (pod.metadata?.deletionTimestamp || pod.status?.phase !== 'Running') return false;
  const ready = pod.status.conditions?.find((condition) => condition.type === 'Ready');
  return ready === undefined || ready.status === 'True';
}

function podIndex(pod: V1Pod): number {
  return Number(pod.metadata?.labels?.[LABEL_JOB_COMPLETION_INDEX] ?? Number.NaN);
}

/** Reasons a container waits that only say it is on its way; any other one is worth telling. */
const ROUTINE_WAITING_REASONS = new Set(['ContainerCreating', 'PodInitializing']);

/**
 * Why a container of the pod cannot start, e.g. `CreateContainerConfigError: secret "creds" not
 * found` when a Secret of `containers[].secrets` is missing, or `init container flux-view:
 * ErrImagePull: ...` when the Flux view's image cannot be pulled: the pod stays Pending without it.
 */
function containerWaiting(pod: V1Pod): string | undefined {
  const blocked = (statuses: readonly V1ContainerStatus[] | undefined) =>
    statuses?.find((status) => {
      const reason = status.state?.waiting?.reason;
      return reason !== undefined && !ROUTINE_WAITING_REASONS.has(reason);
    });
  const init = blocked(pod.status?.initContainerStatuses);
  const container = init ?? blocked(pod.status?.containerStatuses);
  const waiting = container?.state?.waiting;
  if (waiting?.reason === undefined) return undefined;
  const why = waiting.message ? `${waiting.reason}: ${waiting.message}` : waiting.reason;
  return init ? `init container ${init.name}: ${why}` : why;
}

/** Why the pods that are not ready are waiting, briefly: `flux-sample-2 Pending (Unschedulable)`. */
function waitingPods(pods: readonly V1Pod[], size: number): string {
  const waiting = pods
    .filter((pod) => !isPodReady(pod) && podIndex(pod) < size)
    .sort((a, b) => podIndex(a) - podIndex(b))
    .slice(0, 5)
    .map((pod) => {
      const scheduled = pod.status?.conditions?.find((condition) => condition.type === 'PodScheduled');
      const reason =
        scheduled?.status === 'False' && scheduled.reason ? scheduled.reason : containerWaiting(pod);
      const why = reason === undefined ? '' : ` (${reason})`;
      return `${pod.metadata?.name ?? '?'} ${pod.status?.phase ?? 'Pending'}${why}`;
    });
  return waiting.length > 0 ? `; waiting for ${waiting.join(', ')}` : '';
}

function condition(type: string, status: ConditionStatus, reason: string, message: string): DesiredCondition {
  return { type, status, reason, message };
}

/** Ready: True when all `size` brokers run; otherwise why not. */
export function readyCondition(observation: Observation, readyPods: number): DesiredCondition {
  const { miniCluster, job, problem, pods } = observation;
  const size = miniCluster.spec.size;
  if (problem) return condition(CONDITION_READY, 'False', problem.reason, problem.message);
  if (jobCondition(job, 'Failed'))
    return condition(CONDITION_READY, 'False', 'Failed', 'the Flux instance failed');
  if (jobCondition(job, 'Complete') || jobCondition(job, 'SuccessCriteriaMet') || leadSucceeded(pods)) {
    return condition(CONDITION_READY, 'False', 'Succeeded', 'the lead broker finished its command');
  }
  if (!job) return condition(CONDITION_READY, 'False', 'JobPending', 'the Job has not been created yet');
  // Kueue holds the Job suspended: no broker runs until it admits them all.
  const { queue } = observation;
  if (queue?.waiting) return condition(CONDITION_READY, 'False', REASON_QUEUED, queue.condition.message);
  const first = exitedFirstBroker(pods);
  if (first) {
    // Between the pod's end and the Job's verdict the other brokers stop: not "starting" again.
    return condition(
      CONDITION_READY,
      'False',
      REASON_FINISHING,
      `broker pod ${first.pod} (index 0) exited with status ${first.exitCode}; the Job is finishing`,
    );
  }
  const shutting = finishedWorker(pods);
  if (shutting) {
    // A worker broker ends with 0 only when the instance shuts down: the lead follows, not a restart.
    return condition(
      CONDITION_READY,
      'False',
      REASON_FINISHING,
      `broker pod ${shutting} finished with status 0: the Flux instance is shutting down`,
    );
  }
  if (readyPods >= size) {
    return condition(CONDITION_READY, 'True', 'BrokersRunning', `${readyPods}/${size} brokers running`);
  }
  return condition(
    CONDITION_READY,
    'False',
    'PodsPending',
    `${readyPods}/${size} brokers running${waitingPods(pods, size)}`,
  );
}

const REASON_FINISHING = 'Finishing';
const REASON_QUEUED = 'Queued';

/**
 * A worker broker's pod (index above 0, not being deleted) whose containers all ended with 0: the
 * entrypoint ends a worker so only when its instance shut down (or a scale down deleted its pod,
 * which the deletion shows). Its name, `flux-sample-2-abcde (index 2)`.
 */
function finishedWorker(pods: readonly V1Pod[]): string | undefined {
  const finished = pods.find((pod) => {
    const statuses = pod.status?.containerStatuses ?? [];
    return (
      podIndex(pod) > 0 &&
      !pod.metadata?.deletionTimestamp &&
      statuses.length > 0 &&
      statuses.every((status) => status.state?.terminated?.exitCode === 0)
    );
  });
  return finished ? `${finished.metadata?.name ?? '?'} (index ${podIndex(finished)})` : undefined;
}

/** Pod index 0 (the lead broker, whose end ends the Job) once its container has ended. */
function exitedFirstBroker(pods: readonly V1Pod[]): { pod: string; exitCode: number } | undefined {
  const first = pods.find((pod) => podIndex(pod) === 0 && !pod.metadata?.deletionTimestamp);
  const exitCode = first?.status?.containerStatuses?.find((c) => c.state?.terminated)?.state?.terminated
    ?.exitCode;
  return first && exitCode !== undefined ? { pod: first.metadata?.name ?? '?', exitCode } : undefined;
}

/** True for the lead broker's pod (index 0) once a container of it has ended. */
export function leadBrokerEnded(pod: V1Pod): boolean {
  return exitedFirstBroker([pod]) !== undefined;
}

/**
 * The first broker (lowest index) whose container ended with a non-zero status, if one did, with its
 * termination message when it left one.
 */
export function failedBroker(
  pods: readonly V1Pod[],
): { pod: string; index: number; exitCode: number; message?: string } | undefined {
  for (const pod of [...pods].sort((a, b) => podIndex(a) - podIndex(b))) {
    for (const container of pod.status?.containerStatuses ?? []) {
      const terminated = container.state?.terminated;
      if (terminated !== undefined && terminated.exitCode !== 0) {
        return {
          pod: pod.metadata?.name ?? '?',
          index: podIndex(pod),
          exitCode: terminated.exitCode,
          ...(terminated.message ? { message: terminated.message } : {}),
        };
      }
    }
  }
  return undefined;
}

/**
 * The line the entrypoint writes to its termination message when the lead's command's own program
 * could not be run (scripts/entrypoint.sh, report_missing_program): the program's name (a plain word,
 * as src/flux/entrypoint.ts `commandProgram` chooses it), what went wrong, and the exit status.
 */
const PROGRAM_FAILURE =
  /^the command's program "([A-Za-z0-9_./+,:@-]{1,100})" (was not found in the image|is not executable) \(exit status (\d+)\)$/;

/**
 * What the lead's termination message says of its command's program, when it is the entrypoint's
 * line for this exit status; undefined for anything else (no message, another status, another text:
 * the container's own processes can write the file too, so nothing else of it is ever shown).
 */
export function programFailure(
  message: string | undefined,
  exitCode: number,
): { reason: string; program: string; problem: string } | undefined {
  const match = PROGRAM_FAILURE.exec(message?.trim() ?? '');
  if (!match || Number(match[3]) !== exitCode) return undefined;
  const [, program = '', problem = ''] = match;
  return {
    reason: problem === 'is not executable' ? 'ProgramNotExecutable' : 'ProgramNotFound',
    program,
    problem,
  };
}

/** Failed, when the lead broker's command failed: its exit status, and the program when it could not run. */
function leadBrokerFailed(broker: { pod: string; exitCode: number; message?: string }): DesiredCondition {
  const exited = `the lead broker exited with status ${broker.exitCode} (pod ${broker.pod})`;
  const program = programFailure(broker.message, broker.exitCode);
  if (program) {
    return condition(
      CONDITION_FAILED,
      'True',
      program.reason,
      `${exited}: its command's program "${program.program}" ${program.problem}`,
    );
  }
  return condition(CONDITION_FAILED, 'True', 'CommandFailed', `${exited}: its command failed`);
}

/** A runtime's message is long (the whole OCI error): its first line, within a condition's reading length. */
function briefly(message: string): string {
  const line = message.trim().split('\n')[0] ?? '';
  return line.length > MESSAGE_EXCERPT ? `${line.slice(0, MESSAGE_EXCERPT)}...` : line;
}

const MESSAGE_EXCERPT = 400;

/** How an init container last ended: a sidecar (the Flux view's) restarts, so it may be waiting again. */
function lastEnd(status: V1ContainerStatus): V1ContainerStateTerminated | undefined {
  if (status.state?.terminated) return status.state.terminated;
  return status.state?.running ? undefined : status.lastState?.terminated;
}

interface FailedInitContainer {
  pod: string;
  container: string;
  exitCode: number;
  reason?: string;
  message?: string;
}

/**
 * The first init container (e.g. the Flux view's sidecar) whose last end had a non-zero status, of
 * the pods `among` keeps, if one did.
 */
function failedInitContainer(
  pods: readonly V1Pod[],
  among: (pod: V1Pod, container: V1ContainerStatus) => boolean = () => true,
): FailedInitContainer | undefined {
  for (const pod of [...pods].sort((a, b) => podIndex(a) - podIndex(b))) {
    for (const container of pod.status?.initContainerStatuses ?? []) {
      const terminated = lastEnd(container);
      if (terminated === undefined || terminated.exitCode === 0 || !among(pod, container)) continue;
      return {
        pod: pod.metadata?.name ?? '?',
        container: container.name,
        exitCode: terminated.exitCode,
        ...(terminated.reason ? { reason: terminated.reason } : {}),
        ...(terminated.message ? { message: briefly(terminated.message) } : {}),
      };
    }
  }
  return undefined;
}

/**
 * A sidecar (restartPolicy Always, the Flux view's) that failed in a pod none of whose containers
 * ever started: the kubelet restarts it, so the Job does not fail, yet the broker cannot start (a view
 * image without /bin/sh fails to start every time).
 */
function sidecarKeptBrokerOut(pod: V1Pod, container: V1ContainerStatus): boolean {
  const restartable = pod.spec?.initContainers?.some(
    (spec) => spec.name === container.name && spec.restartPolicy === 'Always',
  );
  return restartable === true && !containerStarted(pod);
}

/** Whether a container of the pod (a broker's, or one beside it) ever started. */
function containerStarted(pod: V1Pod): boolean {
  return (pod.status?.containerStatuses ?? []).some(
    (status) => status.state?.waiting === undefined || status.lastState?.terminated !== undefined,
  );
}

const REASON_INIT_CONTAINER_FAILED = 'InitContainerFailed';

function initContainerFailed(init: FailedInitContainer): DesiredCondition {
  const why = [init.reason, init.message].filter((part) => part).join(': ');
  return condition(
    CONDITION_FAILED,
    'True',
    REASON_INIT_CONTAINER_FAILED,
    `init container ${init.container} of pod ${init.pod} exited with status ${init.exitCode}${why ? ` (${why})` : ''}, so its broker never started`,
  );
}

/**
 * Why the Job should be stopped, if its pods can never start a broker: a pod's sidecar (the Flux
 * view's) failed, the kubelet started it again and it failed again (restartCount 1 or more), and no
 * container of any pod of the MiniCluster ever started (an instance that runs is not ended for one
 * pod that cannot join it). The kubelet would go on restarting the sidecar for ever and the Job would
 * never end; the operator stops the Job (stopped-job.ts) with these words, which the Failed condition
 * keeps once the pods are gone.
 */
export function brokersKeptOut(pods: readonly V1Pod[]): string | undefined {
  if (pods.some(containerStarted)) return undefined;
  const keptOut = failedInitContainer(
    pods,
    (pod, container) => container.restartCount >= 1 && sidecarKeptBrokerOut(pod, container),
  );
  return keptOut === undefined ? undefined : initContainerFailed(keptOut).message;
}

/**
 * The lead pod (index 0) once every container of it ended with status 0 and no broker failed: its
 * phase is about to be Succeeded, and with it the Job's success policy (index 0) is met. The kubelet's
 * phase and the Job controller's verdict follow 2 to 3 s later (docs/mpi.md measures it), so the
 * outcome is told from here rather than after them.
 */
export function leadSucceeded(pods: readonly V1Pod[]): { pod: string; finishedAt?: Date } | undefined {
  const lead = pods.find((pod) => podIndex(pod) === 0 && !pod.metadata?.deletionTimestamp);
  const statuses = lead?.status?.containerStatuses ?? [];
  const containers = lead?.spec?.containers.length ?? statuses.length;
  if (lead === undefined || statuses.length === 0 || statuses.length !== containers) return undefined;
  if (!statuses.every((status) => status.state?.terminated?.exitCode === 0)) return undefined;
  if (failedBroker(pods) !== undefined) return undefined;
  const finished = statuses
    .map((status) => status.state?.terminated?.finishedAt)
    .filter((at) => at !== undefined)
    .map((at) => new Date(at));
  const finishedAt =
    finished.length === statuses.length ? new Date(Math.max(...finished.map(Number))) : undefined;
  return { pod: lead.metadata?.name ?? '?', ...(finishedAt ? { finishedAt } : {}) };
}

const LEAD_SUCCEEDED = condition(
  CONDITION_SUCCEEDED,
  'True',
  'LeadBrokerSucceeded',
  'the lead broker exited with status 0',
);

/**
 * Succeeded / Failed: Succeeded once the Job has finished or the lead pod's containers all ended with
 * status 0 (leadSucceeded); Failed once the Job failed, naming the init container or the broker and
 * its exit status, or once a sidecar kept a broker from ever starting (sidecarKeptBrokerOut).
 */
export function outcomeConditions(job: V1Job | undefined, pods: readonly V1Pod[] = []): DesiredCondition[] {
  const failed = jobCondition(job, 'Failed');
  if (failed) {
    // The operator stopped it: its pods, which could never start a broker, are gone with their words.
    const stopped = stoppedBecause(job);
    if (stopped !== undefined)
      return [condition(CONDITION_FAILED, 'True', REASON_INIT_CONTAINER_FAILED, stopped)];
    // First: a broker whose view's copy failed ends with the copy's words (view-sidecar.sh).
    const init = failedInitContainer(pods);
    if (init) return [initContainerFailed(init)];
    const broker = failedBroker(pods);
    if (broker?.index === 0) return [leadBrokerFailed(broker)];
    if (broker) {
      return [
        condition(
          CONDITION_FAILED,
          'True',
          'BrokerFailed',
          `broker pod ${broker.pod} exited with status ${broker.exitCode}, so the Flux instance failed`,
        ),
      ];
    }
    return [
      condition(
        CONDITION_FAILED,
        'True',
        failed.reason ?? 'JobFailed',
        failed.message ?? 'a broker failed, so the Flux instance failed',
      ),
    ];
  }
  if (jobCondition(job, 'Complete') || jobCondition(job, 'SuccessCriteriaMet') || leadSucceeded(pods)) {
    return [LEAD_SUCCEEDED];
  }
  const keptOut = failedInitContainer(pods, sidecarKeptBrokerOut);
  if (keptOut) return [initContainerFailed(keptOut)];
  return [];
}

/** Scaling: True while the number of running brokers moves towards spec.size. */
export function scalingCondition(observation: Observation, activePods: number): DesiredCondition {
  const size = observation.miniCluster.spec.size;
  // Once the lead broker exited the others stop with it: that is the end, not a scale down.
  const finished =
    outcomeConditions(observation.job).length > 0 ||
    exitedFirstBroker(observation.pods) !== undefined ||
    finishedWorker(observation.pods) !== undefined;
  if (finished || activePods === size || !observation.job) {
    return condition(CONDITION_SCALING, 'False', 'AtSize', `${activePods} of ${size} brokers`);
  }
  const { queue } = observation;
  if (queue?.scaling) return queue.scaling;
  if (queue?.waiting) {
    return condition(
      CONDITION_SCALING,
      'False',
      REASON_QUEUED,
      `${activePods} of ${size} brokers: Kueue admits them all at once`,
    );
  }
  const direction = activePods < size ? 'ScalingUp' : 'ScalingDown';
  return condition(CONDITION_SCALING, 'True', direction, `${activePods} brokers, moving to ${size}`);
}

export function summaryOf(conditions: readonly DesiredCondition[], activePods: number): Summary {
  const isTrue = (type: string) => conditions.some((c) => c.type === type && c.status === 'True');
  if (isTrue(CONDITION_FAILED)) return 'Failed';
  if (isTrue(CONDITION_SUCCEEDED)) return 'Succeeded';
  if (isTrue(CONDITION_READY)) return 'Ready';
  if (isTrue(CONDITION_QUEUED)) return 'Queued';
  if (conditions.some((c) => c.type === CONDITION_READY && c.reason === REASON_FINISHING)) return 'Finishing';
  return activePods > 0 ? 'Starting' : 'Pending';
}

/** Keeps lastTransitionTime when a condition's status did not change (API conventions). */
function withTransitionTimes(
  desired: readonly DesiredCondition[],
  previous: readonly Condition[] | undefined,
  generation: number | undefined,
  now: Date,
): Condition[] {
  return desired.map((wanted) => {
    const before = previous?.find((c) => c.type === wanted.type);
    const lastTransitionTime =
      before && before.status === wanted.status
        ? before.lastTransitionTime
        : now.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const result: Condition = { ...wanted, lastTransitionTime };
    const observedGeneration = wanted.observedGeneration ?? generation;
    if (observedGeneration !== undefined) result.observedGeneration = observedGeneration;
    return result;
  });
}

function isoTime(value: Date | string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return new Date(value).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Where burst clusters reach the lead broker: a NodePort on the address of the node running the lead
 * pod (any node would do; that one is known without reading Nodes), or the load balancer's address.
 */
export function leadBrokerAddress(
  service: V1Service,
  pods: readonly V1Pod[],
): NonNullable<MiniClusterStatus['leadBroker']> {
  const result: NonNullable<MiniClusterStatus['leadBroker']> = { service: service.metadata?.name ?? '' };
  const port = service.spec?.ports?.[0];
  if (service.spec?.type === 'LoadBalancer') {
    const ingress = service.status?.loadBalancer?.ingress?.[0];
    const address = ingress?.ip ?? ingress?.hostname;
    if (address) result.address = address;
    if (port?.port) result.port = port.port;
    return result;
  }
  const lead = pods.find((pod) => podIndex(pod) === 0 && !pod.metadata?.deletionTimestamp);
  if (lead?.status?.hostIP) result.address = lead.status.hostIP;
  if (port?.nodePort) result.port = port.nodePort;
  return result;
}

/**
 * This pass's Bursting condition; a blocked pass never reached the bursting step, so the last one
 * stands, like status.bursts, rather than vanishing while the burst clusters keep running.
 */
function drainingConditions(observation: Observation): DesiredCondition[] {
  if (observation.scale) return observation.scale.condition ? [observation.scale.condition] : [];
  const last = observation.previous?.conditions?.find((c) => c.type === CONDITION_DRAINING);
  return last ? [last] : [];
}

function burstingConditions(observation: Observation): DesiredCondition[] {
  if (observation.burst) return [observation.burst.condition];
  if (!observation.problem) return [];
  const last = observation.previous?.conditions?.find((c) => c.type === CONDITION_BURSTING);
  return last ? [last] : [];
}

/**
 * RESTful mode: where the API is served, and what differs from the Go operator's v1alpha1 (which
 * cloned the server at `fluxRestful.branch` and made Linux users of `users`). Never a credential.
 */
export function restfulApiConditions(miniCluster: DefaultedMiniCluster): DesiredCondition[] {
  if (!servesRestful(miniCluster)) return [];
  const { name, namespace = 'default' } = miniCluster.metadata;
  const service = miniClusterNames(miniCluster).restful;
  const parts = [
    `the lead pod serves the Flux RESTful API on port ${restfulPort(miniCluster)} of Service ${service} (/api/v1/namespaces/${namespace}/services/${service}:http/proxy/v1/ through the API server; flux-operator jobs ... ${name} -n ${namespace}); credentials in Secret ${service}`,
    "jobs run as the flux user, labelled with the API user's name",
  ];
  const branch = miniCluster.spec.fluxRestful?.branch;
  if (branch !== undefined) {
    parts.push(
      `fluxRestful.branch ${branch} is ignored: the server ships with the operator, nothing is cloned`,
    );
  }
  return [condition(CONDITION_RESTFUL_API, 'True', 'ServedByLeadPod', parts.join('; '))];
}

export function computeStatus(observation: Observation): MiniClusterStatus {
  const { miniCluster, previous, job, pods, now } = observation;
  const generation = miniCluster.metadata.generation;
  const ownPods = pods.filter((pod) => !pod.metadata?.deletionTimestamp);
  const activePods = ownPods.filter(
    (pod) => pod.status?.phase === 'Pending' || pod.status?.phase === 'Running',
  ).length;
  const readyPods = ownPods.filter(isPodReady).length;
  const desired = [
    readyCondition(observation, readyPods),
    scalingCondition(observation, activePods),
    ...outcomeConditions(job, observation.pods),
    ...(observation.queue ? [observation.queue.condition] : []),
    ...burstingConditions(observation),
    ...drainingConditions(observation),
    ...restfulApiConditions(miniCluster),
  ];
  const status: MiniClusterStatus = {
    conditions: withTransitionTimes(desired, previous?.conditions, generation, now),
    summary: summaryOf(desired, activePods),
    size: activePods,
    readyPods,
    // Fixed at creation: the first pass records it and later passes keep it.
    maximumSize: previous?.maximumSize ?? miniCluster.spec.maxSize,
    selector: selectorString(miniCluster.metadata.name),
  };
  if (generation !== undefined) status.observedGeneration = generation;
  if (job?.metadata?.name) status.jobName = job.metadata.name;
  const bursts = observation.burst?.bursts ?? previous?.bursts;
  if (bursts && bursts.length > 0) status.bursts = bursts;
  const burstJobs = observation.burst?.jobs ?? previous?.burstJobs;
  if (burstJobs && burstJobs.length > 0) status.burstJobs = burstJobs;
  const autoscale = observation.scale ? observation.scale.autoscale : previous?.autoscale;
  if (autoscale && Object.keys(autoscale).length > 0) status.autoscale = autoscale;
  if (observation.leadBrokerService)
    status.leadBroker = leadBrokerAddress(observation.leadBrokerService, pods);
  const startTime = isoTime(job?.status?.startTime);
  if (startTime) status.startTime = startTime;
  // With a success policy the Job meets its criteria (the lead is done) before completionTime is set.
  const finishedAt =
    isoTime(job?.status?.completionTime) ??
    isoTime(jobCondition(job, 'SuccessCriteriaMet')?.lastTransitionTime) ??
    isoTime(jobCondition(job, 'Failed')?.lastTransitionTime) ??
    isoTime(leadSucceeded(pods)?.finishedAt);
  if (finishedAt) status.completionTime = finishedAt;
  return status;
}

/**
 * The status without its details: the Job's name and start time, which change a moment after the
 * Job is made and are written with the next change worth a write.
 */
function withoutDetails(status: MiniClusterStatus): MiniClusterStatus {
  return { ...status, jobName: undefined, startTime: undefined };
}

/**
 * True when `next` has something worth a write. The Job's name and start time are details: set a
 * moment after the Job is made, they alone would cost a write per MiniCluster that starts slowly
 * (docs/performance.md); they are written with the next change (a pod count, Ready).
 */
export function statusChanged(previous: MiniClusterStatus | undefined, next: MiniClusterStatus): boolean {
  return (
    previous === undefined ||
    JSON.stringify(canonical(withoutDetails(previous))) !== JSON.stringify(canonical(withoutDetails(next)))
  );
}

/** Ready's reasons while a MiniCluster comes up: steps of one start, not news of their own. */
const STARTING_REASONS: ReadonlySet<string> = new Set(['JobPending', 'PodsPending']);
const STARTING_SUMMARIES: ReadonlySet<string> = new Set(['Pending', 'Starting']);

/**
 * True when `next` differs from `previous` only in progress: pod counts, the conditions' messages
 * (`3/8 brokers running`), the Scaling condition, the details (withoutDetails), and the steps of a
 * start (summary Pending or Starting, Ready False for JobPending or PodsPending). Such a change may wait a little (the
 * reconciler folds them); anything else (Ready, a problem, an outcome) is written at once.
 */
export function progressOnly(previous: MiniClusterStatus | undefined, next: MiniClusterStatus): boolean {
  if (!previous) return false;
  const shape = (status: MiniClusterStatus) => ({
    ...withoutDetails(status),
    size: undefined,
    readyPods: undefined,
    summary: status.summary && STARTING_SUMMARIES.has(status.summary) ? 'starting' : status.summary,
    conditions: status.conditions
      ?.filter((condition) => condition.type !== CONDITION_SCALING)
      .map(({ message: _message, ...rest }) =>
        rest.type === CONDITION_READY && rest.status === 'False' && STARTING_REASONS.has(rest.reason)
          ? { ...rest, reason: 'starting' }
          : rest,
      ),
  });
  return JSON.stringify(canonical(shape(previous))) === JSON.stringify(canonical(shape(next)));
}

/** An event worth telling users about, derived from a status change. */
export interface TransitionEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly note: string;
}

function trueCondition(status: MiniClusterStatus | undefined, type: string): Condition | undefined {
  return status?.conditions?.find((c) => c.type === type && c.status === 'True');
}

/** Events for the transitions between two statuses: each is emitted once, when it happens. */
export function transitionEvents(
  previous: MiniClusterStatus | undefined,
  next: MiniClusterStatus,
): TransitionEvent[] {
  const events: TransitionEvent[] = [];
  const became = (type: string) => trueCondition(next, type) && !trueCondition(previous, type);
  const ready = next.conditions?.find((c) => c.type === CONDITION_READY);
  const wasReady = previous?.conditions?.find((c) => c.type === CONDITION_READY);
  if (became(CONDITION_READY) && ready) events.push({ type: 'Normal', reason: 'Ready', note: ready.message });
  const failed = trueCondition(next, CONDITION_FAILED);
  if (became(CONDITION_FAILED) && failed)
    events.push({ type: 'Warning', reason: 'Failed', note: failed.message });
  const succeeded = trueCondition(next, CONDITION_SUCCEEDED);
  if (became(CONDITION_SUCCEEDED) && succeeded) {
    events.push({ type: 'Normal', reason: 'Succeeded', note: succeeded.message });
  }
  // Kueue: held in its queue (a first time, or again after running: evicted), and admitted.
  const queued = next.conditions?.find((c) => c.type === CONDITION_QUEUED);
  const wasQueued = previous?.conditions?.find((c) => c.type === CONDITION_QUEUED);
  if (queued?.status === 'True' && wasQueued?.status !== 'True') {
    const evicted = wasQueued?.status === 'False';
    events.push({
      type: evicted ? 'Warning' : 'Normal',
      reason: evicted ? 'Evicted' : 'Queued',
      note: queued.message,
    });
  }
  if (queued?.status === 'False' && queued.reason === 'Admitted' && wasQueued?.status === 'True') {
    events.push({ type: 'Normal', reason: 'Admitted', note: queued.message });
  }
  // A new blocking reason (a missing Secret, an invalid spec) is worth a warning once.
  const blocking = new Set(['InvalidSpec', 'SecretMissing', 'ApplyFailed', SPEC_CHANGE_NEEDS_RECREATE]);
  if (
    ready &&
    blocking.has(ready.reason) &&
    (wasReady?.reason !== ready.reason || wasReady.message !== ready.message)
  ) {
    events.push({ type: 'Warning', reason: ready.reason, note: ready.message });
  }
  return events;
}
