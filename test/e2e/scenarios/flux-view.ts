// The Flux view on the real node, as the operator's pods will use it: an init container from
// localhost/flux-view copies the view into an emptyDir at /mnt/flux (the image's own command), then an
// application container from a plain image (bash and coreutils, no Flux, Python or munge) runs
// hack/flux-view-checks.sh with nothing but its own bash and coreutils: every ELF file of the view loads
// its libraries from the view, `flux --version`, `flux python -c 'import flux'`, a 2-broker
// `flux start` running a 2-node job, munged from the view with munge | unmunge; as root and as uid
// 1000, on bookworm and on trixie. Every call to the cluster has a timeout.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import {
  FLUX_VIEW_MOUNT_PATH,
  fluxViewReference,
  readFluxCoreVersion,
} from '../../../workbench/src/images/index.ts';
import { apiClientsFor } from '../../../src/kube/clients.ts';
import { REAL_NODE_PLACEMENT } from '../../../workbench/src/localcluster/real-node/config.ts';
import { findProjectRoot } from '../../../workbench/src/tooling/project.ts';
import { cluster, waitFor, within as call, withNamespace } from '../../harness/cluster.ts';
import { explainOnFailure } from '../../harness/real-node.ts';

const VIEW_IMAGE = fluxViewReference(readFluxCoreVersion());
const CHECKS = readFileSync(path.join(findProjectRoot(), 'hack', 'flux-view-checks.sh'), 'utf8');

/** The pod: the view image's init container (its own command), then the checks in the plain image. */
function viewPod(name: string, appImage: string, uid: number | undefined): V1Pod {
  const mount = { name: 'flux', mountPath: FLUX_VIEW_MOUNT_PATH };
  return {
    metadata: { name },
    spec: {
      nodeSelector: { ...REAL_NODE_PLACEMENT.nodeSelector },
      tolerations: REAL_NODE_PLACEMENT.tolerations.map((t) => ({ ...t })),
      restartPolicy: 'Never',
      ...(uid === undefined ? {} : { securityContext: { runAsUser: uid, runAsGroup: uid } }),
      volumes: [
        { name: 'flux', emptyDir: {} },
        { name: 'checks', configMap: { name: 'flux-view-checks' } },
      ],
      initContainers: [
        { name: 'flux-view', image: VIEW_IMAGE, imagePullPolicy: 'Never', volumeMounts: [mount] },
      ],
      containers: [
        {
          name: 'app',
          image: appImage,
          imagePullPolicy: 'Never',
          command: ['bash', '/checks/flux-view-checks.sh', `${FLUX_VIEW_MOUNT_PATH}/view`],
          volumeMounts: [mount, { name: 'checks', mountPath: '/checks' }],
        },
      ],
    },
  };
}

interface ViewRun {
  initLog: string;
  appLog: string;
  /** Seconds from the init container's start to its end, as the kubelet reports them. */
  copySeconds: number;
  /** Seconds from the pod's creation until its application container ended. */
  podSeconds: number;
}

async function runViewPod(namespace: string, name: string, appImage: string, uid?: number): Promise<ViewRun> {
  const { core } = await cluster();
  await call(
    `creating pod ${name}`,
    core.createNamespacedPod({ namespace, body: viewPod(name, appImage, uid) }),
  );
  // Ended either way: a failed pod is not waited for until the deadline.
  const pod = await waitFor(
    async () => {
      const p = await call(`reading pod ${name}`, core.readNamespacedPod({ name, namespace }));
      return p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed' ? p : undefined;
    },
    { what: `pod ${namespace}/${name} ended`, timeoutMs: 300_000, intervalMs: 1_000 },
  );
  if (pod.status?.phase === 'Failed') {
    const logOf = (container: string) =>
      call(`the log of ${container}`, core.readNamespacedPodLog({ name, namespace, container })).catch(
        (err: unknown) => `(no log: ${String(err)})`,
      );
    throw new Error(
      `pod ${name} failed: ${JSON.stringify([...(pod.status.initContainerStatuses ?? []), ...(pod.status.containerStatuses ?? [])].map((c) => ({ [c.name]: c.state?.terminated })))}\n` +
        `flux-view:\n${await logOf('flux-view')}\napp:\n${await logOf('app')}`,
    );
  }
  const init = pod.status?.initContainerStatuses?.[0]?.state?.terminated;
  const app = pod.status?.containerStatuses?.[0]?.state?.terminated;
  assert.equal(init?.exitCode, 0);
  assert.equal(app?.exitCode, 0);
  const seconds = (from?: Date | string, to?: Date | string) =>
    (new Date(to ?? 0).getTime() - new Date(from ?? 0).getTime()) / 1000;
  return {
    initLog: await call(
      'the init log',
      core.readNamespacedPodLog({ name, namespace, container: 'flux-view' }),
    ),
    appLog: await call('the app log', core.readNamespacedPodLog({ name, namespace, container: 'app' })),
    copySeconds: seconds(init?.startedAt, init?.finishedAt),
    podSeconds: seconds(pod.metadata?.creationTimestamp, app?.finishedAt),
  };
}

function assertChecksPassed(run: ViewRun, uid: number, hostname: string): void {
  assert.match(
    run.initLog,
    /^flux-view-copy: copied the Flux view to \/mnt\/flux\/view in \d+ s \(\d+ MiB\)$/m,
    run.initLog,
  );
  const log = run.appLog;
  assert.match(log, new RegExp(`^== as uid ${uid}, gid ${uid}, `, 'm'), log);
  const elf = /^(\d+) ELF files, every library from the view$/m.exec(log);
  assert.ok(elf && Number(elf[1]) > 100, log);
  assert.match(log, /^commands:\s+\d+\.\d+\.\d+$/m);
  assert.match(log, /^\/mnt\/flux\/view\/lib\/\S*flux\/__init__\.py$/m);
  // Two brokers of one `flux start` in this pod, each running one task of the 2-node job.
  assert.deepEqual(
    log.split('\n').filter((l) => /^\d: rank \d of /.test(l)),
    [`0: rank 0 of ${hostname} size 2`, `1: rank 1 of ${hostname} size 2`],
    log,
  );
  assert.match(log, /^STATUS:\s+Success \(0\)$/m, log);
  assert.match(log, /^== ok$/m);
}

export function fluxViewScenarios(): void {
  for (const suite of ['bookworm', 'trixie'] as const) {
    it(`the Flux view runs in localhost/plain:${suite} (bash and coreutils only), as root and as uid 1000`, async (t) => {
      const story = explainOnFailure(t);
      const namespace = await withNamespace(t, `view-${suite}`);
      const { core, kc } = await cluster();
      story.watch(apiClientsFor(kc), namespace);
      await call(
        'creating the checks ConfigMap',
        core.createNamespacedConfigMap({
          namespace,
          body: { metadata: { name: 'flux-view-checks' }, data: { 'flux-view-checks.sh': CHECKS } },
        }),
      );
      const image = `localhost/plain:${suite}`;
      const [asRoot, asUser] = await Promise.all([
        runViewPod(namespace, 'as-root', image),
        runViewPod(namespace, 'as-uid-1000', image, 1000),
      ]);
      assertChecksPassed(asRoot, 0, 'as-root');
      assertChecksPassed(asUser, 1000, 'as-uid-1000');
      process.stderr.write(
        `[flux-view e2e] ${suite}: init container (copy) ${asRoot.copySeconds} s as root, ${asUser.copySeconds} s as uid 1000; ` +
          `pod created -> checks done ${asRoot.podSeconds} s / ${asUser.podSeconds} s\n`,
      );
    });
  }
}
