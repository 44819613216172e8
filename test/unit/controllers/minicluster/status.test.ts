import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1ContainerStatus, V1Job, V1Pod, V1Service } from '@kubernetes/client-node';
import {
  brokersKeptOut,
  computeStatus,
  leadBrokerAddress,
  restfulApiConditions,
  progressOnly,
  statusChanged,
  transitionEvents,
  type Observation,
} from '../../../../src/controllers/minicluster/status.ts';
import { STOPPED_ANNOTATION, withStoppedJob } from '../../../../src/controllers/minicluster/stopped-job.ts';
import type { KubeObject } from '../../../../src/render/index.ts';
import { defaulted as defaulted } from '../../render/fixtures.ts';

const NOW = new Date('2026-03-01T12:00:00Z');
const EARLIER = '2026-03-01T11:00:00Z';

function pod(index: number, phase: string, extra: Partial<V1Pod['status']> = {}): V1Pod {
  return {
    metadata: {
      name: `flux-sample-${index}-abcde`,
      labels: { 'batch.kubernetes.io/job-completion-index': String(index) },
    },
    status: {
      phase,
      conditions: [{ type: 'Ready', status: phase === 'Running' ? 'True' : 'False' }],
      ...extra,
    },
  };
}

function job(
  conditions: {
    type: string;
    status: string;
    reason?: string;
    message?: string;
    lastTransitionTime?: Date;
  }[] = [],
  extra: Partial<V1Job['status']> = {},
): V1Job {
  return {
    metadata: { name: 'flux-sample' },
    status: { startTime: new Date(EARLIER), conditions, ...extra },
  };
}

function observe(overrides: Partial<Observation>): Observation {
  const miniCluster = defaulted({ size: 3 });
  miniCluster.metadata.generation = 2;
  return { miniCluster, previous: undefined, job: job(), pods: [], now: NOW, ...overrides };
}

function condition(status: ReturnType<typeof computeStatus>, type: string) {
  return status.conditions?.find((c) => c.type === type);
}

