import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MiniClusterV1alpha1Spec } from '../../../src/api/index.ts';
import { entrypointInput, initialProgram } from '../../../src/render/flux-inputs.ts';
import { miniClusterNames, renderMiniCluster } from '../../../src/render/index.ts';
import { IMAGE, KEYS, defaulted, find } from './fixtures.ts';

function inputOf(spec: Partial<MiniClusterV1alpha1Spec>) {
  const miniCluster = defaulted(spec);
  return entrypointInput(miniCluster, miniClusterNames(miniCluster));
}

function scriptOf(spec: Partial<MiniClusterV1alpha1Spec>): string {
  return find.configMap(renderMiniCluster(defaulted(spec), KEYS)).data?.['entrypoint.sh'] ?? '';
}

/** The script's parameter holding the lead broker's initial program (its words after the start words). */
function leadStartLine(script: string): string {
  const line = script.split('\n').find((candidate) => candidate.startsWith('program_args=('));
  assert.ok(line !== undefined, 'the script gives the lead broker a program');
  return line;
}

describe('the initial program from the spec', () => {
  it('submits 1 task on 3 brokers as -n 1 alone, and -N only once tasks >= size', () => {
    assert.equal(
      leadStartLine(scriptOf({ size: 3 })),
      `program_args=(bash -c 'flux submit --quiet --watch -n 1 hostname')`,
    );
    assert.match(
      leadStartLine(scriptOf({ size: 3, tasks: 2 })),
      /'flux submit --quiet --watch -n 2 hostname'/,
    );
    assert.match(
      leadStartLine(scriptOf({ size: 3, tasks: 6 })),
      /'flux submit --quiet --watch -n 6 -N 3 hostname'/,
    );
  });

  it('keeps an interactive instance up after its command, and exits after it otherwise', () => {
    const cases: [Partial<MiniClusterV1alpha1Spec>, ReturnType<typeof initialProgram>][] = [
      [
        { size: 2, interactive: true },
        { kind: 'submit', command: 'hostname', tasks: 1, nodes: 2, whenDone: 'stayUp' },
      ],
      [{ size: 2 }, { kind: 'submit', command: 'hostname', tasks: 1, nodes: 2 }],
      [
        { interactive: true, containers: [{ image: IMAGE, command: 'python3 run.py', launcher: true }] },
        { kind: 'launcher', command: 'python3 run.py', whenDone: 'stayUp' },
      ],
      [
        { size: 2, interactive: true, containers: [{ image: IMAGE, command: 'a\nb', batch: true }] },
        // The jobs' output goes to files, as the Go operator's batch jobs' did (job-N.out).
        { kind: 'batch', commands: 'a\nb', tasks: 1, outputDir: '/tmp/fluxout', whenDone: 'stayUp' },
      ],
      [{ interactive: true, containers: [{ image: IMAGE }] }, { kind: 'interactive' }],
      // Neither a command nor interactive: the persistent MiniCluster serves the RESTful API.
      [
        { containers: [{ image: IMAGE }] },
        {
          kind: 'restful',
          serverPath: '/flux_operator/restful-server.py',
          credentialsSourcePath: '/etc/flux-operator/restful/credentials.json',
          credentialsPath: '/mnt/flux/restful/credentials.json',
          port: 5000,
        },
      ],
      [
        { interactive: true, fluxRestful: { port: 8080 }, containers: [{ image: IMAGE }] },
        {
          kind: 'restful',
          serverPath: '/flux_operator/restful-server.py',
          credentialsSourcePath: '/etc/flux-operator/restful/credentials.json',
          credentialsPath: '/mnt/flux/restful/credentials.json',
          port: 8080,
        },
      ],
    ];
    for (const [spec, program] of cases) {
      assert.deepEqual(initialProgram(defaulted(spec)), program, JSON.stringify(spec));
    }
    const script = scriptOf({ size: 2, interactive: true });
    assert.match(script, /connect with flux proxy/);
    assert.match(script, /^exec sleep inf$/m);
  });

  it('gives optionFlags to the submissions and FLUX_OPTION_FLAGS, never to flux start; the archive stays a broker option', () => {
    const spec: Partial<MiniClusterV1alpha1Spec> = {
      size: 2,
      tasks: 2,
      archive: { path: '/state/archive.sqlite' },
      flux: { optionFlags: ' -o mpi=openmpi@5  --setattr=user.x=1 ' },
    };
    const input = inputOf(spec);
    assert.deepEqual(input.jobOptions, ['-o', 'mpi=openmpi@5', '--setattr=user.x=1']);
    assert.deepEqual(input.broker.extraOptions, ['-Scontent.dump=/state/archive.sqlite']);
    const script = scriptOf(spec);
    assert.match(script, /^start_args=\(.* -Scontent\.dump=\/state\/archive\.sqlite\)$/m);
    assert.doesNotMatch(script.split('\n').find((line) => line.startsWith('start_args=')) ?? '', /mpi/);
    assert.match(script, /^flux_option_flags='-o mpi=openmpi@5 --setattr=user\.x=1'$/m);
    assert.match(
      leadStartLine(script),
      /'flux submit --quiet --watch -n 2 -N 2 -o mpi=openmpi@5 --setattr=user\.x=1 hostname'/,
    );
    assert.equal(inputOf({ size: 2 }).jobOptions, undefined);
  });

  it('puts commands.prefix in front of flux start, not in front of flux submit', () => {
    const script = scriptOf({
      size: 2,
      containers: [{ image: IMAGE, command: 'hostname', commands: { prefix: 'singularity exec img.sif' } }],
    });
    assert.match(script, /^flux_prefix='singularity exec img\.sif'$/m);
    // The body runs every broker behind $flux_prefix (test/unit/flux/entrypoint.test.ts runs it); the
    // program's submission has no prefix.
    assert.equal(leadStartLine(script), `program_args=(bash -c 'flux submit --quiet --watch -n 1 hostname')`);
  });

  it("makes munged's directories where the distributions' packages put them", () => {
    assert.deepEqual(inputOf({ size: 2 }).munge, {
      keySourcePath: '/etc/flux-operator/munge/munge.key',
      keyPath: '/etc/munge/munge.key',
      user: 'munge',
      socketDir: '/run/munge',
      seedDir: '/var/lib/munge',
      logDir: '/var/log/munge',
    });
  });
});
