// v1alpha1 `spec.services`: accepted as plain containers; Flux container fields, duplicate names
// and minimalService refused by name, by the validator and (same rules) by the CRD's CEL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { miniClusterCrd } from '../../../src/api/minicluster-crd.ts';
import { formatProblem, validateMiniClusterV1alpha1 } from '../../../src/api/v1alpha1/validate.ts';
import type { MiniClusterV1alpha1 } from '../../../src/api/v1alpha1/schema.ts';
import { miniCluster } from './fixtures.ts';

function problemsOf(input: MiniClusterV1alpha1): string[] {
  const result = validateMiniClusterV1alpha1(input);
  return result.ok ? [] : result.problems.map(formatProblem);
}

const web = { name: 'web', image: 'nginx', ports: [80] };

describe('spec.services', () => {
  it('accepts the fields of a container without Flux, and defaults pullAlways', () => {
    const result = validateMiniClusterV1alpha1(
      miniCluster({
        services: [
          {
            ...web,
            command: 'nginx -g "daemon off;"',
            workingDir: '/srv',
            environment: { A: '1' },
            secrets: { TOKEN: { name: 's', key: 'token' } },
            resources: { limits: { cpu: '1' } },
            existingVolumes: { conf: { configMapName: 'c', path: '/etc/nginx/conf.d', items: { a: 'a' } } },
            lifeCycle: { postStartExec: 'true' },
            securityContext: { privileged: false },
            runFlux: false,
            launcher: false,
          },
        ],
      }),
    );
    assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('; '));
    assert.equal(result.value.spec.services?.[0]?.pullAlways, false);
  });

  it('mounts storage of spec.volumes by name, as containers do, and needs a source otherwise', () => {
    const withStorage = validateMiniClusterV1alpha1(
      miniCluster({
        volumes: { data: { path: '/srv/data' } },
        services: [{ ...web, volumes: { data: { path: '/data' } } }],
      }),
    );
    assert.ok(withStorage.ok, withStorage.ok ? '' : withStorage.problems.map(formatProblem).join('; '));
    assert.deepEqual(
      problemsOf(
        miniCluster({
          services: [
            {
              ...web,
              volumes: { data: { path: '/data' } },
              existingVolumes: { cfg: { path: '/cfg' } },
            },
          ],
        }),
      ),
      [
        'spec.services[0].existingVolumes[cfg]: has no source; set one of configMapName, secretName, claimName, hostPath or emptyDir: true (storage of spec.volumes is mounted from volumes)',
        'spec.services[0].volumes[data]: has no source, so it names storage of spec.volumes, which has no entry "data"; add one to spec.volumes or set one of configMapName, secretName, claimName, hostPath or emptyDir: true',
      ],
    );
  });

  it('refuses the Flux container fields by name', () => {
    const given = miniCluster({
      services: [
        { ...web, runFlux: true, fluxUser: {}, cores: 2, commands: { pre: 'x' }, batch: true } as never,
      ],
    });
    const tail =
      'is a field of the Flux container: a service container runs its image (or its command) without Flux';
    assert.deepEqual(problemsOf(given), [
      `spec.services[0].runFlux: ${tail}; remove runFlux`,
      `spec.services[0].fluxUser: ${tail}; remove fluxUser`,
      `spec.services[0].cores: ${tail}; remove cores`,
      `spec.services[0].batch: ${tail}; remove batch`,
      `spec.services[0].commands: ${tail}; remove commands`,
    ]);
  });

  it('refuses a missing or duplicate name, and services beside minimalService', () => {
    assert.deepEqual(problemsOf(miniCluster({ services: [{ image: 'nginx' } as never] })), [
      'spec.services[0].name: is required',
    ]);
    assert.deepEqual(problemsOf(miniCluster({ services: [web, { ...web, image: 'other' }] })), [
      'spec.services[1].name: duplicates spec.services[0].name "web"; service names must be unique (they are containers of one pod)',
    ]);
    assert.deepEqual(problemsOf(miniCluster({ services: [web], flux: { minimalService: true } })), [
      'spec.services: services need the headless Service to select their pod, and with flux.minimalService it selects the lead broker alone (the services pod would have no DNS name); remove flux.minimalService or services',
    ]);
    assert.deepEqual(problemsOf(miniCluster({ services: [], flux: { minimalService: true } })), []);
  });

  it("checks a service as a container, in the services' words", () => {
    assert.deepEqual(
      problemsOf(
        miniCluster({
          services: [
            {
              ...web,
              environment: { A: '1' },
              secrets: { A: { name: 's', key: 'a' } },
              volumes: { d: { path: '/d', emptyDir: true }, e: { path: '/d', emptyDir: true } },
            },
            { name: 'db', image: 'mongo', volumes: { d: { path: '/x', hostPath: '/srv' } } },
          ],
        }),
      ),
      [
        'spec.services[0].volumes[e].path: is also the path of spec.services[0].volumes[d]; mount paths in a container must be unique',
        'spec.services[1].volumes[d]: has a different source than spec.services[0].volumes[d]; a pod volume name means one source, so rename one of them',
        'spec.services[0].secrets[A]: is also set in environment; keep the variable in one of environment and secrets',
      ],
    );
  });

  it('keeps a service volume name apart from the brokers: another pod, another volume', () => {
    const result = validateMiniClusterV1alpha1(
      miniCluster({
        containers: [
          {
            image: 'ghcr.io/converged-computing/flux-sched:jammy',
            volumes: { d: { path: '/d', emptyDir: true } },
          },
        ],
        services: [{ ...web, volumes: { d: { path: '/d', hostPath: '/srv' } } }],
      }),
    );
    assert.ok(result.ok);
  });

  it('has the same rules in the CRD, on each service and on the spec', () => {
    const spec = miniClusterCrd().spec.versions[0]?.schema.openAPIV3Schema.properties?.spec;
    const services = spec?.properties?.services;
    assert.equal(services?.maxItems, 4);
    const itemRules = services?.items?.['x-kubernetes-validations'] ?? [];
    for (const field of [
      'runFlux',
      'fluxUser',
      'cores',
      'launcher',
      'batch',
      'batchRaw',
      'commands',
      'logs',
      'diagnostics',
    ]) {
      const rule = itemRules.find((candidate) => candidate.fieldPath === `.${field}`);
      assert.match(rule?.message ?? '', new RegExp(`^${field} is a field of the Flux container`), field);
    }
    const specRules = (spec?.['x-kubernetes-validations'] ?? []).filter(
      (rule) => rule.fieldPath === '.services',
    );
    assert.deepEqual(
      specRules.map((rule) => rule.message.slice(0, 40)),
      [
        'a volume name has different sources in d',
        'a volume name has different sources in d',
        'a volume name has different sources in d',
        'a service volume without a source (confi',
        'a service volume with a source of its ow',
        'service names must be unique (they are c',
        'services need the headless Service to se',
      ],
    );
  });
});
