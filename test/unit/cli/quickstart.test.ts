import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  defaultMiniClusterV1alpha1,
  type DefaultedMiniClusterV1alpha1,
  type MiniClusterStatus,
} from '../../../src/api/index.ts';
import {
  finished,
  leadOutputLines,
  outcomeLine,
  programOutput,
  progressLine,
  runsToCompletion,
} from '../../../workbench/src/quickstart/quickstart-output.ts';
import { FLUX_IMAGE, fluxContainer, miniCluster } from '../api/fixtures.ts';

function defaulted(spec: Parameters<typeof miniCluster>[0] = {}): DefaultedMiniClusterV1alpha1 {
  return defaultMiniClusterV1alpha1(miniCluster(spec));
}

/** `kubectl logs` of hello-world's lead pod on the real node (examples/hello-world.yaml, localhost/flux:0.88.0). */
const HELLO_WORLD_LEAD_LOG = `flux-operator: pod hello-world-0: lead
flux-operator: creating user flux (uid 1000)
flux-operator: created user flux with uid 1000
flux-operator: starting munged
flux-operator: writing R for hello-world-[0-3]
flux-operator: starting the lead broker
Nov 24 23:17:25.913620 UTC 2026 broker.info[0]: builtins-success: load-builtins->join 7.15476ms
Nov 24 23:17:25.914009 UTC 2026 broker.info[0]: parent-none: join->config-sync 0.015753ms
Nov 24 23:17:25.914163 UTC 2026 broker.info[0]: sync-none: config-sync->init 0.05949ms
Nov 24 23:17:26.127157 UTC 2026 cron.info[0]: synchronizing cron tasks to event heartbeat.pulse
Nov 24 23:17:26.203352 UTC 2026 job-manager.info[0]: restart: 0 jobs
Nov 24 23:17:26.203360 UTC 2026 job-manager.info[0]: restart: 0 running jobs
Nov 24 23:17:26.204117 UTC 2026 job-manager.info[0]: restart: checkpoint.job-manager not found
Nov 24 23:17:26.368164 UTC 2026 sched-simple.info[0]: ready: queue-depth=8 log-level=info pool-class=Rv1Pool Rv1 rank[0-3]/core[0-1]
Nov 24 23:17:26.392344 UTC 2026 broker.info[0]: rc1.0: flux modprobe rc1 Exited (rc=0) 0.5s
Nov 24 23:17:26.392440 UTC 2026 broker.info[0]: rc1-success: init->quorum 0.478199s
Nov 24 23:17:26.497760 UTC 2026 broker.info[0]: online: hello-world-0 (ranks 0)
Nov 24 23:17:27.154599 UTC 2026 broker.info[0]: online: hello-world-[0-3] (ranks 0-3)
Nov 24 23:17:27.154685 UTC 2026 broker.info[0]: quorum-full: quorum->run 0.76223s
hello-world-0
hello-world-3
hello-world-2
hello-world-1
Nov 24 23:17:27.585236 UTC 2026 broker.info[0]: rc2.0: bash -c flux submit --quiet --watch -n 4 -N 4 hostname Exited (rc=0) 0.4s
Nov 24 23:17:27.585336 UTC 2026 broker.info[0]: rc2-success: run->cleanup 0.430641s
Nov 24 23:17:27.741831 UTC 2026 broker.info[0]: cleanup.0: flux queue stop --quiet --all --nocheckpoint Exited (rc=0) 0.2s
Nov 24 23:17:27.908621 UTC 2026 broker.info[0]: cleanup.1: flux resource acquire-mute Exited (rc=0) 0.2s
Nov 24 23:17:28.072985 UTC 2026 broker.info[0]: cleanup.2: flux cancel --user=all --quiet --states RUN Exited (rc=0) 0.2s
Nov 24 23:17:28.319318 UTC 2026 broker.info[0]: cleanup.3: flux queue idle --quiet Exited (rc=0) 0.2s
Nov 24 23:17:28.319424 UTC 2026 broker.info[0]: cleanup-success: cleanup->shutdown 0.734078s
Nov 24 23:17:28.825979 UTC 2026 broker.info[0]: children-complete: shutdown->finalize 0.506542s
Nov 24 23:17:29.059270 UTC 2026 broker.info[0]: rc3.0: flux modprobe rc3 Exited (rc=0) 0.2s
Nov 24 23:17:29.059402 UTC 2026 broker.info[0]: rc3-success: finalize->goodbye 0.233137s
Nov 24 23:17:29.059450 UTC 2026 broker.info[0]: goodbye: goodbye->unload-builtins 0.038999ms
Nov 24 23:17:29.060474 UTC 2026 broker.info[0]: builtins-done: unload-builtins->exit 1.01467ms
flux-operator: the lead broker exited with status 0
`;

