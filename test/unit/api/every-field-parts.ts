/**
 * Parts of the every-field fixtures that v1alpha1 (v1alpha1-every-field.ts) and v1alpha2
 * (v1alpha2-fixtures.ts) spell alike: each a fresh object, so that a test may change its own.
 */
import type { MiniClusterV1alpha1 } from '../../../src/api/v1alpha1/schema.ts';
import { CURVE_CERT } from './fixtures.ts';

type Spec = MiniClusterV1alpha1['spec'];

/** A Ready status of the MiniCluster `every-field` with a burst: every v1alpha1 status field. */
export function everyFieldStatus(): NonNullable<MiniClusterV1alpha1['status']> {
  return {
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        observedGeneration: 1,
        lastTransitionTime: '2026-01-01T00:00:00Z',
        reason: 'BrokersRunning',
        message: '2/2 brokers running',
      },
    ],
    observedGeneration: 1,
    summary: 'Ready',
    size: 2,
    readyPods: 2,
    maximumSize: 4,
    selector: 'flux-framework.org/minicluster=every-field',
    jobName: 'every-field',
    leadBroker: { service: 'every-field-lead', address: '203.0.113.7', port: 30050 },
    bursts: [
      {
        slot: 'burst-a',
        target: 'in-cluster',
        name: 'burst-abc',
        namespace: 'default',
        size: 4,
        state: 'Ready',
        createdAt: '2026-01-01T00:00:00Z',
        lastBusyAt: '2026-01-01T00:01:00Z',
        idleSince: '2026-01-01T00:02:00Z',
        jobs: ['f1'],
      },
    ],
    burstJobs: [{ id: 'f2', reason: 'NoFreeCapacity', message: 'later' }],
    autoscale: {
      queue: {
        pending: 1,
        running: 2,
        nodesUp: 2,
        nodesDown: 2,
        nodesAllocated: 2,
        nodesDraining: 0,
        nodesDrained: 1,
      },
      readError: 'reading the Flux queue: timed out',
      scaleIn: { fromSize: 4, toSize: 2, since: '2026-01-01T00:01:00Z' },
      drainedRanks: '2-3',
      lastChange: {
        fromSize: 2,
        toSize: 4,
        reason: 'JobsWaiting',
        message: '2 jobs wait for 2 nodes (0 free, 0 starting): 2 -> 4 brokers',
        at: '2026-01-01T00:00:30Z',
      },
    },
    startTime: '2026-01-01T00:00:00Z',
    completionTime: '2026-01-01T00:02:00Z',
  };
}

/** flux.bursting of a lead that bursts: its policy, how it is exposed, one cluster. */
export function leadBursting(): NonNullable<NonNullable<Spec['flux']>['bursting']> {
  return {
    policy: {
      maxBurstNodes: 8,
      idleSeconds: 60,
      pollSeconds: 5,
      targets: [{ name: 'in-cluster', costPerNodeHour: 1, maxNodes: 8 }],
    },
    expose: { type: 'NodePort', nodePort: 30050 },
    clusters: [{ name: 'burst-a', size: 4 }],
  };
}

/** flux of the external side of a burst: the lead it joins, its slot, the lead's certificate and key. */
export function joiningFlux(): NonNullable<Spec['flux']> {
  return {
    curveCert: CURVE_CERT,
    mungeSecret: 'munge',
    bursting: {
      leadBroker: { address: '203.0.113.7', name: 'lead', size: 2, port: 30050 },
      slot: 'burst-0',
    },
  };
}

/** The RESTful API and a user of it. */
export function restfulFields(): Pick<Spec, 'fluxRestful' | 'users'> {
  return {
    fluxRestful: {
      branch: 'main',
      port: 5001,
      username: 'me',
      token: 'a-token-of-at-least-32-characters',
      secretKey: 'a-signing-key-of-32-characters-or-more',
    },
    users: [{ name: 'you', password: 'a-password-of-32-characters-or-more', administrator: true }],
  };
}

/** The pod's metadata and placement. */
export function podPlacement(): Pick<
  NonNullable<Spec['pod']>,
  'annotations' | 'labels' | 'serviceAccountName' | 'nodeSelector' | 'tolerations'
> {
  return {
    annotations: { a: 'b' },
    labels: { c: 'd' },
    serviceAccountName: 'runner',
    nodeSelector: { zone: 'a' },
    tolerations: [{ key: 'k', operator: 'Equal', value: 'v', effect: 'NoExecute', tolerationSeconds: 5 }],
  };
}

/** Every v1alpha1 command hook of the Flux container (v1alpha2 adds its own). */
export function runnerCommands(): NonNullable<Spec['containers'][number]['commands']> {
  return {
    init: 'true',
    pre: 'true',
    brokerPre: 'true',
    workerPre: 'true',
    post: 'true',
    prefix: 'time',
    runFluxAsRoot: false,
  };
}
