import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Secret } from '@kubernetes/client-node';
import { resolveKeys } from '../../../../src/controllers/minicluster/keys.ts';
import { miniClusterNames, renderRestfulSecret } from '../../../../src/render/index.ts';
import { defaulted, IMAGE, KEYS } from '../../render/fixtures.ts';

const NOW = new Date('2026-01-01T00:00:00Z');
const restfulMiniCluster = defaulted({ size: 2, containers: [{ image: IMAGE }] });
const names = miniClusterNames(restfulMiniCluster);

function stored(data: Record<string, string | Uint8Array>): V1Secret {
  return {
    data: Object.fromEntries(
      Object.entries(data).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
    ),
  };
}

const existing = {
  curveCert: stored({ 'curve.cert': KEYS.curveCertificate }),
  mungeKey: stored({ 'munge.key': KEYS.mungeKey }),
};

describe('resolveKeys with the RESTful seed', () => {
  it('reads the seed back from the Secret <name>-restful, making no new keys', () => {
    const restful = renderRestfulSecret(restfulMiniCluster, names, KEYS.restfulSeed);
    const { keys, generated } = resolveKeys('flux-sample', names, { ...existing, restful }, NOW, true);
    assert.equal(generated, false);
    assert.deepEqual(keys.restfulSeed, KEYS.restfulSeed);
    assert.equal(keys.curveCertificate, KEYS.curveCertificate);
  });

  it('makes a 32-byte seed when the Secret is not there yet, keeping the stored keys', () => {
    const { keys, generated } = resolveKeys(
      'flux-sample',
      names,
      { ...existing, restful: undefined },
      NOW,
      true,
    );
    assert.equal(generated, true);
    assert.equal(keys.restfulSeed?.length, 32);
    assert.equal(keys.curveCertificate, KEYS.curveCertificate);
    assert.deepEqual(keys.mungeKey, KEYS.mungeKey);
  });

  it('has no seed for a MiniCluster that does not serve the API', () => {
    const { keys, generated } = resolveKeys('flux-sample', names, existing, NOW, false);
    assert.equal(generated, false);
    assert.equal(keys.restfulSeed, undefined);
  });
});