/** A lead whose command (2 tasks) writes to stdout and stderr, then exits 3. */
const FAILED_LEAD_LOG = `flux-operator: pod hello-fail-0: lead
flux-operator: creating user flux (uid 1000)
flux-operator: created user flux with uid 1000
flux-operator: starting munged
flux-operator: writing R for hello-fail-[0-1]
flux-operator: starting the lead broker
Nov 24 23:18:00.789994 UTC 2026 broker.info[0]: builtins-success: load-builtins->join 5.40671ms
Nov 24 23:18:00.790394 UTC 2026 broker.info[0]: parent-none: join->config-sync 0.053951ms
Nov 24 23:18:00.790557 UTC 2026 broker.info[0]: sync-none: config-sync->init 0.078588ms
Nov 24 23:18:00.994786 UTC 2026 cron.info[0]: synchronizing cron tasks to event heartbeat.pulse
Nov 24 23:18:01.019855 UTC 2026 job-manager.info[0]: restart: 0 jobs
Nov 24 23:18:01.019859 UTC 2026 job-manager.info[0]: restart: 0 running jobs
Nov 24 23:18:01.020187 UTC 2026 job-manager.info[0]: restart: checkpoint.job-manager not found
Nov 24 23:18:01.197778 UTC 2026 sched-simple.info[0]: ready: queue-depth=8 log-level=info pool-class=Rv1Pool Rv1 rank[0-1]/core[0-1]
Nov 24 23:18:01.210422 UTC 2026 broker.info[0]: rc1.0: flux modprobe rc1 Exited (rc=0) 0.4s
Nov 24 23:18:01.210828 UTC 2026 broker.info[0]: rc1-success: init->quorum 0.420183s
Nov 24 23:18:01.311656 UTC 2026 broker.info[0]: online: hello-fail-0 (ranks 0)
Nov 24 23:18:01.884572 UTC 2026 broker.info[0]: online: hello-fail-[0-1] (ranks 0-1)
Nov 24 23:18:01.884648 UTC 2026 broker.info[0]: quorum-full: quorum->run 0.673731s
rank 0 says hi
rank 1 says hi
to stderr
to stderr
Nov 24 23:18:02.275935 UTC 2026 broker.err[0]: rc2.0: bash -c flux submit --quiet --watch -n 2 -N 2 bash -c 'echo "rank $FLUX_TASK_RANK says hi"; echo "to stderr" >&2; exit 3' Exited (rc=3) 0.4s
Nov 24 23:18:02.276065 UTC 2026 broker.info[0]: rc2-fail: run->cleanup 0.391405s
Nov 24 23:18:02.446899 UTC 2026 broker.info[0]: cleanup.0: flux queue stop --quiet --all --nocheckpoint Exited (rc=0) 0.2s
Nov 24 23:18:02.613136 UTC 2026 broker.info[0]: cleanup.1: flux resource acquire-mute Exited (rc=0) 0.2s
Nov 24 23:18:02.773677 UTC 2026 broker.info[0]: cleanup.2: flux cancel --user=all --quiet --states RUN Exited (rc=0) 0.2s
Nov 24 23:18:02.949572 UTC 2026 broker.info[0]: cleanup.3: flux queue idle --quiet Exited (rc=0) 0.2s
Nov 24 23:18:02.949811 UTC 2026 broker.info[0]: cleanup-success: cleanup->shutdown 0.673735s
Nov 24 23:18:03.137184 UTC 2026 broker.info[0]: children-complete: shutdown->finalize 0.187283s
Nov 24 23:18:03.380198 UTC 2026 broker.info[0]: rc3.0: flux modprobe rc3 Exited (rc=0) 0.2s
Nov 24 23:18:03.380316 UTC 2026 broker.info[0]: rc3-success: finalize->goodbye 0.24306s
Nov 24 23:18:03.380494 UTC 2026 broker.info[0]: goodbye: goodbye->unload-builtins 0.167461ms
Nov 24 23:18:03.381674 UTC 2026 broker.info[0]: builtins-done: unload-builtins->exit 1.16692ms
flux-operator: the lead broker exited with status 3
`;

