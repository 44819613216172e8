import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { jobExitCode, jobsTable, keyValues, submitRequest } from '../../../src/cli/jobs-command.ts';
import { InputError } from '../../../src/cli/input-error.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;
const MAIN = join(ROOT, 'src/cli/main.ts');

function cli(...args: string[]) {
  const result = spawnSync(process.execPath, [MAIN, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A local port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  assert.ok(address !== null && typeof address === 'object');
  return address.port;
}

describe('flux-operator jobs', () => {
  it('builds the submit payload with the field names of flux-restful-api', () => {
    assert.deepEqual(
      submitRequest(['bash', '-c', '"echo hi"'], {
        namespace: 'default',
        nodes: 2,
        tasks: 4,
        coresPerTask: 1,
        gpusPerTask: 1,
        exclusive: true,
        workdir: '/tmp',
        env: ['A=1', 'B=x=y'],
        option: ['cpu-affinity=off'],
      }),
      {
        command: 'bash -c "echo hi"',
        num_tasks: 4,
        num_nodes: 2,
        cores_per_task: 1,
        gpus_per_task: 1,
        exclusive: true,
        workdir: '/tmp',
        envars: { A: '1', B: 'x=y' },
        option_flags: { 'cpu-affinity': 'off' },
      },
    );
    assert.deepEqual(submitRequest(['hostname'], { namespace: 'default', env: [], option: [] }), {
      command: 'hostname',
    });
  });

  it('refuses a KEY=VALUE flag without a key, naming the flag', () => {
    assert.throws(
      () => keyValues('--env', ['=1']),
      (error: unknown) => {
        assert.ok(error instanceof InputError);
        assert.deepEqual(error.problems, ['--env "=1": expected KEY=VALUE']);
        return true;
      },
    );
  });

  it('exits with the status of the job, 1 when it has none', () => {
    assert.equal(jobExitCode({ id: 1, state: 'INACTIVE', result: 'COMPLETED', returncode: 0 }), 0);
    assert.equal(jobExitCode({ id: 1, state: 'INACTIVE', result: 'FAILED', returncode: 3 }), 3);
    assert.equal(jobExitCode({ id: 1, state: 'INACTIVE', result: 'CANCELED', returncode: '' }), 1);
  });

  it('lists jobs as a table', () => {
    assert.equal(
      jobsTable([
        {
          id: 635386724352,
          jobid: 'ƒHh3x3cK',
          name: 'hostname',
          state: 'INACTIVE',
          result: 'COMPLETED',
          nnodes: 2,
          runtime: 0.0735,
        },
        {
          id: 706371125248,
          jobid: 'ƒKPXZ5KR',
          name: 'sleep',
          state: 'RUN',
          result: '',
          nnodes: 1,
          runtime: '',
        },
      ]),
      [
        'ID            JOBID     NAME      STATE     RESULT     NODES  RUNTIME',
        '635386724352  ƒHh3x3cK  hostname  INACTIVE  COMPLETED  2      0.1s',
        '706371125248  ƒKPXZ5KR  sleep     RUN                  1',
        '',
      ].join('\n'),
    );
  });

  it('refuses a `jobs ui --port` that is not a port, naming the flag', () => {
    for (const port of ['70000', '1.5', 'http']) {
      const refused = cli('jobs', 'ui', 'x', '--port', port);
      assert.equal(refused.code, 2, refused.stderr);
      assert.equal(
        refused.stderr,
        `error: --port must be a port number from 0 to 65535, got ${JSON.stringify(port)}\n`,
      );
    }
  });

  it('says what is wrong: no command, an API that cannot be reached', async () => {
    const noCommand = cli('jobs', 'submit', 'x', '--url', 'http://127.0.0.1:1', '--token', 't');
    assert.equal(noCommand.code, 2);
    assert.match(noCommand.stderr, /missing required argument 'command'/);
    const port = await closedPort();
    const unreachable = cli('jobs', 'list', 'x', '--url', `http://127.0.0.1:${port}`, '--token', 't');
    assert.equal(unreachable.code, 1);
    assert.equal(
      unreachable.stderr,
      `error: cannot reach the RESTful API at http://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}\n`,
    );
  });
});
