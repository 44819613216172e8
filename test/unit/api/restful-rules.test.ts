import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblem, validateMiniCluster } from '../../../src/api/index.ts';
import type { MiniCluster } from '../../../src/api/index.ts';
import { servesRestfulApi } from '../../../src/api/restful-schema.ts';
import { fluxContainer, miniCluster } from './fixtures.ts';

function problemsOf(input: MiniCluster): string[] {
  const result = validateMiniCluster(input);
  return result.ok ? [] : result.problems.map(formatProblem);
}

const noCommand = [fluxContainer({ command: undefined })];

describe('the RESTful mode', () => {
  it('is served without a command unless interactive, and with fluxRestful; never by a joining MiniCluster', () => {
    const cases: [Partial<MiniCluster['spec']>, boolean][] = [
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
    const result = validateMiniCluster(
      miniCluster({
        containers: noCommand,
        fluxRestful: { branch: 'main', username: 'me', token: 'tok', secretKey: 'key' },
        users: [{ name: 'peenut' }, { name: 'squidward', password: 'pw' }],
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

  it('refuses names and tokens a header could not carry', () => {
    const problems = problemsOf(
      miniCluster({ containers: noCommand, fluxRestful: { username: 'a:b', token: 'has space' } }),
    );
    assert.equal(problems.length, 2, problems.join('\n'));
    assert.match(problems[0] ?? '', /^spec\.fluxRestful\.username: /);
    assert.match(problems[1] ?? '', /^spec\.fluxRestful\.token: /);
  });
});
