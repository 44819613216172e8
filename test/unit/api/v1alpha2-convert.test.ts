// Conversion between v1alpha1 and v1alpha2: both round trips are the identity over this project's
// examples, the Go operator's v1alpha1 and v1alpha2 examples and hand-made objects that together
// set every field of both schemas (a new field without a fixture fails here, and one without a
// conversion shows in a residue it may not have); v1alpha1 -> v1alpha2 loses nothing, and the
// operator renders every valid v1alpha2 object from its v1alpha2 form, what v1alpha1 cannot say included.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { applySchemaDefaults } from '../../../src/api/shared/defaulting.ts';
import { formatProblem } from '../../../src/api/shared/problems.ts';
import { MiniClusterV1alpha1Schema } from '../../../src/api/v1alpha1/schema.ts';
import type { MiniClusterV1alpha1 } from '../../../src/api/v1alpha1/schema.ts';
import { validateMiniClusterV1alpha1 } from '../../../src/api/v1alpha1/validate.ts';
import {
  V1ALPHA1_RESIDUE_ANNOTATION,
  V1ALPHA2_RESIDUE_ANNOTATION,
  convertMiniCluster,
  toV1alpha1,
  toV1alpha2,
} from '../../../src/api/v1alpha1/convert.ts';
import type { ResidueStep } from '../../../src/api/v1alpha1/residue.ts';
import { MiniClusterSchema } from '../../../src/api/schema.ts';
import type { MiniCluster } from '../../../src/api/schema.ts';
import { validateMiniCluster } from '../../../src/api/validate.ts';
import { renderMiniCluster } from '../../../src/render/index.ts';
import { exampleMiniClusterManifests } from '../../harness/v1alpha1-examples.ts';
import {
  goV1alpha2ExampleMiniClusters,
  miniClustersIn,
  ownExampleMiniClusters,
  type Named,
} from './example-miniclusters.ts';
import { schemaFieldPaths, setFieldPaths } from './schema-fields.ts';
import { V1ALPHA1_FIXTURES, refusedV1alpha1 } from './v1alpha1-every-field.ts';
import { V1ALPHA2_FIXTURES, miniClusterV1alpha2, refusedV1alpha2 } from './v1alpha2-fixtures.ts';
import { KEYS } from '../render/fixtures.ts';

function residueOf(object: Record<string, unknown>, annotation: string): ResidueStep[] {
  const metadata = object.metadata as { annotations?: Record<string, string> };
  const text = metadata.annotations?.[annotation];
  return text === undefined ? [] : (JSON.parse(text) as ResidueStep[]);
}

/** `spec.containers[0].volumes[data]`: list indexes and map keys in brackets (a residue path's form). */
function pathText(path: readonly (string | number)[]): string {
  return path.reduce<string>((text, segment, index) => {
    if (typeof segment === 'number') return `${text}[${segment}]`;
    const parent = path[index - 1];
    const underMap = ['volumes', 'items', 'environment', 'csiDriverAttributes'].includes(String(parent));
    return index === 0 ? segment : underMap ? `${text}[${segment}]` : `${text}.${segment}`;
  }, '');
}

/** How v1alpha1 says what v1alpha2 says otherwise (the v1alpha1 residue of a v1alpha2 object). */
const V1ALPHA1_SPELLING = [
  /^spec\.logging(\.strict)?$/,
  /^spec\.flux(\.container)?$/,
  /^spec\.network(\.disableAffinity)?$/,
  /^spec\.fluxRestful$/,
  /^spec\.(containers|services)\[\d+\]\.(existingVolumes|noWrapEntrypoint|name|image)$/,
];
/** Moved from existingVolumes: only removed from volumes, never a field lost. */
const MOVED_VOLUME = /^spec\.(containers|services)\[\d+\]\.volumes(\[[^\]]+\])?$/;

function asV1alpha2(object: unknown): MiniCluster {
  return toV1alpha2(object) as unknown as MiniCluster;
}