describe('computeStatus', () => {
  it('is Ready when every broker runs, with the scale fields filled in', () => {
    const status = computeStatus(
      observe({ pods: [pod(0, 'Running'), pod(1, 'Running'), pod(2, 'Running')] }),
    );
    assert.deepEqual(status, {
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'BrokersRunning',
          message: '3/3 brokers running',
          lastTransitionTime: '2026-03-01T12:00:00Z',
          observedGeneration: 2,
        },
        {
          type: 'Scaling',
          status: 'False',
          reason: 'AtSize',
          message: '3 of 3 brokers',
          lastTransitionTime: '2026-03-01T12:00:00Z',
          observedGeneration: 2,
        },
      ],
      summary: 'Ready',
      size: 3,
      readyPods: 3,
      maximumSize: 3,
      selector:
        'app.kubernetes.io/name=flux-minicluster,flux-framework.org/minicluster=flux-sample,app.kubernetes.io/component=broker',
      observedGeneration: 2,
      jobName: 'flux-sample',
      startTime: '2026-03-01T11:00:00Z',
    });
  });

  it('says which pods it waits for, and why', () => {
    const unschedulable = pod(2, 'Pending', {
      conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }],
    });
    const status = computeStatus(observe({ pods: [pod(0, 'Running'), pod(1, 'Pending'), unschedulable] }));
    assert.deepEqual(
      [condition(status, 'Ready')?.reason, condition(status, 'Ready')?.message],
      [
        'PodsPending',
        '1/3 brokers running; waiting for flux-sample-1-abcde Pending, flux-sample-2-abcde Pending (Unschedulable)',
      ],
    );
    assert.equal(status.summary, 'Starting');
  });

  it("says why a container cannot start (a missing Secret of containers[].secrets), not that it's being created", () => {
    const waitingFor = (reason: string, message?: string) =>
      pod(1, 'Pending', {
        containerStatuses: [
          {
            name: 'flux-sample',
            image: 'flux',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { waiting: { reason, ...(message ? { message } : {}) } },
          },
        ],
      });
    const missing = waitingFor('CreateContainerConfigError', 'secret "api-credentials" not found');
    const creating = { ...waitingFor('ContainerCreating'), metadata: { ...pod(2, 'Pending').metadata } };
    const status = computeStatus(observe({ pods: [pod(0, 'Running'), missing, creating] }));
    assert.equal(
      condition(status, 'Ready')?.message,
      '1/3 brokers running; waiting for flux-sample-1-abcde Pending (CreateContainerConfigError: secret "api-credentials" not found), flux-sample-2-abcde Pending',
    );
  });

  it('reports Succeeded as soon as the success policy is met, with its time as the completion time', () => {
    const status = computeStatus(
      observe({
        job: job([
          {
            type: 'SuccessCriteriaMet',
            status: 'True',
            lastTransitionTime: new Date('2026-03-01T11:30:00Z'),
          },
        ]),
      }),
    );
    assert.equal(status.summary, 'Succeeded');
    assert.deepEqual(
      [condition(status, 'Succeeded')?.status, condition(status, 'Ready')?.reason],
      ['True', 'Succeeded'],
    );
    assert.equal(status.completionTime, '2026-03-01T11:30:00Z');
  });

  it("says why the Flux view's init container cannot start, before any broker can", () => {
    const pulling = pod(1, 'Pending', {
      initContainerStatuses: [
        {
          name: 'flux-view',
          image: 'registry.example/view:1',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: {
            waiting: {
              reason: 'ImagePullBackOff',
              message: 'Back-off pulling image "registry.example/view:1"',
            },
          },
        },
      ],
      containerStatuses: [
        {
          name: 'flux-sample',
          image: 'ubuntu:noble',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { waiting: { reason: 'PodInitializing' } },
        },
      ],
    });
    const status = computeStatus(observe({ pods: [pod(0, 'Running'), pulling] }));
    assert.equal(
      condition(status, 'Ready')?.message,
      '1/3 brokers running; waiting for flux-sample-1-abcde Pending (init container flux-view: ImagePullBackOff: Back-off pulling image "registry.example/view:1")',
    );
  });

  it("reports Failed with the Job's reason", () => {
    const status = computeStatus(
      observe({
        job: job([
          {
            type: 'Failed',
            status: 'True',
            reason: 'BackoffLimitExceeded',
            message: 'Job has reached the specified backoff limit',
          },
        ]),
      }),
    );
    assert.equal(status.summary, 'Failed');
    assert.deepEqual(
      [condition(status, 'Failed')?.reason, condition(status, 'Failed')?.message],
      ['BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
    );
  });

  const failedJob = job([{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }]);
  const exited = (code: number, finishedAt?: Date) => ({
    containerStatuses: [
      {
        name: 'flux',
        image: 'flux',
        imageID: '',
        ready: false,
        restartCount: 0,
        state: { terminated: { exitCode: code, ...(finishedAt ? { finishedAt } : {}) } },
      },
    ],
  });

  it('is Finishing once the lead broker exited with a failure and until the Job has its verdict', () => {
    const status = computeStatus(
      observe({ pods: [pod(0, 'Failed', exited(2)), pod(1, 'Running'), pod(2, 'Running')] }),
    );
    assert.equal(status.summary, 'Finishing');
    assert.deepEqual(
      [condition(status, 'Ready')?.reason, condition(status, 'Ready')?.message],
      ['Finishing', 'broker pod flux-sample-0-abcde (index 0) exited with status 2; the Job is finishing'],
    );
    assert.equal(condition(status, 'Succeeded'), undefined);
    assert.equal(condition(status, 'Failed'), undefined);
    // The workers stopping with it is the end, not a scale down.
    assert.deepEqual(
      [condition(status, 'Scaling')?.status, condition(status, 'Scaling')?.reason],
      ['False', 'AtSize'],
    );
  });

  it('is Finishing, not Starting, once a worker broker ended with 0 (the instance shutting down) while the lead still runs', () => {
    const status = computeStatus(
      observe({ pods: [pod(0, 'Running'), pod(1, 'Succeeded', exited(0)), pod(2, 'Running')] }),
    );
    assert.equal(status.summary, 'Finishing');
    assert.deepEqual(
      [condition(status, 'Ready')?.reason, condition(status, 'Ready')?.message],
      [
        'Finishing',
        'broker pod flux-sample-1-abcde (index 1) finished with status 0: the Flux instance is shutting down',
      ],
    );
    assert.deepEqual(
      [condition(status, 'Scaling')?.status, condition(status, 'Scaling')?.reason],
      ['False', 'AtSize'],
    );
    // A worker that failed, or whose pod a scale down is deleting, is no shutdown.
    const deleting = pod(2, 'Running', exited(0));
    deleting.metadata = { ...deleting.metadata, deletionTimestamp: NOW };
    for (const pods of [
      [pod(0, 'Running'), pod(1, 'Failed', exited(1)), pod(2, 'Running')],
      [pod(0, 'Running'), pod(1, 'Running'), deleting],
    ]) {
      assert.notEqual(computeStatus(observe({ pods })).summary, 'Finishing', JSON.stringify(pods));
    }
  });

  it("is Succeeded as soon as the lead pod's containers all ended with 0, before the Job's verdict", () => {
    const finishedAt = new Date('2026-03-01T11:59:58Z');
    const lead = pod(0, 'Running', exited(0, finishedAt));
    const status = computeStatus(observe({ pods: [lead, pod(1, 'Running'), pod(2, 'Succeeded')] }));
    assert.equal(status.summary, 'Succeeded');
    assert.deepEqual(
      [condition(status, 'Succeeded')?.reason, condition(status, 'Ready')?.reason],
      ['LeadBrokerSucceeded', 'Succeeded'],
    );
    assert.equal(status.completionTime, '2026-03-01T11:59:58Z');
  });

  it('waits for the Job while another container of the lead pod runs or a broker failed', () => {
    const twoContainers = pod(0, 'Running', {
      containerStatuses: [
        ...exited(0).containerStatuses,
        { name: 'side', image: 'side', imageID: '', ready: true, restartCount: 0, state: { running: {} } },
      ],
    });
    const withFailedWorker = [pod(0, 'Succeeded', exited(0)), pod(1, 'Failed', exited(1))];
    const deleting = pod(0, 'Running', exited(0));
    deleting.metadata = { ...deleting.metadata, deletionTimestamp: NOW };
    for (const pods of [[twoContainers], withFailedWorker, [deleting]]) {
      const status = computeStatus(observe({ pods }));
      assert.equal(condition(status, 'Succeeded'), undefined, JSON.stringify(pods));
      assert.equal(status.completionTime, undefined);
    }
  });

  it("reports the lead broker's exit status when its command failed", () => {
    const status = computeStatus(
      observe({ job: failedJob, pods: [pod(1, 'Failed', exited(0)), pod(0, 'Failed', exited(3))] }),
    );
    assert.deepEqual(
      [condition(status, 'Failed')?.reason, condition(status, 'Failed')?.message],
      ['CommandFailed', 'the lead broker exited with status 3 (pod flux-sample-0-abcde): its command failed'],
    );
  });

  /** The lead pod, its container ended with `code` and the termination message `message`. */
  const leadWithMessage = (code: number, message: string) =>
    pod(0, 'Failed', {
      containerStatuses: [
        {
          name: 'flux',
          image: 'flux',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { terminated: { exitCode: code, message } },
        },
      ],
    });
  const failedOf = (lead: V1Pod) => {
    const failed = condition(computeStatus(observe({ job: failedJob, pods: [lead] })), 'Failed');
    return [failed?.reason, failed?.message];
  };

  it("names the command's program when the lead's termination message says it was not found or not executable", () => {
    assert.deepEqual(
      failedOf(
        leadWithMessage(127, `the command's program "lmpx" was not found in the image (exit status 127)\n`),
      ),
      [
        'ProgramNotFound',
        'the lead broker exited with status 127 (pod flux-sample-0-abcde): its command\'s program "lmpx" was not found in the image',
      ],
    );
    assert.deepEqual(
      failedOf(leadWithMessage(126, `the command's program "./run.sh" is not executable (exit status 126)`)),
      [
        'ProgramNotExecutable',
        'the lead broker exited with status 126 (pod flux-sample-0-abcde): its command\'s program "./run.sh" is not executable',
      ],
    );
  });

  it("shows nothing of a termination message that is not the entrypoint's line for this status", () => {
    const generic = (code: number) => [
      'CommandFailed',
      `the lead broker exited with status ${code} (pod flux-sample-0-abcde): its command failed`,
    ];
    const cases: [number, string][] = [
      // Another status than the container's.
      [1, `the command's program "lmpx" was not found in the image (exit status 127)`],
      // A name that is not a plain word, a longer text, anything the container's processes wrote.
      [127, `the command's program "a b" was not found in the image (exit status 127)`],
      [127, `the command's program "lmpx" was not found in the image (exit status 127) TOKEN=s3cret`],
      [127, `the command's program "${'x'.repeat(101)}" was not found in the image (exit status 127)`],
      [127, 'password=hunter2'],
      [127, ''],
    ];
    for (const [code, message] of cases) {
      assert.deepEqual(failedOf(leadWithMessage(code, message)), generic(code), message);
    }
  });

  it('names an init container that failed (a view image without the copy command), and what the runtime said', () => {
    const notAView = pod(1, 'Failed', {
      initContainerStatuses: [
        {
          name: 'flux-view',
          image: 'ubuntu:noble',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: {
            terminated: {
              exitCode: 128,
              reason: 'StartError',
              message: `failed to create containerd task: exec: "/usr/local/bin/flux-view-copy": no such file or directory\nsecond line ${'x'.repeat(500)}`,
            },
          },
        },
      ],
    });
    const status = computeStatus(observe({ job: failedJob, pods: [pod(0, 'Running'), notAView] }));
    assert.deepEqual(
      [condition(status, 'Failed')?.reason, condition(status, 'Failed')?.message],
      [
        'InitContainerFailed',
        'init container flux-view of pod flux-sample-1-abcde exited with status 128 (StartError: failed to create containerd task: exec: "/usr/local/bin/flux-view-copy": no such file or directory), so its broker never started',
      ],
    );
  });

  describe('the Flux view`s sidecar (restartPolicy Always)', () => {
    const notAView =
      'flux-view-init: the image localhost/flux:0.88.0 is not a Flux view of either layout: no /usr/local/bin/flux-view-copy';
    /** A broker pod whose view sidecar last ended with `code`, its brokers' container in `flux`. */
    const sidecarPod = (
      index: number,
      phase: string,
      sidecar: Partial<V1ContainerStatus>,
      flux: V1ContainerStatus['state'],
      fluxLast?: V1ContainerStatus['lastState'],
    ): V1Pod => ({
      ...pod(index, phase, {
        initContainerStatuses: [
          { name: 'flux-view', image: 'view', imageID: '', ready: false, restartCount: 1, ...sidecar },
        ],
        containerStatuses: [
          {
            name: 'flux',
            image: 'flux',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: flux,
            ...(fluxLast ? { lastState: fluxLast } : {}),
          },
        ],
      }),
      spec: {
        initContainers: [{ name: 'flux-view', image: 'view', restartPolicy: 'Always' }],
        containers: [{ name: 'flux', image: 'flux' }],
      },
    });
    const crashLooping = (exitCode: number, reason: string, message: string): Partial<V1ContainerStatus> => ({
      state: { waiting: { reason: 'CrashLoopBackOff' } },
      lastState: { terminated: { exitCode, reason, message } },
    });
    const initFailed = (podName: string, code: number, why: string) => [
      'InitContainerFailed',
      `init container flux-view of pod ${podName} exited with status ${code} (${why}), so its broker never started`,
    ];
    const failedOf = (jobNow: V1Job | undefined, pods: V1Pod[]) => {
      const status = computeStatus(observe({ ...(jobNow ? { job: jobNow } : {}), pods }));
      const failed = condition(status, 'Failed');
      return failed?.status === 'True' ? [failed.reason, failed.message] : undefined;
    };

    it('the copy failed and the broker failed on its words: the Job failed, the sidecar is named first', () => {
      const broker = sidecarPod(
        0,
        'Failed',
        { state: { terminated: { exitCode: 2, reason: 'Error', message: notAView } } },
        { terminated: { exitCode: 1 } },
      );
      assert.deepEqual(
        failedOf(failedJob, [broker]),
        initFailed('flux-sample-0-abcde', 2, `Error: ${notAView}`),
      );
    });

    it('a sidecar that never started (no /bin/sh): Failed while the Job runs, no broker having started', () => {
      const startError = 'failed to create containerd task: exec: "/bin/sh": no such file or directory';
      const never = sidecarPod(1, 'Pending', crashLooping(128, 'StartError', startError), {
        waiting: { reason: 'PodInitializing' },
      });
      assert.deepEqual(
        failedOf(job(), [pod(0, 'Running'), never]),
        initFailed('flux-sample-1-abcde', 128, `StartError: ${startError}`),
      );
    });

    it('a sidecar that failed again, no broker of the MiniCluster having started, is a reason to stop the Job; once is not', () => {
      const startError = 'failed to create containerd task: exec: "/bin/sh": no such file or directory';
      const failing = (restartCount: number) => ({
        ...crashLooping(128, 'StartError', startError),
        restartCount,
      });
      const keptOut = (index: number, restartCount: number) =>
        sidecarPod(index, 'Pending', failing(restartCount), { waiting: { reason: 'PodInitializing' } });
      assert.equal(
        brokersKeptOut([keptOut(0, 0), keptOut(1, 0)]),
        undefined,
        'the kubelet has not tried again',
      );
      assert.equal(
        brokersKeptOut([keptOut(0, 0), keptOut(1, 1)]),
        initFailed('flux-sample-1-abcde', 128, `StartError: ${startError}`)[1],
      );
      // A broker of that pod started: the sidecar's failures did not keep it out.
      const started = sidecarPod(1, 'Running', failing(3), { running: { startedAt: new Date() } });
      assert.equal(brokersKeptOut([started]), undefined);
      // An instance that runs (its lead's broker started) is not ended for a pod that cannot join it.
      const lead = sidecarPod(0, 'Running', {}, { running: { startedAt: new Date() } });
      assert.equal(brokersKeptOut([lead, keptOut(1, 5)]), undefined);
    });

    it('a Job the operator stopped fails the MiniCluster with the words it was stopped for, its pods gone', () => {
      const because =
        'init container flux-view of pod flux-sample-1-abcde exited with status 128, so its broker never started';
      const stopped = withStoppedJob({ ...job(), kind: 'Job' } as KubeObject, because) as V1Job;
      assert.equal(stopped.metadata?.annotations?.[STOPPED_ANNOTATION], because);
      const deadline = {
        type: 'Failed',
        status: 'True',
        reason: 'DeadlineExceeded',
        message: 'Job was active longer than specified deadline',
      };
      const failedByDeadline = { ...stopped, status: { ...stopped.status, conditions: [deadline] } };
      assert.deepEqual(failedOf(failedByDeadline, []), ['InitContainerFailed', because]);
      // A Job past a deadline of the user's own says so, as before.
      assert.deepEqual(failedOf(job([deadline]), []), [deadline.reason, deadline.message]);
    });

    it('not Failed once a broker of that pod started, nor while the sidecar runs again, nor after a clean stop', () => {
      const started = sidecarPod(0, 'Running', crashLooping(2, 'Error', notAView), {
        running: { startedAt: new Date() },
      });
      const restartedOnce = sidecarPod(
        0,
        'Running',
        {
          state: { running: { startedAt: new Date() } },
          lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } },
        },
        { waiting: { reason: 'PodInitializing' } },
      );
      const stoppedAtTheEnd = sidecarPod(
        0,
        'Succeeded',
        { state: { terminated: { exitCode: 0, reason: 'Completed' } } },
        { terminated: { exitCode: 0 } },
      );
      assert.equal(failedOf(job(), [started]), undefined);
      assert.equal(failedOf(job(), [restartedOnce]), undefined);
      assert.equal(failedOf(job(), [stoppedAtTheEnd]), undefined);
    });

    it('an init container that ends (not a sidecar) fails the MiniCluster only with its Job, as before', () => {
      const ordinary = sidecarPod(1, 'Pending', crashLooping(2, 'Error', notAView), {
        waiting: { reason: 'PodInitializing' },
      });
      delete ordinary.spec?.initContainers?.[0]?.restartPolicy;
      assert.equal(failedOf(job(), [pod(0, 'Running'), ordinary]), undefined);
    });
  });

  it('names a worker broker that failed the instance, and its exit status', () => {
    const status = computeStatus(
      observe({ job: failedJob, pods: [pod(0, 'Running'), pod(2, 'Failed', exited(137))] }),
    );
    assert.deepEqual(
      [condition(status, 'Failed')?.reason, condition(status, 'Failed')?.message],
      ['BrokerFailed', 'broker pod flux-sample-2-abcde exited with status 137, so the Flux instance failed'],
    );
  });

  it('puts a blocking problem in the Ready condition', () => {
    const status = computeStatus(
      observe({
        job: undefined,
        problem: { reason: 'SecretMissing', message: 'spec.flux.mungeSecret: missing' },
      }),
    );
    assert.deepEqual(
      [
        condition(status, 'Ready')?.status,
        condition(status, 'Ready')?.reason,
        condition(status, 'Ready')?.message,
      ],
      ['False', 'SecretMissing', 'spec.flux.mungeSecret: missing'],
    );
    assert.equal(status.summary, 'Pending');
  });

  it('keeps lastTransitionTime while a condition keeps its status, and keeps the maximum size of creation', () => {
    const first = computeStatus(observe({ pods: [pod(0, 'Running')] }));
    const previous = { ...first, maximumSize: 6 };
    const later = computeStatus(
      observe({
        previous,
        pods: [pod(0, 'Running'), pod(1, 'Running')],
        now: new Date('2026-03-01T13:00:00Z'),
      }),
    );
    assert.equal(condition(later, 'Ready')?.lastTransitionTime, '2026-03-01T12:00:00Z');
    assert.equal(later.maximumSize, 6);
    const ready = computeStatus(
      observe({
        previous: later,
        pods: [pod(0, 'Running'), pod(1, 'Running'), pod(2, 'Running')],
        now: new Date('2026-03-01T14:00:00Z'),
      }),
    );
    assert.equal(condition(ready, 'Ready')?.lastTransitionTime, '2026-03-01T14:00:00Z');
  });

  it('tells Scaling while the pod count moves to the size', () => {
    const status = computeStatus(observe({ pods: [pod(0, 'Running')] }));
    assert.deepEqual(
      [condition(status, 'Scaling')?.status, condition(status, 'Scaling')?.reason],
      ['True', 'ScalingUp'],
    );
  });

  it('keeps the last Bursting condition, bursts and jobs through a blocked pass, and drops it otherwise', () => {
    const bursts = [
      {
        slot: 'burst-0',
        target: 'local',
        name: 'flux-sample-burst-0-0123456789',
        namespace: 'default',
        size: 2,
        state: 'Ready' as const,
        createdAt: EARLIER,
      },
    ];
    const jobs = [{ id: 'f2', reason: 'NoFreeCapacity' as const, message: 'waits for a free slot' }];
    const bursting = {
      type: 'Bursting',
      status: 'True' as const,
      reason: 'Bursting',
      message: '1 burst cluster serves 1 job',
    };
    const first = computeStatus(
      observe({ burst: { bursts, jobs, condition: bursting }, pods: [pod(0, 'Running')] }),
    );
    const edited = defaulted({ size: 3 });
    edited.metadata.generation = 3;
    const blocked = computeStatus(
      observe({
        previous: first,
        miniCluster: edited,
        problem: { reason: 'SecretMissing', message: 'no secret' },
        now: new Date('2026-03-01T13:00:00Z'),
      }),
    );
    assert.deepEqual(condition(blocked, 'Bursting'), condition(first, 'Bursting'));
    assert.equal(condition(blocked, 'Bursting')?.observedGeneration, 2);
    assert.deepEqual([blocked.bursts, blocked.burstJobs], [bursts, jobs]);
    const unblocked = computeStatus(observe({ previous: blocked, pods: [pod(0, 'Running')] }));
    assert.equal(condition(unblocked, 'Bursting'), undefined);
  });
});

