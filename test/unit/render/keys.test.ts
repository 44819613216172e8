import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCurveCertificate } from '../../../src/flux/index.ts';
import { generateMiniClusterKeys } from '../../../src/render/keys.ts';

describe('generateMiniClusterKeys', () => {
  it('makes every key of at least 256 random bits, different each time', () => {
    const first = generateMiniClusterKeys('demo');
    const second = generateMiniClusterKeys('demo');
    const curve = parseCurveCertificate(first.curveCertificate);
    assert.equal(curve.secretKey.length, 32);
    assert.equal(first.mungeKey.length, 1024);
    assert.equal(first.restfulSeed?.length, 32);
    assert.notDeepEqual(parseCurveCertificate(second.curveCertificate).secretKey, curve.secretKey);
    assert.notDeepEqual(second.mungeKey, first.mungeKey);
    assert.notDeepEqual(second.restfulSeed, first.restfulSeed);
  });
});