describe('runsToCompletion (whether quickstart waits for Succeeded or Failed)', () => {
  const cases: [string, Parameters<typeof miniCluster>[0], boolean][] = [
    ['a command', {}, true],
    [
      'a batch of commands',
      { containers: [fluxContainer({ batch: true, command: 'hostname\ndate' })] },
      true,
    ],
    ['a launcher', { containers: [fluxContainer({ launcher: true })] }, true],
    ['no command', { containers: [{ image: FLUX_IMAGE }] }, false],
    ['interactive, no command', { interactive: true, containers: [{ image: FLUX_IMAGE }] }, false],
    ['interactive with a command (the instance stays up)', { interactive: true }, false],
  ];
  for (const [what, spec, expected] of cases) {
    it(`is ${expected} for ${what}`, () => {
      assert.equal(runsToCompletion(defaulted(spec)), expected);
    });
  }
});

describe("programOutput (the program's lines of a lead broker's log)", () => {
  it("leaves out the entrypoint's and Flux's log lines of hello-world's lead", () => {
    assert.deepEqual(programOutput(HELLO_WORLD_LEAD_LOG), [
      'hello-world-0',
      'hello-world-3',
      'hello-world-2',
      'hello-world-1',
    ]);
  });

  it("keeps what the program wrote to stdout and stderr when it failed (broker.err lines are Flux's)", () => {
    assert.deepEqual(programOutput(FAILED_LEAD_LOG), [
      'rank 0 says hi',
      'rank 1 says hi',
      'to stderr',
      'to stderr',
    ]);
  });

  it('keeps lines that only look like log lines, and blank lines inside the output', () => {
    const log = [
      '',
      'flux-operator: starting the lead broker',
      'flux-operator: error: flux is not in this container',
      'Jan  5 01:02:03.000004 UTC 2026 job-exec.err[3]: something',
      'Nov 24 23:09:05 UTC 2026 broker.debug[0]: without fractions',
      'first',
      '',
      '  flux-operator: indented, so the program wrote it',
      'flux-operator:no space',
      'Nov 24 23:09:05.983772 UTC 2026 broker.info: no rank',
      'Nov 24 23:09:05.983772 UTC 2026 broker.verbose[0]: no such level',
      'last',
      '',
      '',
    ].join('\r\n');
    assert.deepEqual(programOutput(log), [
      'first',
      '',
      '  flux-operator: indented, so the program wrote it',
      'flux-operator:no space',
      'Nov 24 23:09:05.983772 UTC 2026 broker.info: no rank',
      'Nov 24 23:09:05.983772 UTC 2026 broker.verbose[0]: no such level',
      'last',
    ]);
  });

  it('is empty for a log without program output', () => {
    assert.deepEqual(programOutput(''), []);
    assert.deepEqual(programOutput('flux-operator: pod x-0: lead\n\n'), []);
  });
});

