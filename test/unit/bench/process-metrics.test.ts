import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { writeRequests } from '../../bench/operator-phase.ts';
import { metricByLabel, sumMetric } from '../../bench/process-metrics.ts';

// As each exports it: client-go (via controller-runtime) orders the labels code, host, method; ours code, method, host.
const GO_TEXT = `# HELP rest_client_requests_total Number of HTTP requests, partitioned by status code, method, and host.
# TYPE rest_client_requests_total counter
rest_client_requests_total{code="200",host="127.0.0.1:32766",method="GET"} 1040
rest_client_requests_total{code="200",host="127.0.0.1:32766",method="PUT"} 50
rest_client_requests_total{code="201",host="127.0.0.1:32766",method="POST"} 150
rest_client_requests_total{code="200",host="127.0.0.1:32766",method="PATCH"} 400
rest_client_requests_total_extra{code="200",method="GET"} 9
go_memstats_heap_alloc_bytes 2.097152e+07
`;

const OURS_TEXT = `rest_client_requests_total{code="200",method="PATCH",host="127.0.0.1:32766"} 392
rest_client_requests_total{code="201",method="POST",host="127.0.0.1:32766"} 50
rest_client_requests_total{code="409",method="PATCH",host="127.0.0.1:32766"} 3
nodejs_heap_size_used_bytes 52428800
`;

describe('reading /metrics', () => {
  it('sums a metric over its labels, not a metric whose name merely starts the same', () => {
    assert.equal(sumMetric(GO_TEXT, 'rest_client_requests_total'), 1640);
    assert.equal(sumMetric(GO_TEXT, 'go_memstats_heap_alloc_bytes'), 20971520);
    assert.equal(sumMetric(OURS_TEXT, 'nodejs_heap_size_used_bytes'), 52428800);
    assert.equal(sumMetric(OURS_TEXT, 'absent_metric'), 0);
  });

  it('groups by one label wherever it stands', () => {
    assert.deepEqual(metricByLabel(GO_TEXT, 'rest_client_requests_total', 'method'), {
      GET: 1040,
      PUT: 50,
      POST: 150,
      PATCH: 400,
    });
    assert.deepEqual(metricByLabel(OURS_TEXT, 'rest_client_requests_total', 'method'), {
      PATCH: 395,
      POST: 50,
    });
    assert.deepEqual(metricByLabel(OURS_TEXT, 'rest_client_requests_total', 'code'), {
      '200': 392,
      '201': 50,
      '409': 3,
    });
  });

  it('counts writes as every request but GETs (reads, lists and watches)', () => {
    assert.equal(writeRequests({ GET: 1040, PUT: 50, POST: 150, PATCH: 400 }), 600);
    assert.equal(writeRequests({ GET: 7 }), 0);
  });
});
