import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { MiniClusterV1alpha1Spec } from '../../../src/api/index.ts';
import { DNS_LABEL_MAX, dnsLabel, miniClusterNames, renderMiniCluster } from '../../../src/render/index.ts';
import { KEYS, defaulted, find } from './fixtures.ts';

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

describe('miniClusterNames: key Secrets', () => {
  const connected = (flux: Partial<MiniClusterV1alpha1Spec['flux']> = {}) =>
    defaulted({ size: 2, flux: { bootServer: 'first', bootServerSize: 2, ...flux } }, 'second');

  it("mounts the boot server's generated Secrets on a connected MiniCluster and makes none", () => {
    const second = connected();
    assert.deepEqual(
      {
        curve: miniClusterNames(second).curveCertSecret,
        munge: miniClusterNames(second).mungeKeySecret,
        generatesCurve: miniClusterNames(second).generatesCurveCertSecret,
        generatesMunge: miniClusterNames(second).generatesMungeKeySecret,
      },
      { curve: 'first-curve-cert', munge: 'first-munge-key', generatesCurve: false, generatesMunge: false },
    );
    const objects = renderMiniCluster(second, KEYS);
    assert.deepEqual(
      objects.filter((object) => object.kind === 'Secret'),
      [],
    );
    const volumes = find.job(objects).spec?.template.spec?.volumes ?? [];
    assert.deepEqual(
      volumes.filter((volume) => volume.secret).map((volume) => volume.secret?.secretName),
      ['first-curve-cert', 'first-munge-key'],
    );
    // The boot server's own names are the same ones: both sides mount one certificate and one key.
    const first = miniClusterNames(defaulted({ size: 2 }, 'first'));
    assert.equal(first.curveCertSecret, 'first-curve-cert');
    assert.equal(first.mungeKeySecret, 'first-munge-key');
    assert.equal(first.generatesCurveCertSecret, true);
  });

  it('keeps the Secrets a connected MiniCluster names, and an inline certificate in its own Secret', () => {
    const named = miniClusterNames(
      connected({ curveCertSecret: 'shared-curve', mungeSecret: 'shared-munge' }),
    );
    assert.equal(named.curveCertSecret, 'shared-curve');
    assert.equal(named.mungeKeySecret, 'shared-munge');
    assert.equal(named.generatesCurveCertSecret, false);
    assert.equal(named.generatesMungeKeySecret, false);
    const certificate = readFileSync(new URL('../../fixtures/keys/curve.cert', import.meta.url), 'utf8');
    const inline = miniClusterNames(connected({ curveCert: certificate }));
    assert.equal(inline.curveCertSecret, 'second-curve-cert');
    assert.equal(inline.generatesCurveCertSecret, true);
    assert.equal(inline.mungeKeySecret, 'first-munge-key');
    assert.equal(inline.generatesMungeKeySecret, false);
  });
});
