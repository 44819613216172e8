import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatBurstStatus } from '../../../src/cli/burst-status-command.ts';

const bursting = {
  apiVersion: 'flux-framework.org/v1alpha1' as const,
  kind: 'MiniCluster' as const,
  metadata: { name: 'burst-local', namespace: 'hpc' },
  spec: {
    size: 2,
    containers: [{ image: 'flux' }],
    flux: { bursting: { clusters: [{ name: 'burst-0', size: 4 }] } },
  },
  status: {
    leadBroker: { service: 'burst-local-lead-broker', address: '10.0.0.7', port: 30093 },
    conditions: [
      {
        type: 'Bursting',
        status: 'True' as const,
        reason: 'Bursting',
        message: 'burst clusters: burst-0 (2 on in-cluster, Ready)',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ],
    bursts: [
      {
        slot: 'burst-0',
        target: 'in-cluster',
        name: 'burst-local-burst-0-0123456789',
        namespace: 'hpc',
        size: 2,
        state: 'Ready' as const,
        createdAt: '2026-01-01T00:00:00Z',
        jobs: ['fXPqVWUVP'],
      },
    ],
    burstJobs: [
      {
        id: 'fYbL4Tm2',
        reason: 'ExceedsDeclaredHosts' as const,
        message: 'job fYbL4Tm2 needs 9 nodes; this MiniCluster lists 2 local + 4 burst hosts',
      },
    ],
  },
};

describe('formatBurstStatus', () => {
  it('shows each bursting MiniCluster with its burst clusters and jobs, and the targets', () => {
    const plain = {
      ...bursting,
      metadata: { name: 'plain', namespace: 'hpc' },
      spec: { size: 1, containers: [{ image: 'flux' }] },
      status: {},
    };
    const text = formatBurstStatus(
      [bursting, plain],
      [
        {
          metadata: { name: 'gke', namespace: 'hpc' },
          spec: { provider: 'gke' },
          status: { conditions: [{ type: 'Connected', status: 'False', reason: 'Unauthorized' }] },
        },
      ],
    );
    assert.equal(
      text,
      [
        'MiniCluster hpc/burst-local: lead broker at 10.0.0.7:30093; slots burst-0 (4)',
        '  Bursting: True Bursting: burst clusters: burst-0 (2 on in-cluster, Ready)',
        '  SLOT     TARGET      NAME                                SIZE  STATE  JOBS',
        '  burst-0  in-cluster  hpc/burst-local-burst-0-0123456789  2     Ready  fXPqVWUVP',
        '  waiting burstable jobs no burst cluster serves:',
        '    fYbL4Tm2 ExceedsDeclaredHosts: job fYbL4Tm2 needs 9 nodes; this MiniCluster lists 2 local + 4 burst hosts',
        '',
        'Burst targets:',
        '  TARGET   PROVIDER  CONNECTED  REASON',
        '  hpc/gke  gke       False      Unauthorized',
        '',
      ].join('\n'),
    );
  });

  it('says when nothing bursts and when the BurstTarget resource is missing', () => {
    assert.equal(
      formatBurstStatus([], undefined),
      'No MiniCluster declares burst slots (spec.flux.bursting.clusters).\n\nBurst targets: the BurstTarget resource is not installed (run flux-operator install).\n',
    );
  });
});