describe('statusChanged and transitionEvents', () => {
  it('sees no change in a status computed again from the same observation', () => {
    const status = computeStatus(observe({ pods: [pod(0, 'Running')] }));
    assert.equal(
      statusChanged(status, computeStatus(observe({ previous: status, pods: [pod(0, 'Running')] }))),
      false,
    );
    assert.equal(statusChanged(status, { ...status, readyPods: 2 }), true);
    assert.equal(statusChanged(undefined, status), true);
    assert.equal(statusChanged(undefined, {}), true, 'a first status, however empty');
  });

  it("sees no change worth a write in the Job's name or start time alone: they go with the next change", () => {
    const status = computeStatus(observe({ pods: [pod(0, 'Pending')] }));
    const { jobName: _name, startTime: _start, ...beforeTheJob } = status;
    assert.ok(status.jobName !== undefined && status.startTime !== undefined);
    assert.equal(statusChanged(beforeTheJob, status), false);
    assert.equal(statusChanged(beforeTheJob, { ...status, readyPods: 1 }), true);
  });

  it('tells progress (counts, messages, scaling, steps of a start) from a transition (Ready, a problem)', () => {
    const noJob = computeStatus(observe({ job: undefined }));
    const pending = computeStatus(observe({ previous: noJob, pods: [] }));
    const one = computeStatus(
      observe({ previous: pending, pods: [pod(0, 'Running'), pod(1, 'Pending'), pod(2, 'Pending')] }),
    );
    const two = computeStatus(
      observe({ previous: one, pods: [pod(0, 'Running'), pod(1, 'Running'), pod(2, 'Pending')] }),
    );
    const ready = computeStatus(
      observe({ previous: two, pods: [pod(0, 'Running'), pod(1, 'Running'), pod(2, 'Running')] }),
    );
    assert.equal(condition(noJob, 'Ready')?.reason, 'JobPending');
    assert.equal(progressOnly(noJob, pending), true, 'JobPending to PodsPending is a step of the start');
    assert.equal(one.summary, 'Starting');
    assert.equal(progressOnly(pending, one), true, 'Pending to Starting too');
    assert.equal(statusChanged(one, two), true);
    assert.equal(progressOnly(one, two), true, '1/3 to 2/3 running is progress');
    assert.equal(progressOnly(two, ready), false, 'Ready is a transition');
    const blocked = computeStatus(
      observe({ previous: two, problem: { reason: 'SecretMissing', message: 'no secret' } }),
    );
    assert.equal(progressOnly(two, blocked), false, 'a problem is written at once');
    assert.equal(progressOnly(undefined, one), false, 'a first status is written at once');
  });

  it('emits each transition once', () => {
    const pending = computeStatus(observe({ pods: [] }));
    const ready = computeStatus(
      observe({ previous: pending, pods: [pod(0, 'Running'), pod(1, 'Running'), pod(2, 'Running')] }),
    );
    assert.deepEqual(transitionEvents(pending, ready), [
      { type: 'Normal', reason: 'Ready', note: '3/3 brokers running' },
    ]);
    assert.deepEqual(transitionEvents(ready, ready), []);
    const blocked = computeStatus(
      observe({ previous: ready, problem: { reason: 'SecretMissing', message: 'no secret' } }),
    );
    assert.deepEqual(transitionEvents(ready, blocked), [
      { type: 'Warning', reason: 'SecretMissing', note: 'no secret' },
    ]);
    assert.deepEqual(transitionEvents(blocked, blocked), []);
  });
});

