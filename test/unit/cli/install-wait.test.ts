import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Deployment, V1Pod, V1PodStatus } from '@kubernetes/client-node';
import {
  OperatorNotReady,
  deploymentAvailable,
  notReadyMessage,
  podWaitReason,
  waitForOperator,
  waitingLine,
} from '../../../src/cli/install-wait.ts';

function pod(name: string, status: V1PodStatus): V1Pod {
  return { metadata: { name }, status };
}

const READY: V1PodStatus = {
  phase: 'Running',
  conditions: [{ type: 'Ready', status: 'True' }],
  containerStatuses: [
    { name: 'operator', image: 'i', imageID: '', ready: true, restartCount: 0, state: { running: {} } },
  ],
};

function waitingOn(reason: string, message?: string, restartCount = 0): V1PodStatus {
  return {
    phase: 'Pending',
    conditions: [
      { type: 'PodScheduled', status: 'True' },
      { type: 'Ready', status: 'False' },
    ],
    containerStatuses: [
      {
        name: 'operator',
        image: 'i',
        imageID: '',
        ready: false,
        restartCount,
        state: { waiting: { reason, ...(message === undefined ? {} : { message }) } },
      },
    ],
  };
}

const NAMES = { deployment: 'deployment.apps/flux-operator', namespace: 'ops', selector: 'app=op' };

describe('what install says an operator pod waits on', () => {
  it('nothing once it is Ready', () => {
    assert.equal(podWaitReason(pod('p', READY)), undefined);
  });

  it('the scheduler’s message when no node fits', () => {
    const status: V1PodStatus = {
      phase: 'Pending',
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          reason: 'Unschedulable',
          message: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.",
        },
      ],
    };
    assert.equal(
      podWaitReason(pod('p', status)),
      "not scheduled: 0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.",
    );
  });

  it('the container’s waiting reason and message (an image that cannot be pulled), with restarts', () => {
    assert.equal(
      podWaitReason(pod('p', waitingOn('ImagePullBackOff', 'Back-off pulling image "x"'))),
      'container operator ImagePullBackOff: Back-off pulling image "x"',
    );
    assert.equal(
      podWaitReason(pod('p', waitingOn('CrashLoopBackOff', undefined, 3))),
      'container operator CrashLoopBackOff after 3 restarts',
    );
  });

  it('a container running again after a failed exit, or running and not Ready yet', () => {
    const restarted: V1PodStatus = {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'False' }],
      containerStatuses: [
        {
          name: 'operator',
          image: 'i',
          imageID: '',
          ready: false,
          restartCount: 1,
          state: { running: {} },
          lastState: { terminated: { exitCode: 1, reason: 'Error' } },
        },
      ],
    };
    assert.equal(
      podWaitReason(pod('p', restarted)),
      'container operator running again after it exited with 1 (Error)',
    );
    const [operator] = restarted.containerStatuses ?? [];
    assert.ok(operator);
    const starting = { ...restarted, containerStatuses: [{ ...operator, lastState: {} }] };
    assert.equal(podWaitReason(pod('p', starting)), 'running, not Ready yet');
    assert.equal(podWaitReason(pod('p', {})), 'not started yet');
  });

  it('one line per look, each pod not Ready with its reason', () => {
    assert.equal(
      waitingLine(NAMES.deployment, [pod('a', READY), pod('b', waitingOn('ContainerCreating'))], 15),
      'waiting for deployment.apps/flux-operator to have a Ready pod (15 s): b: container operator ContainerCreating',
    );
    assert.equal(
      waitingLine(NAMES.deployment, [], 30),
      'waiting for deployment.apps/flux-operator to have a Ready pod (30 s): no pod yet',
    );
  });

  it('the error names the pods, what is in place, where to look and the flag', () => {
    assert.equal(
      notReadyMessage(
        NAMES,
        [pod('b', waitingOn('ErrImageNeverPull', 'Container image "x" is not present.'))],
        60,
      ),
      'deployment.apps/flux-operator has no Ready pod after 60 s: b: container operator ErrImageNeverPull: ' +
        'Container image "x" is not present. Everything is applied, and the operator starts by itself once a pod ' +
        'runs; until then nothing reconciles MiniClusters, and conversions through its webhook fail (HTTP 500). ' +
        'Look with: kubectl -n ops describe pods -l app=op; wait longer with --wait-seconds, or not at all with ' +
        '--wait-seconds 0',
    );
  });
});

describe('when the Deployment counts as ready', () => {
  const deployment = (generation: number, status: V1Deployment['status']): V1Deployment => ({
    metadata: { generation },
    status,
  });

  it('a pod of the current template available, and no pod of an older one', () => {
    assert.equal(
      deploymentAvailable(
        deployment(2, { observedGeneration: 2, replicas: 1, updatedReplicas: 1, availableReplicas: 1 }),
      ),
      true,
    );
  });

  it('not while an upgrade’s old pod alone serves, nor before the controller saw the change', () => {
    // Rolling: the old pod available, the new one not yet.
    assert.equal(
      deploymentAvailable(
        deployment(2, { observedGeneration: 2, replicas: 2, updatedReplicas: 1, availableReplicas: 1 }),
      ),
      false,
    );
    assert.equal(
      deploymentAvailable(
        deployment(3, { observedGeneration: 2, replicas: 1, updatedReplicas: 1, availableReplicas: 1 }),
      ),
      false,
    );
    assert.equal(deploymentAvailable(deployment(1, {})), false);
    assert.equal(deploymentAvailable(undefined), false);
  });
});

describe('the wait', () => {
  const available: V1Deployment = {
    metadata: { generation: 1 },
    status: { observedGeneration: 1, replicas: 1, updatedReplicas: 1, availableReplicas: 1 },
  };

  it('returns once the Deployment reads as ready', async () => {
    let reads = 0;
    const said: string[] = [];
    await waitForOperator(
      {
        readDeployment: () => Promise.resolve(++reads >= 2 ? available : undefined),
        listPods: () => Promise.resolve([]),
      },
      NAMES,
      30,
      (line) => said.push(line),
    );
    assert.equal(reads, 2);
    assert.deepEqual(said, []);
  });

  it('throws OperatorNotReady naming the pods when the time is up', async () => {
    await assert.rejects(
      waitForOperator(
        {
          readDeployment: () => Promise.resolve(undefined),
          listPods: () => Promise.resolve([pod('b', waitingOn('ImagePullBackOff'))]),
        },
        NAMES,
        0,
        () => {},
      ),
      (error) =>
        error instanceof OperatorNotReady &&
        error.message.startsWith(
          'deployment.apps/flux-operator has no Ready pod after 0 s: b: container operator ImagePullBackOff. ',
        ),
    );
  });
});
