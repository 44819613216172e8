import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  median,
  viewLine,
  viewResult,
  type ViewRunContext,
  type ViewSample,
} from '../../bench/view-result.ts';

const context: ViewRunContext = {
  images: {
    view: 'localhost/plain:bookworm',
    memory: 'localhost/plain:bookworm',
    baked: 'localhost/flux:0.88.0',
  },
  fluxViewImage: 'localhost/flux-view:0.88.0',
  size: 4,
  rounds: 3,
  machineCpus: 2,
};

const view = (
  succeeded: number,
  started: number,
  init: number[],
  imageId = 'sha256:0a1b2c3d4e5f60718293',
): ViewSample => ({
  kind: 'view',
  succeededSeconds: succeeded,
  podsStartedSeconds: started,
  initSeconds: init,
  initImageIds: [imageId],
});
const memory = (succeeded: number, started: number, init: number[]): ViewSample => ({
  ...view(succeeded, started, init),
  kind: 'memory',
});
const baked = (succeeded: number, started: number): ViewSample => ({
  kind: 'baked',
  succeededSeconds: succeeded,
  podsStartedSeconds: started,
  initSeconds: [],
  initImageIds: [],
});

describe('median', () => {
  it('is the middle value, or the mean of the two middle ones, whatever the order', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.equal(median([7]), 7);
    assert.equal(median([]), 0);
  });
});

describe('the --view result line', () => {
  const samples = [
    view(12.004, 5.5, [2, 3, 2, 2]),
    memory(10.9, 3.4, [0, 0, 1, 0]),
    baked(10.2, 3.1),
    memory(11.5, 3.5, [0, 1, 0, 0]),
    baked(9.8, 2.9),
    view(13.5, 6.25, [3, 3, 3, 4]),
    baked(10.4, 3.3),
    // The node's view image replaced between two samples: both ids are reported.
    view(12.9, 6, [2, 2, 3, 3], 'sha256:09f8e7d6c5b4a3928170'),
    memory(14, 3.2, [0, 0, 0, 0]),
  ];

  it('is one JSON line: each kind with its medians and samples, the ratio and the target', () => {
    const line = viewLine(samples, context);
    assert.equal(line.endsWith('}\n'), true);
    assert.equal(line.split('\n').length, 2);
    assert.deepEqual(JSON.parse(line), {
      mode: 'view',
      minicluster: "the Go operator's examples/tests/hello-world",
      size: 4,
      rounds: 3,
      order: ['view', 'memory', 'baked', 'memory', 'baked', 'view', 'baked', 'view', 'memory'],
      machine_cpus: 2,
      view: {
        image: 'localhost/plain:bookworm',
        flux_view_image: 'localhost/flux-view:0.88.0',
        median_succeeded_seconds: 12.9,
        median_pods_started_seconds: 6,
        median_init_container_seconds: 3,
        init_image_ids: ['sha256:09f8e7d6c5b4a3928170', 'sha256:0a1b2c3d4e5f60718293'],
        samples: {
          succeeded_seconds: [12, 13.5, 12.9],
          pods_started_seconds: [5.5, 6.25, 6],
          init_container_seconds: [
            [2, 3, 2, 2],
            [3, 3, 3, 4],
            [2, 2, 3, 3],
          ],
          init_image_ids: [['0a1b2c3d4e5f'], ['0a1b2c3d4e5f'], ['09f8e7d6c5b4']],
        },
      },
      memory: {
        image: 'localhost/plain:bookworm',
        flux_view_image: 'localhost/flux-view:0.88.0',
        medium: 'Memory',
        median_succeeded_seconds: 11.5,
        median_pods_started_seconds: 3.4,
        median_init_container_seconds: 0,
        init_image_ids: ['sha256:0a1b2c3d4e5f60718293'],
        samples: {
          succeeded_seconds: [10.9, 11.5, 14],
          pods_started_seconds: [3.4, 3.5, 3.2],
          init_container_seconds: [
            [0, 0, 1, 0],
            [0, 1, 0, 0],
            [0, 0, 0, 0],
          ],
          init_image_ids: [['0a1b2c3d4e5f'], ['0a1b2c3d4e5f'], ['0a1b2c3d4e5f']],
        },
      },
      baked: {
        image: 'localhost/flux:0.88.0',
        median_succeeded_seconds: 10.2,
        median_pods_started_seconds: 3.1,
        samples: { succeeded_seconds: [10.2, 9.8, 10.4], pods_started_seconds: [3.1, 2.9, 3.3] },
      },
      target_ratio: 1.3,
      ratio: 1.26,
      pods_started_ratio: 1.94,
      within_target: true,
      memory_ratio: 1.13,
      memory_pods_started_ratio: 1.1,
      memory_within_target: true,
    });
  });

  it('compares the unrounded ratio with the target: 1.304 is not within 1.3', () => {
    const result = viewResult([view(13.04, 5, [2]), memory(13.04, 5, [0]), baked(10, 3)], {
      ...context,
      rounds: 1,
    });
    assert.equal(result.ratio, 1.3);
    assert.equal(result.within_target, false);
    assert.equal(result.memory_ratio, 1.3);
    assert.equal(result.memory_within_target, false);
    const within = viewResult([view(13, 5, [2]), memory(12.9, 5, [0]), baked(10, 3)], context);
    assert.equal(within.within_target, true);
    assert.equal(within.memory_within_target, true);
  });

  it('has no ratio, and is not within the target, when there is nothing to compare with', () => {
    const result = viewResult([view(13, 5, [2]), memory(12, 4, [0])], context);
    assert.equal(result.ratio, null);
    assert.equal(result.within_target, false);
    assert.equal(result.memory_ratio, null);
    assert.equal(result.memory_within_target, false);
  });
});
