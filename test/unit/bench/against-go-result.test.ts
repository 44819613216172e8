import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { againstGoLine, type PhaseMeasure } from '../../bench/against-go-result.ts';

const ours: PhaseMeasure = {
  secondsToRunning: 7.123,
  settledSeconds: 8.456,
  cpuSeconds: 2.9,
  startCpuSeconds: 0.6,
  requests: 450,
  requestsByMethod: { PATCH: 400, POST: 50 },
  writes: 400,
  steadyRequests: 0,
  rssMiB: 230.4,
  peakRssMiB: 240.55,
  heapUsedMiB: 48.333,
};

const go: PhaseMeasure = {
  secondsToRunning: 14.25,
  settledSeconds: 15,
  cpuSeconds: 3.4,
  startCpuSeconds: 0.1,
  requests: 1800,
  requestsByMethod: { GET: 1000, POST: 200, PATCH: 400, PUT: 200 },
  writes: 800,
  steadyRequests: 12,
  rssMiB: 60,
  peakRssMiB: 64.1,
  heapUsedMiB: 20,
};

describe('the --against-go result line', () => {
  it('is one JSON line: the run, each operator, and Go over ours', () => {
    const line = againstGoLine(
      { count: 50, size: 8, order: ['ours', 'go'], steadySeconds: 30, goAffinity: false },
      { ours, go },
      { goCommit: '0d75cef8', machineCpus: 2 },
    );
    assert.equal(line.endsWith('}\n'), true);
    assert.equal(line.split('\n').length, 2);
    assert.deepEqual(JSON.parse(line), {
      miniclusters: 50,
      size: 8,
      pods: 400,
      order: ['ours', 'go'],
      steady_seconds: 30,
      go_affinity: false,
      go_commit: '0d75cef8',
      machine_cpus: 2,
      ours: {
        seconds_to_running: 7.12,
        settled_seconds: 8.46,
        cpu_seconds: 2.9,
        start_cpu_seconds: 0.6,
        cpu_ms_per_minicluster: 46,
        api_requests: 450,
        api_requests_by_method: { PATCH: 400, POST: 50 },
        writes_per_minicluster: 8,
        steady_state_requests_30s: 0,
        rss_mib: 230.4,
        peak_rss_mib: 240.55,
        heap_used_mib: 48.33,
      },
      go: {
        seconds_to_running: 14.25,
        settled_seconds: 15,
        cpu_seconds: 3.4,
        start_cpu_seconds: 0.1,
        cpu_ms_per_minicluster: 66,
        api_requests: 1800,
        api_requests_by_method: { GET: 1000, POST: 200, PATCH: 400, PUT: 200 },
        writes_per_minicluster: 16,
        steady_state_requests_30s: 12,
        rss_mib: 60,
        peak_rss_mib: 64.1,
        heap_used_mib: 20,
      },
      go_over_ours: {
        seconds_to_running: 2,
        cpu_ms_per_minicluster: 1.43,
        api_requests: 4,
        peak_rss_mib: 0.27,
      },
    });
  });

  it('gives null for a ratio over a zero figure of ours', () => {
    const idle = { ...ours, requests: 0, requestsByMethod: {} };
    const result = JSON.parse(
      againstGoLine(
        { count: 1, size: 1, order: ['go', 'ours'], steadySeconds: 0, goAffinity: true },
        { ours: idle, go },
        { goCommit: 'c', machineCpus: 4 },
      ),
    ) as { order: string[]; go_over_ours: { api_requests: number | null } };
    assert.deepEqual(result.order, ['go', 'ours']);
    assert.equal(result.go_over_ours.api_requests, null);
  });
});
