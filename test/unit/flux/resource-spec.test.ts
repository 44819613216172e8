import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { indexedHostNames } from '../../../src/flux/hostlist.ts';
import { idsetFromZero, resourceSpec, resourceSpecJson } from '../../../src/flux/resource-spec.ts';

describe('resourceSpec', () => {
  it('writes the RFC 20 version 1 JSON of design §2 exactly', () => {
    assert.equal(
      resourceSpecJson({ hosts: indexedHostNames('flux-sample', 4), coresPerNode: 2 }),
      '{"version":1,"execution":{"R_lite":[{"rank":"0-3","children":{"core":"0-1"}}],' +
        '"nodelist":["flux-sample-[0-3]"],"starttime":0,"expiration":0}}',
    );
  });

  it('adds GPUs per node', () => {
    assert.deepEqual(resourceSpec({ hosts: ['gpu-0', 'gpu-1'], coresPerNode: 8, gpusPerNode: 4 }), {
      version: 1,
      execution: {
        R_lite: [{ rank: '0-1', children: { core: '0-7', gpu: '0-3' } }],
        nodelist: ['gpu-[0-1]'],
        starttime: 0,
        expiration: 0,
      },
    });
  });

  it('names single ids without a range', () => {
    assert.deepEqual(resourceSpec({ hosts: ['solo-0'], coresPerNode: 1, gpusPerNode: 0 }).execution.R_lite, [
      { rank: '0', children: { core: '0' } },
    ]);
  });

  it('lists the hosts of a burst side in rank order, the lead under its alias', () => {
    const hosts = ['lead-broker.example.com', 'flux-sample-1', 'burst-0-0', 'burst-0-1'];
    const spec = resourceSpec({ hosts, coresPerNode: 4 });
    assert.deepEqual(spec.execution.nodelist, ['lead-broker.example.com,flux-sample-1,burst-0-[0-1]']);
    assert.equal(spec.execution.R_lite[0]?.rank, '0-3');
  });

  it('rejects what Flux could not use', () => {
    assert.throws(() => resourceSpec({ hosts: [], coresPerNode: 1 }), /at least one host/);
    assert.throws(
      () => resourceSpec({ hosts: ['a'], coresPerNode: 0 }),
      /coresPerNode must be an integer >= 1/,
    );
    assert.throws(() => resourceSpec({ hosts: ['a'], coresPerNode: 1.5 }), /coresPerNode/);
    assert.throws(() => resourceSpec({ hosts: ['a'], coresPerNode: 1, gpusPerNode: -1 }), /gpusPerNode/);
    assert.throws(
      () => resourceSpec({ hosts: ['a', 'b', 'a'], coresPerNode: 1 }),
      /host "a" is listed twice/,
    );
  });

  it('idsetFromZero', () => {
    assert.equal(idsetFromZero(1), '0');
    assert.equal(idsetFromZero(16), '0-15');
  });
});
