// Integration-test helpers: the local cluster's clients, a namespace per test, and a poller.
import type { TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { EXIT_CODE_ANNOTATION, up } from '../../workbench/src/localcluster/index.ts';
import { apiClients, type ApiClients, type CoreApi } from '../../src/kube/api-clients.ts';
import { accessFromKubeconfig } from '../../src/kube/cluster-access.ts';
import { stopNamespaceUsers } from './namespace-users.ts';
import { HOST_STORAGE_ALLOWED, HOST_STORAGE_LABEL, LABEL_JOB_COMPLETION_INDEX } from '../../src/api/index.ts';

/** The one client on the local cluster, and its kubeconfig (for the official client's Watch and Exec). */
export interface Clients extends ApiClients {
  kubeconfig: string;
  kc: KubeConfig;
}

let connected: Promise<Clients> | undefined;

/**
 * Clients for the default local cluster. The global setup has normally brought it up already; `up` is
 * idempotent, so a single test file run without the global setup starts it (and leaves it running).
 */
export function cluster(): Promise<Clients> {
  connected ??= (async () => {
    const { kubeconfig } = await up({ progress: (line) => process.stderr.write(`[localcluster] ${line}\n`) });
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    return { ...apiClients(accessFromKubeconfig(kubeconfig)), kubeconfig, kc };
  })();
  return connected;
}

export interface WaitOptions {
  /** What is awaited, for the timeout message. */
  what: string;
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Calls `fn` until it returns something other than undefined, null or false, and returns that. Errors
 * thrown by `fn` count as "not yet"; on timeout the last one and the last value are in the message.
 */
export async function waitFor<T>(
  fn: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  options: WaitOptions,
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  let lastValue: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== null && v !== false) return v;
      lastValue = v;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) break;
    await sleep(options.intervalMs ?? 200);
  }
  const why =
    lastError !== undefined ? `; last error: ${describe(lastError)}` : `; last value: ${String(lastValue)}`;
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.what}${why}`);
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const body = (err as { body?: unknown }).body;
    return body ? `${err.message} ${typeof body === 'string' ? body : JSON.stringify(body)}` : err.message;
  }
  return String(err);
}

/** The HTTP status of an ApiException, if it is one. */
export function httpStatus(err: unknown): number | undefined {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

let counter = 0;

/** Deletes a namespace (gone already is fine) and waits until it is gone, with what it held. */
export async function deleteNamespace(name: string, timeoutMs = 120_000): Promise<void> {
  const { core } = await cluster();
  try {
    await core.deleteNamespace({ name });
  } catch (err) {
    if (httpStatus(err) === 404) return;
    throw err;
  }
  let pokedAt = Date.now();
  await waitFor(
    async () => {
      try {
        await core.readNamespace({ name });
      } catch (err) {
        if (httpStatus(err) === 404) return true;
        throw err;
      }
      if (Date.now() - pokedAt >= POKE_EVERY_MS && !(await podsRunIn(core, name))) {
        pokedAt = Date.now();
        await pokeNamespace(core, name);
      }
      return false;
    },
    { what: `namespace ${name} to be deleted`, timeoutMs },
  );
}

/**
 * A namespace's pods gone, the namespace controller still waits out half their grace period (16 s
 * for the default 30) before it looks again, however soon they went; an update of the namespace makes
 * it look 5 s later instead. Most of an e2e test's teardown was that wait.
 */
const POKE_EVERY_MS = 6_000;

async function podsRunIn(core: CoreApi, namespace: string): Promise<boolean> {
  const { items } = await core.listNamespacedPod({ namespace });
  return items.some((pod) => pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed');
}

async function pokeNamespace(core: CoreApi, name: string): Promise<void> {
  await core
    .patchNamespace({
      name,
      body: { metadata: { annotations: { 'flux-operator.test/poked': String(Date.now()) } } },
    })
    .catch((err: unknown) => {
      if (httpStatus(err) !== 404) throw err;
    });
}

/**
 * Why a namespace is not gone yet: its status conditions (what remains, which finalizers) and its pods
 * (phase, since when they are being deleted, each container's state). Asked up to three times: a CI
 * run's one read of it met a dropped connection (`socket hang up`) and said nothing else.
 */
async function namespaceConditions(name: string): Promise<string> {
  const { core } = await cluster();
  return waitFor(
    async () => {
      const namespace = await core.readNamespace({ name });
      const said = (namespace.status?.conditions ?? [])
        .filter((condition) => condition.status === 'True')
        .map((condition) => `${condition.type}: ${condition.message ?? ''}`);
      const { items } = await core.listNamespacedPod({ namespace: name });
      const pods = items.map((pod) => {
        const deleting = pod.metadata?.deletionTimestamp
          ? `, deleted ${Math.round((Date.now() - new Date(pod.metadata.deletionTimestamp).getTime()) / 1000)} s ago`
          : '';
        const containers = (pod.status?.containerStatuses ?? [])
          .map((c) => `${c.name} ${Object.keys(c.state ?? {}).join('') || '?'}`)
          .join(', ');
        return `${pod.metadata?.name ?? '?'} (${pod.status?.phase ?? '?'}${deleting}; ${containers})`;
      });
      return [
        said.length > 0 ? said.join('; ') : `phase ${namespace.status?.phase ?? 'unknown'}, no condition`,
        `pods: ${pods.length > 0 ? pods.join('; ') : 'none'}`,
      ].join('; ');
    },
    // Three tries, 2 s apart.
    { what: `what namespace ${name} holds`, timeoutMs: 4_000, intervalMs: 2_000 },
  );
}

/** The label that allows a namespace host storage (hostpath, CSI), as `flux-operator install --allow-host-storage` sets it. */
export const HOST_STORAGE_ALLOWED_LABELS: Readonly<Record<string, string>> = {
  [HOST_STORAGE_LABEL]: HOST_STORAGE_ALLOWED,
};

/**
 * Creates a namespace unique to this test (named after it), waits until pods can be created in it
 * (its default ServiceAccount exists), and deletes it after the test, waiting until it is gone.
 * `hostStorage`: labelled to allow hostpath and CSI storage, which tests that use it ask for
 * explicitly (the operator and the admission policy refuse it elsewhere: docs/security.md).
 */
export async function withNamespace(
  t: TestContext,
  prefix = 't',
  options: { readonly hostStorage?: boolean } = {},
): Promise<string> {
  const { core } = await cluster();
  const slug = `${prefix}-${t.name}`
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .slice(0, 40)
    .replace(/-+$/, '');
  const name = `${slug}-${process.pid.toString(36)}${(counter++).toString(36)}`;
  await core.createNamespace({
    body: {
      metadata: {
        name,
        labels: {
          'flux-operator.test/owned': 'true',
          ...(options.hostStorage ? HOST_STORAGE_ALLOWED_LABELS : {}),
        },
      },
    },
  });
  t.after(async () => {
    if (process.env.FLUX_OPERATOR_KEEP_NAMESPACES === '1') return;
    const started = Date.now();
    try {
      // A bound for a hang: alone a namespace of real-node pods goes in 10 s, under a full CI run in
      // 36 to 42 s, and once (examples/connected.yaml's four brokers) in more than 120 s.
      await deleteNamespace(name, 180_000);
      const tookS = (Date.now() - started) / 1000;
      // Slow deletions are what fail tests under load: said in the log, to be seen before they do.
      if (tookS >= 30) process.stderr.write(`[namespace] ${name} took ${tookS.toFixed(0)} s to be deleted\n`);
    } catch (error) {
      // The hooks after this one (an operator's stop) would not run: stop them here, then fail.
      const remains = await namespaceConditions(name).catch((err: unknown) => describe(err));
      const late = await stopNamespaceUsers(name);
      const lateNote = late > 0 ? `; ${late} of its operators did not stop within 30 s` : '';
      throw new Error(`${describe(error)}; the namespace says: ${remains}${lateNote}`, { cause: error });
    }
  });
  await waitFor(() => core.readNamespacedServiceAccount({ name: 'default', namespace: name }), {
    what: `the default ServiceAccount in ${name}`,
  });
  return name;
}

/** Sets (merges) annotations on a pod. */
export async function annotatePod(
  core: CoreApi,
  namespace: string,
  name: string,
  annotations: Record<string, string>,
): Promise<void> {
  await core.patchNamespacedPod({ name, namespace, body: { metadata: { annotations } } });
}

/**
 * Makes every pod of a MiniCluster's Job exit with `code`: the workers first, then the lead broker
 * (index 0), whose success ends the Job and deletes the pods not yet finished.
 */
export async function finishPods(
  core: CoreApi,
  namespace: string,
  miniCluster: string,
  code: number,
): Promise<void> {
  const pods = (
    await core.listNamespacedPod({
      namespace,
      labelSelector: `flux-framework.org/minicluster=${miniCluster}`,
    })
  ).items;
  const index = (pod: (typeof pods)[number]) =>
    Number(pod.metadata?.labels?.[LABEL_JOB_COMPLETION_INDEX] ?? 0);
  for (const pod of pods.sort((a, b) => index(b) - index(a))) {
    try {
      await annotatePod(core, namespace, pod.metadata?.name ?? '', { [EXIT_CODE_ANNOTATION]: String(code) });
    } catch (error) {
      if (httpStatus(error) !== 404) throw error;
    }
  }
}

/** How long one call to the cluster may take in a test before it fails (see `within`). */
export const CALL_TIMEOUT_MS = 30_000;

/** `promise`, or a failure naming `what` when it has not settled within `timeoutMs`. */
export async function within<T>(what: string, promise: Promise<T>, timeoutMs = CALL_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
