import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { orphansOf } from '../../../../src/controllers/minicluster/orphans.ts';

function object(name: string, origin?: string) {
  const labels: Record<string, string> = {};
  if (origin !== undefined) labels['flux-framework.org/burst-origin-uid'] = origin;
  return { metadata: { name, labels } };
}

describe('orphansOf', () => {
  it('keeps objects whose origin MiniCluster lives, and objects with no origin', () => {
    const objects = [
      object('alive', 'uid-1'),
      object('gone', 'uid-2'),
      object('unlabelled'),
      object('empty', ''),
    ];
    assert.deepEqual(
      orphansOf(objects, new Set(['uid-1'])).map((orphan) => orphan.metadata.name),
      ['gone'],
    );
  });
});
