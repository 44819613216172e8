import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { depsFile } from '../../../workbench/src/tooling/project.ts';
import { GO_OPERATOR_ARCHIVE, goBuildArgs, goOperatorKey } from '../../bench/go-operator.ts';
import { goCommand, oursCommand } from '../../bench/operator-commands.ts';

describe('how the bench starts each operator', () => {
  it('runs ours compiled, on all namespaces unless one is given, metrics only', () => {
    const ours = oursCommand({
      main: '/p/dist/src/cli/main.js',
      kubeconfig: '/k',
      metricsAddr: '127.0.0.1:9',
      node: '/n',
    });
    assert.deepEqual(
      [ours.command, ...ours.args],
      [
        '/n',
        '/p/dist/src/cli/main.js',
        'run',
        '--kubeconfig',
        '/k',
        '--metrics-addr',
        '127.0.0.1:9',
        '--health-addr',
        '0',
        '--log-level',
        'info',
        '--concurrency',
        '8',
      ],
    );
    assert.deepEqual(ours.env, {
      NODE_OPTIONS: '--max-old-space-size-percentage=50 --max-semi-space-size=2',
    });
    assert.equal(ours.writesMetric, 'flux_operator_api_writes_total');
    const profiled = oursCommand({ main: 'm', kubeconfig: 'k', metricsAddr: 'a', cpuProfileDir: '/tmp/p' });
    assert.deepEqual(profiled.args.slice(0, 3), ['--cpu-prof', '--cpu-prof-dir=/tmp/p', 'm']);
    const scoped = oursCommand({
      main: 'm',
      kubeconfig: 'k',
      metricsAddr: 'a',
      namespace: 'ns',
      heapMiB: 256,
      node: 'n',
    });
    assert.deepEqual(scoped.args.slice(0, 6), [
      '--max-old-space-size=256',
      'm',
      'run',
      '--kubeconfig',
      'k',
      '--namespace',
    ]);
    assert.equal(scoped.args[6], 'ns');
    assert.ok(ours.readyLine.test('{"level":30,"msg":"leading: reconciling MiniClusters"}'));
  });

  it('runs the Go operator out of cluster, leader election and probes off, JSON logs', () => {
    const go = goCommand({ binary: '/c/flux-operator', kubeconfig: '/k', metricsPort: 8123 });
    assert.deepEqual(
      [go.command, ...go.args],
      [
        '/c/flux-operator',
        '--kubeconfig',
        '/k',
        '--metrics-bind-address',
        '127.0.0.1:8123',
        '--health-probe-bind-address',
        '0',
        '--leader-elect=false',
        '--zap-devel=false',
      ],
    );
    assert.ok(
      go.readyLine.test(
        '{"level":"info","msg":"Starting workers","controller":"minicluster","worker count":1}',
      ),
    );
    assert.equal(go.heapMetric, 'go_memstats_heap_alloc_bytes');
    assert.equal(go.writesMetric, undefined, 'its writes are its requests other than GET');
  });

  it("passes flags the Go operator's main.go defines", () => {
    const archive = depsFile(GO_OPERATOR_ARCHIVE);
    const top = execFileSync('tar', ['-tzf', archive], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 }).split(
      '/',
    )[0];
    const main = execFileSync('tar', ['-xzOf', archive, `${top}/main.go`], { encoding: 'utf8' });
    for (const flag of ['metrics-bind-address', 'health-probe-bind-address', 'leader-elect']) {
      assert.match(main, new RegExp(`flag\\.\\w+Var\\([^)]*"${flag}"`), flag);
    }
    // --kubeconfig and --zap-* come from controller-runtime (ctrl.GetConfigOrDie, zap.Options.BindFlags).
    assert.match(main, /ctrl\.GetConfigOrDie\(\)/);
    assert.match(main, /opts\.BindFlags\(flag\.CommandLine\)/);
  });
});

describe('the Go operator build cache', () => {
  it('is named by the archive, the Go toolchain and the build command', () => {
    const inputs = { archiveSha256: 'sha256:aa', goVersion: 'go version go1.26.8 linux/amd64' };
    const key = goOperatorKey(inputs);
    assert.match(key, /^[0-9a-f]{16}$/);
    assert.equal(goOperatorKey({ ...inputs }), key);
    assert.notEqual(goOperatorKey({ ...inputs, archiveSha256: 'sha256:ab' }), key);
    assert.notEqual(goOperatorKey({ ...inputs, goVersion: 'go version go1.25.0 linux/amd64' }), key);
    assert.deepEqual(goBuildArgs('/out/flux-operator'), [
      'build',
      '-trimpath',
      '-o',
      '/out/flux-operator',
      '.',
    ]);
  });
});
