import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblem, validateMiniClusterV1alpha1 } from '../../../src/api/index.ts';
import type { MiniClusterV1alpha1 } from '../../../src/api/index.ts';
import {
  CREDENTIAL_MIN_LENGTH,
  NON_ROOT_START_MESSAGE,
  ROOT_JOBS_MESSAGE,
  servesRestfulApi,
} from '../../../src/api/shared/restful-schema.ts';
import { toV1alpha2, validateMiniCluster } from '../../../src/api/index.ts';
import { fluxContainer, miniCluster } from './fixtures.ts';

function problemsOf(input: MiniClusterV1alpha1): string[] {
  const result = validateMiniClusterV1alpha1(input);
  return result.ok ? [] : result.problems.map(formatProblem);
}

const noCommand = [fluxContainer({ command: undefined })];

describe('the RESTful mode', () => {
  it('is served without a command unless interactive, and with fluxRestful; never by a joining MiniCluster', () => {
    const cases: [Partial<MiniClusterV1alpha1['spec']>, boolean][] = [
      [{ containers: noCommand }, true],
      [{ containers: [fluxContainer({ command: ' \n\t' })] }, true],
      [{ containers: noCommand, interactive: true }, false],
      [{ containers: noCommand, interactive: true, fluxRestful: {} }, true],
      [{}, false],
      [{ containers: noCommand, flux: { bootServer: 'first' } }, false],
    ];
    for (const [spec, serves] of cases) {
      assert.equal(servesRestfulApi(miniCluster(spec).spec), serves, JSON.stringify(spec));
    }
  });

  it('accepts the v1alpha1 fields and defaults the port', () => {
    const result = validateMiniClusterV1alpha1(
      miniCluster({
        containers: noCommand,
        fluxRestful: {
          branch: 'main',
          username: 'me',
          token: 'x'.repeat(CREDENTIAL_MIN_LENGTH),
          secretKey: 'k'.repeat(CREDENTIAL_MIN_LENGTH),
        },
        users: [
          { name: 'peenut' },
          { name: 'squidward', password: 'p'.repeat(CREDENTIAL_MIN_LENGTH), administrator: true },
        ],
      }),
    );
    assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
    assert.equal(result.value.spec.fluxRestful?.port, 5000);
  });

  it('refuses fluxRestful and users where no API is served, naming the field and the fix', () => {
    assert.deepEqual(problemsOf(miniCluster({ fluxRestful: { port: 5000 } })), [
      'spec.fluxRestful: serves jobs through the RESTful API in place of a command: remove the command of the Flux container, or remove fluxRestful to run the command',
    ]);
    assert.deepEqual(problemsOf(miniCluster({ users: [{ name: 'peenut' }] })), [
      'spec.users: are users of the RESTful API, which this MiniCluster does not serve (it has a command or is interactive): set fluxRestful, or remove users',
    ]);
    assert.deepEqual(
      problemsOf(
        miniCluster({
          containers: noCommand,
          fluxRestful: {},
          flux: { bootServer: 'first', bootServerSize: 2 },
        }),
      ),
      [
        'spec.fluxRestful: cannot be served by a MiniCluster whose brokers join another instance (flux.bootServer or flux.bursting.leadBroker): set it on the MiniCluster that runs the lead broker',
      ],
    );
  });

  it('refuses the broker port, a user named twice, and a user named like the main one', () => {
    assert.deepEqual(problemsOf(miniCluster({ containers: noCommand, fluxRestful: { port: 8050 } })), [
      'spec.fluxRestful.port: must not be the broker port 8050; choose another port',
    ]);
    assert.deepEqual(
      problemsOf(miniCluster({ containers: noCommand, users: [{ name: 'a' }, { name: 'a' }] })),
      ['spec.users[1].name: is the name of an earlier user; names must be unique'],
    );
    assert.deepEqual(problemsOf(miniCluster({ containers: noCommand, users: [{ name: 'flux' }] })), [
      'spec.users: has flux, the user of spec.fluxRestful.username (default flux); must not also be the name of an entry of spec.users; rename one of them',
    ]);
  });

  it('refuses names and tokens a header could not carry, without repeating the token', () => {
    const token = `has space ${'x'.repeat(CREDENTIAL_MIN_LENGTH)}`;
    const problems = problemsOf(
      miniCluster({ containers: noCommand, fluxRestful: { username: 'a:b', token } }),
    );
    assert.equal(problems.length, 2, problems.join('\n'));
    assert.match(problems[0] ?? '', /^spec\.fluxRestful\.username: /);
    assert.equal(
      problems[1],
      'spec.fluxRestful.token: must be printable ASCII without spaces (HTTP headers carry it as it is); the value is not shown',
    );
  });

  it('refuses tokens, passwords and keys shorter than 32 characters, naming each field (both versions)', () => {
    const short = 'x'.repeat(CREDENTIAL_MIN_LENGTH - 1);
    const spec = {
      containers: noCommand,
      fluxRestful: { token: short, secretKey: 'theonionisanogre' },
      users: [{ name: 'peenut', password: short }],
    };
    const expected = [
      'spec.fluxRestful.token: must have at least 32 characters (a short one can be guessed); got 31: give a longer one, or leave it out to have a random one made',
      'spec.fluxRestful.secretKey: must have at least 32 characters (a short one can be guessed); got 16: give a longer one, or leave it out to have a random one made',
      'spec.users[0].password: must have at least 32 characters (a short one can be guessed); got 31: give a longer one, or leave it out to have a random one made',
    ];
    assert.deepEqual(problemsOf(miniCluster(spec)), expected);
    const v1alpha2 = validateMiniCluster({
      apiVersion: 'flux-framework.org/v1alpha2',
      kind: 'MiniCluster',
      metadata: { name: 'flux-sample', namespace: 'default' },
      spec: {
        size: 2,
        containers: [{ image: 'localhost/flux:0.88.0' }],
        fluxRestful: spec.fluxRestful,
        users: spec.users,
      },
    });
    assert.deepEqual(v1alpha2.ok ? [] : v1alpha2.problems.map(formatProblem), expected);
    // 32 characters are enough.
    const enough = 'x'.repeat(CREDENTIAL_MIN_LENGTH);
    assert.deepEqual(problemsOf(miniCluster({ containers: noCommand, fluxRestful: { token: enough } })), []);
  });

  it('takes an administrator flag on a user, in both versions, and keeps it through the conversion', () => {
    const users = [
      { name: 'boss', administrator: true },
      { name: 'peenut', administrator: false },
      { name: 'carol' },
    ];
    const v1alpha1 = validateMiniClusterV1alpha1(miniCluster({ containers: noCommand, users }));
    assert.ok(v1alpha1.ok);
    assert.deepEqual(v1alpha1.value.spec.users, users);
    const converted = toV1alpha2(miniCluster({ containers: noCommand, users })) as {
      spec: { users: unknown };
    };
    assert.deepEqual(converted.spec.users, users);
    assert.deepEqual(
      problemsOf(
        miniCluster({ containers: noCommand, users: [{ name: 'x', administrator: 'yes' }] as never }),
      ),
      ['spec.users[0].administrator: must be true or false; got a string'],
    );
  });

  it("refuses a RESTful MiniCluster whose jobs would run as root, naming the field; a command's is not refused", () => {
    const asRoot = [
      { commands: { runFluxAsRoot: true }, field: 'commands.runFluxAsRoot' },
      { fluxUser: { name: 'flux', uid: 0 }, field: 'fluxUser.uid' },
      { fluxUser: { name: 'root' }, field: 'fluxUser.name' },
    ];
    for (const { field, ...settings } of asRoot) {
      const served = miniCluster({ containers: [fluxContainer({ command: undefined, ...settings })] });
      assert.deepEqual(problemsOf(served), [`spec.containers[0].${field}: ${ROOT_JOBS_MESSAGE}`]);
      // The same in v1alpha2 (fluxRestful said), where the field is the same.
      const v1alpha2 = validateMiniCluster({
        apiVersion: 'flux-framework.org/v1alpha2',
        kind: 'MiniCluster',
        metadata: { name: 'flux-sample', namespace: 'default' },
        spec: { size: 2, containers: [{ image: 'localhost/flux:0.88.0', ...settings }], fluxRestful: {} },
      });
      assert.deepEqual(v1alpha2.ok ? [] : v1alpha2.problems.map(formatProblem), [
        `spec.containers[0].${field}: ${ROOT_JOBS_MESSAGE}`,
      ]);
      // A command runs as the author asks: no API user is there.
      assert.deepEqual(
        problemsOf(miniCluster({ containers: [fluxContainer({ command: 'hostname', ...settings })] })),
        [],
      );
    }
  });

  it('refuses a v1alpha2 RESTful MiniCluster whose Flux container starts as another user than root, by the container or the pod', () => {
    const problems = (spec: Record<string, unknown>) => {
      const result = validateMiniCluster({
        apiVersion: 'flux-framework.org/v1alpha2',
        kind: 'MiniCluster',
        metadata: { name: 'flux-sample', namespace: 'default' },
        spec: { size: 2, ...spec },
      });
      return result.ok ? [] : result.problems.map(formatProblem);
    };
    const image = 'localhost/plain:trixie';
    const cases: [Record<string, unknown>, string[]][] = [
      [
        { containers: [{ image, securityContext: { runAsUser: 1000 } }] },
        ['spec.containers[0].securityContext.runAsUser'],
      ],
      [
        { containers: [{ image, securityContext: { runAsNonRoot: true } }] },
        ['spec.containers[0].securityContext.runAsNonRoot'],
      ],
      [
        { containers: [{ image }], pod: { securityContext: { runAsUser: 1000 } } },
        ['spec.pod.securityContext.runAsUser'],
      ],
      [
        { containers: [{ image }], pod: { securityContext: { runAsUser: 1000, runAsNonRoot: true } } },
        ['spec.pod.securityContext.runAsUser', 'spec.pod.securityContext.runAsNonRoot'],
      ],
      // The container's own setting wins over the pod's, as in Kubernetes.
      [
        {
          containers: [{ image, securityContext: { runAsUser: 0 } }],
          pod: { securityContext: { runAsUser: 1000 } },
        },
        [],
      ],
      [{ containers: [{ image, securityContext: { runAsUser: 0 } }] }, []],
      [{ containers: [{ image }] }, []],
    ];
    for (const [spec, paths] of cases) {
      assert.deepEqual(
        problems({ ...spec, fluxRestful: {} }),
        paths.map((path) => `${path}: ${NON_ROOT_START_MESSAGE}`),
        JSON.stringify(spec),
      );
      // Without the API, the author's user is theirs to choose.
      assert.deepEqual(problems(spec), [], JSON.stringify(spec));
    }
  });
});
