/**
 * What the validator accepts, the operator can run: every MiniCluster it accepts (over the whole
 * schema, with hostile contents) renders without throwing, into a ConfigMap Kubernetes takes, with
 * a broker.toml that parses and an entrypoint that `bash -n` reads.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { V1ConfigMap } from '@kubernetes/client-node';
import fc from 'fast-check';
import { parse as parseToml } from 'smol-toml';
import { CONFIG_MAP_MAX_BYTES } from '../../../src/api/shared/limits.ts';
import type { DefaultedMiniCluster } from '../../../src/api/schema.ts';
import { validateMiniCluster } from '../../../src/api/validate.ts';
import { toV1alpha2 } from '../../../src/api/v1alpha1/convert.ts';
import { hubModelOf } from '../../../src/api/v1alpha1/convert-defaulted.ts';
import type { DefaultedMiniClusterV1alpha1 } from '../../../src/api/v1alpha1/schema.ts';
import { validateMiniClusterV1alpha1 } from '../../../src/api/v1alpha1/validate.ts';
import { renderMiniCluster } from '../../../src/render/index.ts';
import type { MiniClusterKeys } from '../../../src/render/index.ts';
import { hostileMiniCluster } from './hostile-arbitraries.ts';
import { validMiniCluster } from './valid-arbitraries.ts';

const run = promisify(execFile);

const KEYS: MiniClusterKeys = {
  curveCertificate: 'CURVE-CERTIFICATE-TEXT\n',
  mungeKey: Uint8Array.from({ length: 1024 }, (_, index) => index % 251),
  restfulSeed: Uint8Array.from({ length: 32 }, (_, index) => index),
};

const utf8 = new TextEncoder();

function configMapOf(miniCluster: DefaultedMiniClusterV1alpha1 | DefaultedMiniCluster): V1ConfigMap {
  const owner = {
    apiVersion: miniCluster.apiVersion,
    kind: 'MiniCluster',
    name: miniCluster.metadata.name,
    uid: 'u',
  };
  const objects = renderMiniCluster(hubModelOf(miniCluster), KEYS, { owner });
  const configMap = objects.find((object) => object.kind === 'ConfigMap') as V1ConfigMap | undefined;
  assert.ok(configMap?.data, 'a ConfigMap with data');
  return configMap;
}

function configMapBytes(configMap: V1ConfigMap): number {
  return Object.entries(configMap.data ?? {}).reduce(
    (total, [key, value]) => total + utf8.encode(key).length + utf8.encode(value).length,
    0,
  );
}

/** The accepted MiniClusters among `count` generated ones (seeded: the same on every run). */
function acceptedSamples(count: number, seed: number): DefaultedMiniClusterV1alpha1[] {
  return fc.sample(hostileMiniCluster, { numRuns: count, seed }).flatMap((sample) => {
    const result = validateMiniClusterV1alpha1(sample);
    return result.ok ? [result.value] : [];
  });
}

/**
 * Hub (v1alpha2) MiniClusters: the hostile v1alpha1 ones in their hub form (what the conversion webhook
 * stores), and valid ones with the hub's own fields. Undefined where a hostile one cannot convert.
 */
const hubMiniCluster: fc.Arbitrary<unknown> = fc.oneof(
  hostileMiniCluster.map((sample) => {
    try {
      return toV1alpha2(sample);
    } catch {
      return undefined;
    }
  }),
  validMiniCluster,
);

/** The checks every rendered MiniCluster passes: a ConfigMap Kubernetes takes, a broker.toml that parses. */
function assertRendersWell(miniCluster: DefaultedMiniClusterV1alpha1 | DefaultedMiniCluster): void {
  const configMap = configMapOf(miniCluster);
  assert.ok(configMapBytes(configMap) <= CONFIG_MAP_MAX_BYTES, 'the ConfigMap fits in 1 MiB');
  if (miniCluster.spec.flux.brokerConfig === undefined) parseToml(configMap.data?.['broker.toml'] ?? '');
  else assert.equal(configMap.data?.['broker.toml'], miniCluster.spec.flux.brokerConfig);
}

describe('validated hub (v1alpha2) MiniClusters render (properties)', () => {
  it('renders every accepted hub MiniCluster without throwing, into a ConfigMap Kubernetes takes', () => {
    let accepted = 0;
    fc.assert(
      fc.property(hubMiniCluster, (sample) => {
        if (sample === undefined) return;
        const result = validateMiniCluster(sample);
        if (!result.ok) return;
        accepted++;
        assertRendersWell(result.value);
      }),
      { numRuns: 2000 },
    );
    // Not vacuous: half the samples are valid hub MiniClusters, and some hostile ones convert valid.
    assert.ok(accepted > 800, `only ${accepted} of 2000 were accepted`);
  });

  it('renders hub entrypoints bash reads without a syntax error', async () => {
    const entrypoints = [
      ...new Set(
        fc.sample(hubMiniCluster, { numRuns: 200, seed: 42 }).flatMap((sample) => {
          const result = sample === undefined ? undefined : validateMiniCluster(sample);
          return result?.ok === true ? [configMapOf(result.value).data?.['entrypoint.sh'] ?? ''] : [];
        }),
      ),
    ].slice(0, 30);
    assert.ok(entrypoints.length >= 20, `only ${entrypoints.length} entrypoints`);
    await assertBashReads(entrypoints);
  });
});

/** `bash -n` on each script: none has a syntax error. */
async function assertBashReads(entrypoints: readonly string[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'entrypoints-'));
  try {
    await Promise.all(
      entrypoints.map(async (script, index) => {
        const file = join(dir, `entrypoint-${index}.sh`);
        writeFileSync(file, script);
        await run('bash', ['-n', file]).catch((error: Error & { stderr?: string }) => {
          assert.fail(`bash -n ${file}: ${error.stderr ?? error.message}`);
        });
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('validated v1alpha1 MiniClusters render (properties)', () => {
  it('renders every accepted MiniCluster without throwing, into a ConfigMap Kubernetes takes', () => {
    let accepted = 0;
    fc.assert(
      fc.property(hostileMiniCluster, (sample) => {
        const result = validateMiniClusterV1alpha1(sample);
        if (!result.ok) return;
        accepted++;
        assertRendersWell(result.value);
      }),
      { numRuns: 3000 },
    );
    // Not vacuous: a good share of the hostile MiniClusters is valid (~10 %: with services, storage
    // and the RESTful fields drawn too, more combinations are refused).
    assert.ok(accepted > 200, `only ${accepted} of 3000 were accepted`);
  });

  it('renders entrypoints bash reads without a syntax error', async () => {
    const entrypoints = [
      ...new Set(
        acceptedSamples(400, 42).map((miniCluster) => configMapOf(miniCluster).data?.['entrypoint.sh'] ?? ''),
      ),
    ].slice(0, 40);
    assert.ok(entrypoints.length >= 20, `only ${entrypoints.length} entrypoints`);
    await assertBashReads(entrypoints);
  });
});