function asV1alpha1(object: unknown): MiniClusterV1alpha1 {
  return toV1alpha1(object) as unknown as MiniClusterV1alpha1;
}

describe('conversion between v1alpha1 and v1alpha2', () => {
  let v1alpha1: Named[] = [];
  let v1alpha2: Named[] = [];
  before(async () => {
    const own = ownExampleMiniClusters();
    const goV1alpha1 = (await exampleMiniClusterManifests()).flatMap((manifest) =>
      miniClustersIn(`go v1alpha1 ${manifest.path}`, manifest.text),
    );
    const goV1alpha2 = await goV1alpha2ExampleMiniClusters();
    const hand1 = [...V1ALPHA1_FIXTURES, refusedV1alpha1].map((make) => ({
      what: make.name,
      object: make(),
    }));
    const hand2 = [...V1ALPHA2_FIXTURES, refusedV1alpha2].map((make) => ({
      what: make.name,
      object: make(),
    }));
    // Our examples are written in the current API, v1alpha2.
    v1alpha1 = [...goV1alpha1, ...hand1] as Named[];
    v1alpha2 = [...own, ...goV1alpha2, ...hand2] as Named[];
    assert.ok(own.length >= 8 && goV1alpha1.length >= 60, 'the examples');
    assert.ok(goV1alpha2.length >= 60, 'the v1alpha2 examples');
    assert.ok(v1alpha1.every(({ object }) => object.apiVersion === 'flux-framework.org/v1alpha1'));
    assert.ok(v1alpha2.every(({ object }) => object.apiVersion === 'flux-framework.org/v1alpha2'));
  });

  it('v1alpha1 -> v1alpha2 -> v1alpha1 is the identity (Go examples, every field)', () => {
    for (const { what, object } of v1alpha1) assert.deepEqual(toV1alpha1(toV1alpha2(object)), object, what);
  });

  it('v1alpha2 -> v1alpha1 -> v1alpha2 is the identity (examples, Go examples, every field)', () => {
    for (const { what, object } of v1alpha2) assert.deepEqual(toV1alpha2(toV1alpha1(object)), object, what);
  });

  it('both are the identity on objects as the API server defaults them before converting', () => {
    for (const { what, object } of v1alpha1) {
      const defaulted = applySchemaDefaults(MiniClusterV1alpha1Schema, object);
      assert.deepEqual(toV1alpha1(toV1alpha2(defaulted)), defaulted, what);
    }
    for (const { what, object } of v1alpha2) {
      const defaulted = applySchemaDefaults(MiniClusterSchema, object);
      assert.deepEqual(toV1alpha2(toV1alpha1(defaulted)), defaulted, what);
    }
  });

  it('a v1alpha1 client reads back its spec after the server stored and defaulted it as v1alpha2', () => {
    for (const { what, object } of v1alpha1) {
      const written = applySchemaDefaults(MiniClusterV1alpha1Schema, object) as Record<string, unknown>;
      const stored = applySchemaDefaults(MiniClusterSchema, toV1alpha2(written));
      assert.deepEqual(toV1alpha1(stored).spec, written.spec, what);
    }
  });

  it('the fixtures set every field of both schemas (a new field needs a fixture, and then a conversion)', () => {
    for (const [schema, objects] of [
      [MiniClusterV1alpha1Schema, v1alpha1],
      [MiniClusterSchema, v1alpha2],
    ] as const) {
      const set = new Set(objects.flatMap(({ object }) => [...setFieldPaths(object, schema)]));
      assert.deepEqual(
        schemaFieldPaths(schema).filter((path) => !set.has(path) && path !== 'apiVersion' && path !== 'kind'),
        [],
      );
    }
  });

  it('v1alpha1 -> v1alpha2 loses nothing: the residue holds only how v1alpha1 spelled it', () => {
    for (const { what, object } of v1alpha1) {
      if (!validateMiniClusterV1alpha1(object).ok) continue;
      for (const step of residueOf(toV1alpha2(object), V1ALPHA1_RESIDUE_ANNOTATION)) {
        const path = pathText(step.path);
        const spelling = V1ALPHA1_SPELLING.some((pattern) => pattern.test(path));
        const moved = MOVED_VOLUME.test(path) && !('set' in step);
        // A service's diagnostics: false asks for nothing (v1alpha1 accepts it so, v1alpha2 has no such field).
        const nothing = /^spec\.services\[\d+\]\.diagnostics$/.test(path) && step.set === false;
        assert.ok(
          spelling || moved || nothing,
          `${what}: ${path} is lost in v1alpha2 (${JSON.stringify(step)})`,
        );
      }
    }
  });

  it('the operator renders every valid v1alpha2 MiniCluster from its v1alpha2 form: a Job with a pod per broker', () => {
    // What v1alpha1 cannot say of one (the residue) is not refused: src/render reads the v1alpha2 model.
    let count = 0;
    for (const { what, object } of v1alpha2) {
      const result = validateMiniCluster(object);
      if (!result.ok) continue;
      count += 1;
      const jobs = renderMiniCluster(result.value, KEYS).filter((rendered) => rendered.kind === 'Job');
      assert.equal(jobs.length, 1, what);
      const spec = (jobs[0] as { spec?: { parallelism?: number; completions?: number } }).spec;
      assert.deepEqual(
        [spec?.parallelism, spec?.completions],
        [result.value.spec.size, result.value.spec.size],
        what,
      );
    }
    assert.ok(count >= 60, `valid v1alpha2 MiniClusters (got ${count})`);
  });

  it('valid v1alpha1 MiniClusters are valid v1alpha2 ones', () => {
    let count = 0;
    for (const { what, object } of v1alpha1) {
      if (!validateMiniClusterV1alpha1(object).ok) continue;
      count += 1;
      const converted = toV1alpha2(object);
      const result = validateMiniCluster(converted);
      assert.ok(result.ok, `${what}: ${result.ok ? '' : result.problems.map(formatProblem).join('; ')}`);
    }
    assert.ok(count >= 60, `valid v1alpha1 MiniClusters (got ${count})`);
  });

  it('valid v1alpha2 MiniClusters have valid v1alpha1 forms (what the operator renders today)', () => {
    for (const { what, object } of v1alpha2) {
      if (!validateMiniCluster(object).ok) continue;
      const result = validateMiniClusterV1alpha1(toV1alpha1(object));
      assert.ok(result.ok, `${what}: ${result.ok ? '' : result.problems.map(formatProblem).join('; ')}`);
    }
  });

  it('keeps the meaning where the versions spell it differently', () => {
    const [everyField, , implied, joining] = V1ALPHA1_FIXTURES.map((make) => asV1alpha2(make()));
    assert.ok(everyField && implied && joining);
    const [runner, sidecar] = everyField.spec.containers;
    assert.equal(everyField.spec.flux?.container?.disable, true, 'a v1alpha1 image has Flux');
    assert.equal(everyField.spec.logging?.strict, false, 'strict as written');
    assert.equal(sidecar?.noWrapEntrypoint, true, 'a sidecar runs as it is');
    assert.equal(runner?.volumes?.['existing-claim']?.claimName, 'claim', 'existingVolumes are volumes');
    assert.equal('existingVolumes' in (runner ?? {}), false);
    assert.deepEqual(runner?.securityContext, { privileged: false, capabilities: { add: ['SYS_PTRACE'] } });
    assert.deepEqual(implied.spec.fluxRestful, {}, 'v1alpha1 serves the RESTful API without a command');
    const unset = asV1alpha2({
      ...joining,
      apiVersion: 'flux-framework.org/v1alpha1',
      spec: { containers: [{ image: 'i', command: 'c' }] },
    });
    assert.equal(unset.spec.logging?.strict, true, "v1alpha1's default, written out");

    const fromV1alpha2 = asV1alpha1(
      miniClusterV1alpha2({
        containers: [
          {
            image: 'ubuntu:noble',
            volumes: { shm: { emptyDir: true, emptyDirMedium: 'memory' }, out: { path: '/tmp/out' } },
            securityContext: { capabilities: { add: ['SYS_ADMIN'] } },
          },
        ],
      }),
    );
    assert.equal(
      fromV1alpha2.spec.interactive,
      true,
      'v1alpha2 keeps an instance without a command up for jobs',
    );
    assert.equal(fromV1alpha2.spec.logging?.strict, false, "v1alpha2's default, written out");
    assert.deepEqual(fromV1alpha2.spec.containers[0]?.volumes, {
      shm: { emptyDir: true, emptyDirMedium: 'Memory', path: '/dev/shm' },
      out: { path: '/tmp/out', emptyDir: true },
    });
    assert.deepEqual(fromV1alpha2.spec.containers[0]?.securityContext, { addCapabilities: ['SYS_ADMIN'] });
    assert.equal(fromV1alpha2.spec.flux, undefined, 'the Flux view has no v1alpha1 form');
  });

  it('pod.shmSize is the same field in both versions: converted as it is both ways, nothing of it in a residue', () => {
    for (const shmSize of ['2Gi', 0, '0', 536870912] as const) {
      const v1alpha1: MiniClusterV1alpha1 = {
        apiVersion: 'flux-framework.org/v1alpha1',
        kind: 'MiniCluster',
        metadata: { name: 'mpi', namespace: 'default' },
        spec: { containers: [{ image: 'i', command: 'c' }], pod: { shmSize } },
      };
      const stored = asV1alpha2(v1alpha1);
      assert.deepEqual(stored.spec.pod, { shmSize });
      const podResidue = (object: Record<string, unknown>, annotation: string) =>
        residueOf(object, annotation)
          .map((step) => pathText(step.path))
          .filter((path) => path.startsWith('spec.pod'));
      assert.deepEqual(podResidue(stored, V1ALPHA1_RESIDUE_ANNOTATION), [], 'nothing of the pod to keep');
      assert.deepEqual(asV1alpha1(stored), v1alpha1);

      const v1alpha2 = miniClusterV1alpha2({ pod: { shmSize, hostIPC: false } });
      const read = asV1alpha1(v1alpha2);
      assert.deepEqual(read.spec.pod, { shmSize }, 'v1alpha1 has no hostIPC');
      assert.deepEqual(podResidue(read, V1ALPHA2_RESIDUE_ANNOTATION), ['spec.pod.hostIPC']);
      assert.deepEqual(asV1alpha2(read), v1alpha2);
    }
  });

  it("keeps what the other version cannot see when a client changes the object there; the client's change wins", () => {
    const original = miniClusterV1alpha2({
      containers: [
        {
          name: 'main',
          image: 'ubuntu:noble',
          command: 'one',
          volumes: { csi: { path: '/c', csiDriver: 'd.example.com' } },
        },
      ],
      minSize: 1,
    });
    const edited = asV1alpha1(original);
    edited.spec.size = 3;
    const [main] = edited.spec.containers;
    assert.ok(main);
    edited.spec.containers = [{ ...main, command: 'two' }];
    const back = asV1alpha2(edited);
    assert.equal(back.spec.containers[0]?.command, 'two');
    assert.equal(back.spec.size, 3);
    assert.deepEqual(back.spec.containers[0]?.volumes?.csi, { path: '/c', csiDriver: 'd.example.com' });
    assert.equal(back.spec.minSize, 1);
    assert.equal(back.metadata.annotations?.[V1ALPHA2_RESIDUE_ANNOTATION], undefined);

    // A volume moved from existingVolumes and then removed in v1alpha2 does not come back.
    const stored = asV1alpha2({
      apiVersion: 'flux-framework.org/v1alpha1',
      kind: 'MiniCluster',
      metadata: { name: 'moved' },
      spec: {
        containers: [{ image: 'i', command: 'c', existingVolumes: { data: { path: '/d', claimName: 'x' } } }],
      },
    });
    const [moved] = stored.spec.containers;
    assert.ok(moved?.volumes?.data);
    const { volumes: _removed, ...withoutVolumes } = moved;
    stored.spec.containers = [withoutVolumes];
    assert.equal(asV1alpha1(stored).spec.containers[0]?.existingVolumes, undefined);

    // Another container in its place does not get the first one's residue.
    const replaced = asV1alpha1(original);
    replaced.spec.containers = [{ name: 'other', image: 'busybox', command: 'x' }];
    assert.equal(asV1alpha2(replaced).spec.containers[0]?.volumes, undefined);
  });

  it('a field the client removed in v1alpha1 stays removed: the residue never makes its parent anew', () => {
    // Written as v1alpha1 with no command: it serves the RESTful API, stored as v1alpha2 with fluxRestful.
    const stored = asV1alpha2({
      apiVersion: 'flux-framework.org/v1alpha1',
      kind: 'MiniCluster',
      metadata: { name: 'api' },
      spec: { containers: [{ image: 'ghcr.io/flux-framework/flux-restful-api:latest' }] },
    });
    assert.ok(stored.spec.fluxRestful);
    // As the API server stores it: with v1alpha2's defaults (the port) filled in.
    const defaulted = {
      ...stored,
      spec: applySchemaDefaults(MiniClusterSchema.properties.spec, stored.spec) as MiniCluster['spec'],
    };
    assert.equal(defaulted.spec.fluxRestful?.port, 5000);
    // A v1alpha1 client makes it interactive: it no longer serves the API.
    const edited = asV1alpha1(defaulted);
    assert.equal(edited.spec.fluxRestful, undefined);
    edited.spec.interactive = true;
    const back = asV1alpha2(edited);
    assert.equal(back.spec.fluxRestful, undefined, JSON.stringify(back.metadata.annotations));
  });

  it('ignores a residue annotation a client broke', () => {
    const object = miniClusterV1alpha2();
    object.metadata.annotations = { [V1ALPHA1_RESIDUE_ANNOTATION]: 'not json', kept: 'yes' };
    const annotations = asV1alpha1(object).metadata.annotations ?? {};
    assert.equal(annotations.kept, 'yes');
    assert.equal(annotations[V1ALPHA1_RESIDUE_ANNOTATION], undefined);
    assert.deepEqual(toV1alpha2(asV1alpha1(object)).metadata, {
      ...object.metadata,
      annotations: { kept: 'yes' },
    });
  });

  it('convertMiniCluster: a copy in the same version; a clear error for what it cannot convert', () => {
    const object = miniClusterV1alpha2();
    const same = convertMiniCluster(object, 'flux-framework.org/v1alpha2');
    assert.deepEqual(same, object);
    assert.notEqual(same, object);
    assert.equal(
      asV1alpha1(convertMiniCluster(object, 'flux-framework.org/v1alpha1')).apiVersion,
      'flux-framework.org/v1alpha1',
    );
    assert.throws(
      () => convertMiniCluster(object, 'flux-framework.org/v1beta1'),
      /cannot convert to "flux-framework.org\/v1beta1": a MiniCluster is flux-framework.org\/v1alpha1 or flux-framework.org\/v1alpha2/,
    );
    assert.throws(
      () => convertMiniCluster({ ...object, kind: 'Job' }, 'flux-framework.org/v1alpha1'),
      /kind is "Job", not MiniCluster/,
    );
    assert.throws(
      () => convertMiniCluster({ ...object, apiVersion: 'v1' }, 'flux-framework.org/v1alpha1'),
      /apiVersion is "v1"/,
    );
    assert.throws(() => convertMiniCluster([], 'flux-framework.org/v1alpha1'), /must be an object/);
  });
});