function status(summary: MiniClusterStatus['summary'], ...conditions: [string, string, string, string][]) {
  return {
    summary,
    readyPods: summary === 'Ready' ? 4 : 0,
    conditions: conditions.map(([type, conditionStatus, reason, message]) => ({
      type,
      status: conditionStatus as 'True' | 'False',
      reason,
      message,
      lastTransitionTime: '2026-01-01T00:00:00Z',
    })),
  } satisfies MiniClusterStatus;
}

const READY = status('Ready', ['Ready', 'True', 'BrokersRunning', '4/4 brokers running']);
const SUCCEEDED = status(
  'Succeeded',
  ['Ready', 'False', 'Succeeded', 'the lead broker finished its command'],
  ['Succeeded', 'True', 'LeadBrokerSucceeded', 'the lead broker exited with status 0'],
);
const FAILED = status(
  'Failed',
  ['Ready', 'False', 'Failed', 'the Flux instance failed'],
  [
    'Failed',
    'True',
    'CommandFailed',
    'the lead broker exited with status 3 (pod hello-world-0-abcde): its command failed',
  ],
);

describe('progressLine', () => {
  it('shows the summary and the condition that explains it', () => {
    assert.equal(progressLine({}, 4), 'pods running 0/4 | Pending | waiting for the operator');
    assert.equal(progressLine(READY, 4), 'pods running 4/4 | Ready | BrokersRunning: 4/4 brokers running');
    assert.equal(
      progressLine(SUCCEEDED, 4),
      'pods running 0/4 | Succeeded | LeadBrokerSucceeded: the lead broker exited with status 0',
    );
    assert.equal(
      progressLine(FAILED, 4),
      'pods running 0/4 | Failed | CommandFailed: the lead broker exited with status 3 (pod hello-world-0-abcde): its command failed',
    );
  });
});

describe('finished (when quickstart stops watching)', () => {
  it('stops at an outcome, and at Ready only when no outcome is awaited', () => {
    assert.equal(finished(undefined, false), false);
    assert.equal(finished({}, false), false);
    assert.equal(finished(READY, false), true);
    assert.equal(finished(READY, true), false);
    assert.equal(finished(SUCCEEDED, true), true);
    assert.equal(finished(FAILED, true), true);
    assert.equal(finished(FAILED, false), true);
  });
});

describe('outcomeLine', () => {
  it("names the outcome, and for a failure the Failed condition's message", () => {
    assert.equal(
      outcomeLine('default', 'hello-world', SUCCEEDED),
      'MiniCluster default/hello-world Succeeded.',
    );
    assert.equal(
      outcomeLine('default', 'hello-world', FAILED),
      'MiniCluster default/hello-world Failed: the lead broker exited with status 3 (pod hello-world-0-abcde): its command failed.',
    );
    assert.equal(outcomeLine('ns', 'x', { summary: 'Failed' }), 'MiniCluster ns/x Failed.');
  });
});

describe('leadOutputLines', () => {
  const kubectl = 'kubectl --kubeconfig .cluster/kubeconfig';
  it('puts the output under a header and tells how to see the whole log', () => {
    assert.deepEqual(leadOutputLines('hello-world-0-abcde', HELLO_WORLD_LEAD_LOG, kubectl, 'default'), [
      'Output of the lead broker (pod hello-world-0-abcde):',
      '  hello-world-0',
      '  hello-world-3',
      '  hello-world-2',
      '  hello-world-1',
      'Its whole log: kubectl --kubeconfig .cluster/kubeconfig logs -n default hello-world-0-abcde',
    ]);
  });

  it('says when there is no output, or no lead pod left', () => {
    assert.deepEqual(leadOutputLines('x-0-abcde', 'flux-operator: pod x-0: lead\n', kubectl, 'ns'), [
      'Output of the lead broker (pod x-0-abcde):',
      '  (nothing)',
      'Its whole log: kubectl --kubeconfig .cluster/kubeconfig logs -n ns x-0-abcde',
    ]);
    assert.deepEqual(leadOutputLines(undefined, undefined, kubectl, 'ns'), [
      'No lead broker pod is left to show the output of (cleanup: true deletes the pods at the end).',
    ]);
  });
});
