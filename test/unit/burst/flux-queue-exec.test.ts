// The exec reader's pure parts: the command it runs, exit codes from exec statuses, clipped messages.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import {
  ExecFluxQueueReader,
  clip,
  exitCodeOf,
  snapshotCommand,
} from '../../../src/burst/flux-queue-exec.ts';
import { fluxQueueScript } from '../../../src/burst/flux-queue-parse.ts';

test('the command: sh -c with the URI as $1, through sudo for runAs', () => {
  assert.deepEqual(snapshotCommand('local:///run/flux/local'), [
    'sh',
    '-c',
    fluxQueueScript(),
    'flux-queue',
    'local:///run/flux/local',
  ]);
  assert.deepEqual(snapshotCommand('local:///x', 'flux'), [
    'sudo',
    '-n',
    '-u',
    'flux',
    '--',
    'sh',
    '-c',
    fluxQueueScript(),
    'flux-queue',
    'local:///x',
  ]);
  assert.throws(() => snapshotCommand('local:///x', '-u root'), /runAs: not a user name: "-u root"/);
  // Drains and undrains ride on the same exec, as idsets after the URI.
  assert.deepEqual(snapshotCommand('local:///x', undefined, { drain: [3, 2], undrain: [] }).slice(4), [
    'local:///x',
    '2-3',
    '',
  ]);
  assert.deepEqual(snapshotCommand('local:///x', undefined, { undrain: [1] }).slice(4), [
    'local:///x',
    '',
    '1',
  ]);
  assert.deepEqual(snapshotCommand('local:///x', undefined, {}).slice(4), ['local:///x']);
  // A Flux view's command folder comes last, and the script runs with bash: an image with the view
  // may have no sh.
  const fromView = snapshotCommand('local:///x', undefined, {}, '/mnt/flux/bin');
  assert.deepEqual(fromView.slice(0, 2), ['/bin/bash', '-c']);
  assert.deepEqual(fromView.slice(4), ['local:///x', '', '', '/mnt/flux/bin']);
  assert.equal(snapshotCommand('local:///x')[0], 'sh');
});

test('exit codes: a kubelet NonZeroExitCode cause, or kwok\'s "exit status N"', () => {
  assert.equal(
    exitCodeOf({
      status: 'Failure',
      reason: 'NonZeroExitCode',
      message:
        'command terminated with non-zero exit code: error executing command [sh -c ...], exit code 69',
      details: { causes: [{ reason: 'ExitCode', message: '69' }] },
    }),
    69,
  );
  assert.equal(
    exitCodeOf({
      status: 'Failure',
      reason: 'InternalError',
      code: 500,
      message:
        'Internal error occurred: error executing command in container: cmd wait: sh -c x: exit status 7',
    }),
    7,
  );
  assert.equal(
    exitCodeOf({ status: 'Failure', reason: 'InternalError', message: 'no exec found for container "a"' }),
    undefined,
  );
  assert.equal(exitCodeOf({ status: 'Success' }), undefined);
});

test('clip: one printable line, at most the given length', () => {
  assert.equal(clip('a\nb\t\u0000c  '), 'a b c');
  assert.equal(clip('x'.repeat(500), 10), 'xxxxxxx...');
});

test('options: defaults and a positive timeout', () => {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:1' }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  const reader = new ExecFluxQueueReader({ kubeConfig, namespace: 'ns', podName: 'p-0', container: 'c' });
  assert.equal(reader.options.fluxUri, 'local:///run/flux/local');
  assert.equal(reader.options.timeoutMs, 15_000);
  assert.deepEqual(reader.command.slice(-2), ['flux-queue', 'local:///run/flux/local']);
  assert.throws(
    () =>
      new ExecFluxQueueReader({ kubeConfig, namespace: 'ns', podName: 'p-0', container: 'c', timeoutMs: 0 }),
    /timeoutMs must be positive/,
  );
});