describe('leadBrokerAddress', () => {
  const nodePort: V1Service = {
    metadata: { name: 'flux-sample-lead-broker' },
    spec: { type: 'NodePort', ports: [{ port: 8050, nodePort: 30093 }] },
  };

  it("is the lead pod's node address and the node port for a NodePort Service", () => {
    const lead = pod(0, 'Running', { hostIP: '10.0.0.7' });
    assert.deepEqual(leadBrokerAddress(nodePort, [pod(1, 'Running', { hostIP: '10.0.0.8' }), lead]), {
      service: 'flux-sample-lead-broker',
      address: '10.0.0.7',
      port: 30093,
    });
    assert.deepEqual(leadBrokerAddress(nodePort, []), { service: 'flux-sample-lead-broker', port: 30093 });
  });

  it("is the load balancer's address and the broker port for a LoadBalancer Service", () => {
    const balanced: V1Service = {
      metadata: { name: 'lb' },
      spec: { type: 'LoadBalancer', ports: [{ port: 8050 }] },
      status: { loadBalancer: { ingress: [{ hostname: 'broker.example.com' }] } },
    };
    assert.deepEqual(leadBrokerAddress(balanced, []), {
      service: 'lb',
      address: 'broker.example.com',
      port: 8050,
    });
  });
});

