import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DNS_LABEL_MAX, dnsLabel, renderMiniCluster } from '../../../src/render/index.ts';
import { KEYS, defaulted } from './fixtures.ts';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

describe('dnsLabel', () => {
  it('keeps short names as they are', () => {
    assert.equal(dnsLabel(['flux-sample', 'flux-config']), 'flux-sample-flux-config');
  });

  it('shortens long names to 63 characters with a stable hash suffix', () => {
    const long = 'a'.repeat(60);
    const name = dnsLabel([long, 'flux-config']);
    assert.equal(name.length, DNS_LABEL_MAX);
    assert.match(name, /^a+-[0-9a-f]{8}$/);
    assert.equal(dnsLabel([long, 'flux-config']), name);
    assert.notEqual(dnsLabel([long, 'curve-cert']), name);
  });

  it('always gives a DNS label for label-shaped parts', () => {
    const part = fc.stringMatching(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/);
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 4 }), (parts) => {
        const name = dnsLabel(parts);
        assert.ok(name.length <= DNS_LABEL_MAX, name);
        assert.match(name, DNS_LABEL);
      }),
    );
  });

  it('gives every object of a MiniCluster with the longest allowed name a DNS-label name', () => {
    const name = `m${'x'.repeat(60)}`; // 61 characters: `<name>-<index>` still fits for size 1
    const objects = renderMiniCluster(defaulted({ size: 1 }, name), KEYS);
    for (const object of objects) {
      assert.ok(object.metadata.name.length <= DNS_LABEL_MAX, object.metadata.name);
      assert.match(object.metadata.name, DNS_LABEL);
    }
    assert.equal(
      new Set(objects.map((object) => `${object.kind}/${object.metadata.name}`)).size,
      objects.length,
    );
  });
});
