// Side doors to root in a worker pod, tried by a job as an attacker would (docs/security.md): the
// entrypoint runs as root and copies the brokers' certificate into the shared state volume at each
// broker start, while the jobs run as the flux user. The job plants links where root writes, keeps
// planting from a process of its own session, and kills its broker so that root starts it again.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { waitFor } from '../../harness/cluster.ts';
import { applyMiniCluster, waitForCondition } from '../../harness/operator.ts';
import { execIn, podAt, podLog, realMiniCluster, scenario, waitForNodesUp } from '../../harness/real-node.ts';

/** Where the job writes what it saw (the worker's /tmp: the broker it kills takes its output with it). */
const REPORT = '/tmp/attack.report';

/**
 * The job, as the flux user on the worker: try to plant a link at each place root writes in the state
 * volume and to swap Flux's state folder for a link to /etc, start a detached loop that keeps
 * planting the certificate's link through the restart, then kill its own broker.
 */
const ATTACK = String.raw`
exec >${REPORT} 2>&1
echo "uid $(id -u) on $(hostname)"
stat -c 'volume %U %a' /mnt/flux
for place in /mnt/flux/curve.cert /mnt/flux/shell/planted /mnt/flux/planted /mnt/flux/curve/planted; do
  if ln -sfn /etc/passwd "$place" 2>/dev/null; then echo "planted $place"; else echo "refused $place"; fi
done
if mv /mnt/flux/state /mnt/flux/state.old 2>/dev/null && ln -s /etc /mnt/flux/state; then
  echo "planted /mnt/flux/state"
else
  echo "refused /mnt/flux/state"
fi
setsid bash -c 'for i in $(seq 2000); do ln -sfn /etc/passwd /mnt/flux/curve/curve.cert 2>/dev/null; done' </dev/null >/dev/null 2>&1 &
for process in /proc/[0-9]*; do
  case "$(cat "$process/comm" 2>/dev/null)" in
    flux-broker*) echo "killing its broker"; kill -9 "$(basename "$process")" ;;
  esac
done
`;

/** Owner, group and mode of every file root owns in the places root writes or an attacker aims at. */
const ROOT_OWNED =
  'find /etc /mnt/flux /usr/bin /root -maxdepth 2 -xdev -user 0 -printf "%p %u:%g %m\\n" 2>/dev/null | sort';

export function rootSideDoorScenarios(): void {
  it("a job that plants links where root writes and kills its worker broker gets nothing of root's: the state volume is root's, the links refused, root's files still root's", async (t) => {
    const { namespace, clients } = await scenario(t, 'links');
    await applyMiniCluster(clients, realMiniCluster(namespace, 'links', { size: 2, interactive: true }));
    await waitForCondition(clients, namespace, 'links', 'Ready', 'True', 180_000);
    const lead = (await podAt(clients, namespace, 'links', 0)).metadata?.name ?? '';
    const worker = (await podAt(clients, namespace, 'links', 1)).metadata?.name ?? '';
    await waitForNodesUp(namespace, lead, 2);
    const before = (await execIn(namespace, worker, ['bash', '-c', ROOT_OWNED])).stdout;
    assert.match(before, /^\/mnt\/flux root:root 755$/m, before);

    // As the instance's owner, straight to its socket: `flux proxy` would hand the script to a shell.
    await execIn(namespace, lead, [
      'runuser',
      '-u',
      'flux',
      '--',
      'env',
      'FLUX_URI=local:///run/flux/local',
      'flux',
      'submit',
      '--requires=rank:1',
      'bash',
      '-c',
      ATTACK,
    ]);
    // The worker's entrypoint starts its broker again, which joins the instance again.
    await waitFor(
      async () => /starting a worker broker \(attempt 2\)/.test(await podLog(clients, namespace, worker)),
      { what: `the worker ${worker} to start its broker again`, timeoutMs: 120_000 },
    );
    await waitForNodesUp(namespace, lead, 2);

    const report = (await execIn(namespace, worker, ['cat', REPORT])).stdout;
    assert.match(report, /^uid [1-9]\d* on links-1$/m, report);
    assert.match(report, /^volume root 755$/m, report);
    for (const place of [
      '/mnt/flux/curve.cert',
      '/mnt/flux/shell/planted',
      '/mnt/flux/planted',
      '/mnt/flux/state',
    ]) {
      assert.match(report, new RegExp(`^refused ${place}$`, 'm'), report);
    }
    // The certificate's folder is the flux user's between broker starts (its rc1 removes the copy),
    // so a job can plant there; root makes the folder anew before it writes in it again.
    assert.match(report, /^planted \/mnt\/flux\/curve\/planted$/m, report);
    assert.match(report, /^killing its broker$/m, report);
    const after = (await execIn(namespace, worker, ['bash', '-c', ROOT_OWNED])).stdout;
    const lost = before
      .split('\n')
      .filter((line) => line !== '' && !after.includes(`${line.split(' ')[0]} root:`));
    assert.deepEqual(lost, [], `root's files no longer root's:\n${lost.join('\n')}`);
    // No link of the job's is left (root's own lua.d link to Flux's rc files stays).
    const find = ['find', '/mnt/flux', '-maxdepth', '2', '-type', 'l', '!', '-user', '0'];
    const links = (await execIn(namespace, worker, find)).stdout;
    assert.equal(links.trim(), '', links);
    assert.match((await execIn(namespace, worker, ['head', '-1', '/etc/passwd'])).stdout, /^root:x:0:0:/);
  });
}
