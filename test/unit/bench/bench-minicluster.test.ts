import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { depsFile } from '../../../workbench/src/tooling/project.ts';
import { benchMiniCluster, toV1alpha2, type BenchMiniCluster } from '../../bench/bench-minicluster.ts';
import { GO_CRD_SOURCE, GO_OPERATOR_ARCHIVE } from '../../bench/go-operator.ts';

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
}

/** The v1alpha2 schema of the Go operator's CRD, read from its source archive. */
function goSchema(): Schema {
  const archive = depsFile(GO_OPERATOR_ARCHIVE);
  const top = execFileSync('tar', ['-tzf', archive], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 })
    .split('\n')[0]
    ?.split('/')[0];
  const text = execFileSync('tar', ['-xzOf', archive, `${top}/${GO_CRD_SOURCE}`], { encoding: 'utf8' });
  const crd = parse(text) as { spec: { versions: { name: string; schema: { openAPIV3Schema: Schema } }[] } };
  const version = crd.spec.versions.find((v) => v.name === 'v1alpha2');
  assert.ok(version, 'the archive CRD serves v1alpha2');
  return version.schema.openAPIV3Schema;
}

/** Every leaf path of a value that the schema does not declare, with the schema type it has otherwise. */
function undeclared(value: unknown, schema: Schema | undefined, at: string): string[] {
  if (schema === undefined) return [at];
  if (Array.isArray(value)) return value.flatMap((item, i) => undeclared(item, schema.items, `${at}[${i}]`));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, item]) =>
      ['apiVersion', 'kind', 'metadata'].includes(key) && at === ''
        ? []
        : undeclared(item, schema.properties?.[key], at === '' ? key : `${at}.${key}`),
    );
  }
  const type = typeof value === 'number' ? 'integer' : typeof value;
  return schema.type === type ? [] : [`${at} (${type}, schema says ${schema.type})`];
}

describe('the bench MiniCluster in v1alpha2', () => {
  it('keeps name, namespace, size, interactive and image, drops cores, turns the pod affinity off', () => {
    assert.deepEqual(toV1alpha2(benchMiniCluster('bench-go-x', 7, 8)), {
      apiVersion: 'flux-framework.org/v1alpha2',
      kind: 'MiniCluster',
      metadata: { name: 'bench-7', namespace: 'bench-go-x' },
      spec: {
        size: 8,
        interactive: true,
        containers: [{ image: 'ghcr.io/flux-framework/flux-restful-api:latest' }],
        network: { disableAffinity: true },
      },
    });
  });

  it('keeps a command, and the Go default affinity when asked', () => {
    const ours: BenchMiniCluster = {
      apiVersion: 'flux-framework.org/v1alpha1',
      kind: 'MiniCluster',
      metadata: { name: 'a', namespace: 'n' },
      spec: { size: 2, containers: [{ image: 'img:1', command: 'hostname', cores: 1 }] },
    };
    assert.deepEqual(toV1alpha2(ours, { goAffinity: true }), {
      apiVersion: 'flux-framework.org/v1alpha2',
      kind: 'MiniCluster',
      metadata: { name: 'a', namespace: 'n' },
      spec: { size: 2, containers: [{ image: 'img:1', command: 'hostname' }] },
    });
  });

  it('refuses fields it has no translation for, naming them', () => {
    const base = benchMiniCluster('n', 0, 2);
    const withSpecField = { ...base, spec: { ...base.spec, maxSize: 4 } } as BenchMiniCluster;
    assert.throws(
      () => toV1alpha2(withSpecField),
      /^Error: spec\.maxSize: the bench has no v1alpha2 translation for it; add one in test\/bench\/bench-minicluster\.ts$/,
    );
    const withContainerField = {
      ...base,
      spec: { ...base.spec, containers: [{ image: 'i', workingDir: '/w' }] },
    } as unknown as BenchMiniCluster;
    assert.throws(() => toV1alpha2(withContainerField), /^Error: spec\.containers\[0\]\.workingDir: /);
    assert.throws(
      () => toV1alpha2({ ...base, apiVersion: 'flux-framework.org/v1alpha2' }),
      /expected a flux-framework\.org\/v1alpha1 MiniCluster, got flux-framework\.org\/v1alpha2 MiniCluster/,
    );
  });

  it("uses only fields of the Go operator's v1alpha2 schema, with their types", () => {
    const schema = goSchema();
    const command = { ...benchMiniCluster('n', 0, 8) };
    command.spec = { ...command.spec, containers: [{ image: 'i', command: 'sleep 1', cores: 2 }] };
    for (const manifest of [
      toV1alpha2(benchMiniCluster('n', 0, 8)),
      toV1alpha2(command, { goAffinity: true }),
    ]) {
      assert.deepEqual(undeclared(manifest, schema, ''), []);
    }
    // The check can fail: a field the schema lacks is reported.
    assert.deepEqual(undeclared({ spec: { cores: 4 } }, schema, ''), ['spec.cores']);
  });
});