/** A burst as status.bursts records it, Ready, never busy nor idle yet. */
const BURST = {
  slot: 's',
  target: 't',
  name: 'n',
  namespace: 'ns',
  size: 1,
  state: 'Ready' as const,
  createdAt: EARLIER,
};

describe('busyMarkStale', () => {
  it('refreshes lastBusyAt at a quarter of the idle time, between one second and one minute', async () => {
    const { busyMarkStale } = await import('../../../../src/controllers/minicluster/burst-step.ts');
    const burst = BURST;
    assert.equal(busyMarkStale(burst, { idleSeconds: 600 }, NOW), true);
    const marked = { ...burst, lastBusyAt: '2026-03-01T11:59:30Z' };
    assert.equal(busyMarkStale(marked, { idleSeconds: 600 }, NOW), false);
    assert.equal(busyMarkStale(marked, { idleSeconds: 60 }, NOW), true);
    assert.equal(
      busyMarkStale({ ...burst, lastBusyAt: '2026-03-01T11:59:59.500Z' }, { idleSeconds: 0 }, NOW),
      false,
    );
  });
});

describe('keptRecord', () => {
  const burst = BURST;
  const keep = { kind: 'keep' as const, slot: 's', target: 't', message: '' };

  it('records when a burst was first found idle, once, and ends that when it is busy again', async () => {
    const { keptRecord } = await import('../../../../src/controllers/minicluster/burst-act.ts');
    const policy = { idleSeconds: 600 };
    const idle = { ...keep, reason: 'IdleWithinGrace' as const, busy: false, idleSince: new Date(NOW) };
    const found = keptRecord(burst, idle, policy, NOW);
    assert.deepEqual(found, { ...burst, idleSince: '2026-03-01T12:00:00Z' });
    // The next idle plan carries the same time: the record is the same object, so status is not written.
    const later = new Date(NOW.getTime() + 5_000);
    assert.equal(keptRecord(found, idle, policy, later), found);
    const busy = { ...keep, reason: 'Busy' as const, busy: true };
    assert.deepEqual(keptRecord(found, busy, policy, later), {
      ...burst,
      lastBusyAt: '2026-03-01T12:00:05Z',
    });
    // Busy with a fresh lastBusyAt: only the idle time is ended.
    const marked = { ...burst, lastBusyAt: '2026-03-01T12:00:00Z', idleSince: '2026-03-01T12:00:00Z' };
    assert.deepEqual(keptRecord(marked, busy, policy, later), {
      ...burst,
      lastBusyAt: '2026-03-01T12:00:00Z',
    });
  });
});

describe('the RestfulApi condition', () => {
  const IMAGE = 'ghcr.io/flux-framework/flux-restful-api:latest';

  it('says where the API is and what differs from v1alpha1, for RESTful MiniClusters only', () => {
    assert.deepEqual(
      restfulApiConditions(
        defaulted(
          { containers: [{ image: IMAGE }], fluxRestful: { port: 8080, branch: 'main' } },
          'api',
          'team',
        ),
      ),
      [
        {
          type: 'RestfulApi',
          status: 'True',
          reason: 'ServedByLeadPod',
          message:
            "the lead pod serves the Flux RESTful API on port 8080 of Service api-restful (/api/v1/namespaces/team/services/api-restful:http/proxy/v1/ through the API server; flux-operator jobs ... api -n team); credentials in Secret api-restful; jobs run as the flux user, labelled with the API user's name; fluxRestful.branch main is ignored: the server ships with the operator, nothing is cloned",
        },
      ],
    );
    assert.deepEqual(restfulApiConditions(defaulted({})), []);
    assert.deepEqual(
      restfulApiConditions(defaulted({ interactive: true, containers: [{ image: IMAGE }] })),
      [],
    );
  });
});
