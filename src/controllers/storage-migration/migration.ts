/**
 * The storage-version migration, a leader-only runnable: once per leadership, when the MiniCluster
 * CRD's `status.storedVersions` still lists a version besides the storage version (a cluster upgraded
 * from the v1alpha1-only CRD), it rewrites every MiniCluster with a no-op update, paced, then sets
 * storedVersions to the storage version alone, so that v1alpha1 can one day leave the CRD. Watching
 * some namespaces only, it rewrites theirs and leaves storedVersions as it is (objects elsewhere may
 * still be stored as v1alpha1). The decisions are plan.ts's; the conversion webhook, which every
 * rewrite of a v1alpha1-stored object goes through, starts before the leader-only runnables.
 *
 * An attempt that cannot finish (the CRD not upgraded yet, the webhook not answering, the RBAC
 * refusing, an object refused) is tried again later, less and less often, while this replica leads.
 */
import type { Logger } from 'pino';
import { CRD_NAME, GROUP, PLURAL } from '../../api/index.ts';
import { VERSION } from '../../api/index.ts';
import { collectionPath } from '../../kube/api-clients.ts';
import { apiErrorCode, describeApiError } from '../../kube/api-errors.ts';
import type { Transport } from '../../kube/transport.ts';
import type { Runnable } from '../../runtime/runnable.ts';
import { planStorageMigration, retryDelayMs, rewriteOutcome, type CrdVersions } from './plan.ts';

const CRD_PATH = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`;
const LIST_PAGE = 250;
const REQUEST_TIMEOUT_MS = 10_000;
const LIST_TIMEOUT_MS = 30_000;

export const DEFAULT_REWRITES_PER_SECOND = 10;
export const DEFAULT_RETRY_MS = 60_000;
const MAX_RETRY_MS = 60 * 60_000;

export interface StorageMigrationOptions {
  readonly transport: Transport;
  readonly log: Logger;
  /** The namespaces the operator watches; empty: all (only then is storedVersions rewritten). */
  readonly namespaces: readonly string[];
  /** At most this many rewrites a second (one at a time). */
  readonly rewritesPerSecond?: number;
  /** The first wait after an attempt that could not finish; it doubles up to an hour. */
  readonly retryMs?: number;
}

interface MiniClusterItem {
  apiVersion?: string;
  kind?: string;
  metadata?: { namespace?: string; name?: string; resourceVersion?: string };
}

interface MiniClusterPage {
  items?: MiniClusterItem[];
  metadata?: { continue?: string };
}

/** Why an attempt ended without finishing: logged, then tried again later. */
class AttemptStopped extends Error {}

interface Tally {
  listed: number;
  /** Re-encoded: the update wrote (its resourceVersion changed). */
  rewritten: number;
  /** Already stored as the storage version: the update wrote nothing. */
  unchanged: number;
  conflicts: number;
  gone: number;
  refused: number;
}

export class StorageVersionMigration implements Runnable {
  private readonly options: StorageMigrationOptions;
  private readonly log: Logger;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private failures = 0;
  private waitingLogged = false;

  constructor(options: StorageMigrationOptions) {
    this.options = options;
    this.log = options.log.child({ component: 'storage-migration' });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.failures = 0;
    this.waitingLogged = false;
    this.schedule(0);
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.attempt().then(
        (result) => {
          if (result === 'done') return;
          // Waiting for the CRD's upgrade: checked at the base interval, a GET each time.
          if (result === 'waiting') {
            this.schedule(this.options.retryMs ?? DEFAULT_RETRY_MS);
            return;
          }
          this.failures += 1;
          this.schedule(retryDelayMs(this.failures, this.options.retryMs ?? DEFAULT_RETRY_MS, MAX_RETRY_MS));
        },
        (error: unknown) => {
          // An AttemptStopped was logged where it stopped.
          if (!(error instanceof AttemptStopped)) {
            this.log.warn(
              { error: describeApiError(error) },
              `storage-version migration failed: ${describeApiError(error)}; trying again later`,
            );
          }
          this.failures += 1;
          this.schedule(retryDelayMs(this.failures, this.options.retryMs ?? DEFAULT_RETRY_MS, MAX_RETRY_MS));
        },
      );
    }, delayMs);
    this.timer.unref();
  }

  /**
   * One attempt: `done` when there is nothing more to do while this replica leads, `waiting` for the
   * CRD's upgrade, `failed` (logged) to try again later.
   */
  private async attempt(): Promise<'done' | 'waiting' | 'failed'> {
    const crd = await this.readCrd();
    if (!crd) return 'failed';
    const watchesAll = this.options.namespaces.length === 0;
    const plan = planStorageMigration(crd.versions, VERSION, watchesAll);
    if (plan.kind === 'current') {
      this.log.debug({}, `${CRD_NAME} stores every MiniCluster as ${VERSION}: no migration`);
      return 'done';
    }
    if (plan.kind === 'crd-not-upgraded') {
      if (!this.waitingLogged) {
        this.waitingLogged = true;
        this.log.info(
          { storageVersion: plan.storageVersion },
          `the ${CRD_NAME} CRD stores ${plan.storageVersion ?? 'no version'}, not ${VERSION}: ` +
            'the storage-version migration waits for the current CRD (flux-operator install)',
        );
      }
      return 'waiting';
    }
    const started = performance.now();
    const tally = await this.rewriteAll();
    const seconds = Number(((performance.now() - started) / 1000).toFixed(2));
    const figures = { ...tally, seconds, storedVersions: crd.storedVersions };
    if (tally.refused > 0) {
      this.log.warn(
        figures,
        `storage-version migration: ${tally.refused} MiniCluster(s) refused (each logged above); ` +
          `status.storedVersions keeps ${plan.stale.join(', ')} until they are fixed or deleted; trying again later`,
      );
      return 'failed';
    }
    const after = plan.storedVersionsAfter;
    if (after === undefined) {
      this.log.info(
        { ...figures, namespaces: this.options.namespaces },
        `storage-version migration: rewrote ${tally.rewritten} of ${tally.listed} MiniClusters in the watched ` +
          `namespaces (${this.options.namespaces.join(', ')}) in ${seconds} s; status.storedVersions stays ` +
          `[${crd.storedVersions.join(', ')}]: this operator watches only these namespaces, and MiniClusters ` +
          `elsewhere may still be stored as ${plan.stale.join(', ')} (an operator watching every namespace completes it)`,
      );
      return 'done';
    }
    // Read again just before: the patch holds only if the CRD has not changed since (its storage
    // version above all), and the rewrites may have taken minutes.
    const fresh = await this.readCrd();
    if (!fresh) return 'failed';
    const again = planStorageMigration(fresh.versions, VERSION, watchesAll);
    if (again.kind !== 'migrate') return again.kind === 'current' ? 'done' : 'waiting';
    await this.setStoredVersions(after, fresh.resourceVersion);
    this.log.info(
      { ...figures, storedVersions: after },
      `storage-version migration: rewrote ${tally.rewritten} of ${tally.listed} MiniClusters in ${seconds} s ` +
        `(${tally.unchanged} already stored as ${VERSION}, ${tally.conflicts} written meanwhile, ` +
        `${tally.gone} gone); status.storedVersions is now [${after.join(', ')}] (was ` +
        `[${crd.storedVersions.join(', ')}]): ${plan.stale.join(', ')} may be removed from the CRD`,
    );
    return 'done';
  }

  /** The CRD's versions; undefined (and a line saying why) when it cannot be read. */
  private async readCrd(): Promise<
    | { versions: CrdVersions; storedVersions: readonly string[]; resourceVersion: string | undefined }
    | undefined
  > {
    try {
      const crd = await this.options.transport.request<
        CrdVersions & { metadata?: { resourceVersion?: string } }
      >('GET', CRD_PATH, { timeoutMs: REQUEST_TIMEOUT_MS });
      return {
        versions: crd,
        storedVersions: crd.status?.storedVersions ?? [],
        resourceVersion: crd.metadata?.resourceVersion,
      };
    } catch (error) {
      const code = apiErrorCode(error);
      const fix =
        code === 403
          ? `; its ClusterRole needs get on customresourcedefinitions named ${CRD_NAME}`
          : code === 404
            ? ': install it (flux-operator install)'
            : '';
      this.log.warn(
        { error: describeApiError(error) },
        `storage-version migration: cannot read the ${CRD_NAME} CRD: ${describeApiError(error)}${fix}; trying again later`,
      );
      return undefined;
    }
  }

  /** Lists the MiniClusters (a page at a time) and rewrites each; throws AttemptStopped to stop. */
  private async rewriteAll(): Promise<Tally> {
    const tally: Tally = { listed: 0, rewritten: 0, unchanged: 0, conflicts: 0, gone: 0, refused: 0 };
    const spacingMs = 1000 / (this.options.rewritesPerSecond ?? DEFAULT_REWRITES_PER_SECOND);
    const namespaces = this.options.namespaces.length === 0 ? [undefined] : this.options.namespaces;
    let last = Number.NEGATIVE_INFINITY;
    for (const namespace of namespaces) {
      const path = collectionPath(`/apis/${GROUP}/${VERSION}`, PLURAL, namespace);
      let next: string | undefined;
      do {
        const page = await this.options.transport.request<MiniClusterPage>('GET', path, {
          query: { limit: LIST_PAGE, ...(next ? { continue: next } : {}) },
          timeoutMs: LIST_TIMEOUT_MS,
        });
        for (const item of page.items ?? []) {
          if (!this.running) throw new AttemptStopped('no longer leading');
          const wait = last + spacingMs - performance.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          last = performance.now();
          tally.listed += 1;
          await this.rewrite(item, tally);
        }
        next = page.metadata?.continue || undefined;
      } while (next);
    }
    return tally;
  }

  /** One no-op update: the object as read, with its resourceVersion. */
  private async rewrite(item: MiniClusterItem, tally: Tally): Promise<void> {
    const { namespace, name, resourceVersion } = item.metadata ?? {};
    if (!namespace || !name) return;
    const path = `${collectionPath(`/apis/${GROUP}/${VERSION}`, PLURAL, namespace)}/${name}`;
    let code: number | undefined = 200;
    let error: unknown;
    let written: MiniClusterItem | undefined;
    try {
      written = await this.options.transport.request<MiniClusterItem>('PUT', path, {
        body: { ...item, apiVersion: `${GROUP}/${VERSION}`, kind: item.kind ?? 'MiniCluster' },
        timeoutMs: REQUEST_TIMEOUT_MS,
      });
    } catch (thrown) {
      error = thrown;
      code = apiErrorCode(thrown);
    }
    const outcome = rewriteOutcome(code, error === undefined ? '' : describeApiError(error));
    const object = `${namespace}/${name}`;
    switch (outcome) {
      case 'rewritten':
        if (written?.metadata?.resourceVersion === resourceVersion) tally.unchanged += 1;
        else tally.rewritten += 1;
        return;
      case 'conflict':
        tally.conflicts += 1;
        return;
      case 'gone':
        tally.gone += 1;
        return;
      case 'refused':
        tally.refused += 1;
        this.log.error(
          { namespace, name, error: describeApiError(error) },
          `storage-version migration: the API server refuses to rewrite MiniCluster ${object}: ` +
            `${describeApiError(error)}; fix the object (kubectl edit) or delete it, and the operator tries again`,
        );
        return;
      case 'forbidden':
        this.log.error(
          { namespace, name, error: describeApiError(error) },
          `storage-version migration: cannot rewrite MiniCluster ${object}: ${describeApiError(error)}; ` +
            `the operator's ClusterRole needs update on ${PLURAL}.${GROUP}`,
        );
        throw new AttemptStopped('forbidden');
      case 'retry':
        this.log.warn(
          { namespace, name, error: describeApiError(error) },
          `storage-version migration: rewriting MiniCluster ${object} failed: ${describeApiError(error)}` +
            (describeApiError(error).includes('conversion webhook')
              ? ' (the API server cannot reach the conversion webhook yet: the operator points the CRD at itself once it answers)'
              : '') +
            '; trying again later',
        );
        throw new AttemptStopped('retry');
    }
  }

  /** Patches the CRD's status: storedVersions as given, if the CRD is still the one read. */
  private async setStoredVersions(
    storedVersions: readonly string[],
    resourceVersion: string | undefined,
  ): Promise<void> {
    try {
      await this.options.transport.request('PATCH', `${CRD_PATH}/status`, {
        body: {
          metadata: resourceVersion === undefined ? {} : { resourceVersion },
          status: { storedVersions },
        },
        contentType: 'application/merge-patch+json',
        timeoutMs: REQUEST_TIMEOUT_MS,
      });
    } catch (error) {
      const code = apiErrorCode(error);
      const fix =
        code === 403
          ? `; the operator's ClusterRole needs patch on customresourcedefinitions/status named ${CRD_NAME}`
          : code === 409
            ? ' (the CRD changed since it was read)'
            : '';
      this.log.error(
        { error: describeApiError(error) },
        `storage-version migration: cannot set the ${CRD_NAME} CRD's status.storedVersions to ` +
          `[${storedVersions.join(', ')}]: ${describeApiError(error)}${fix}; trying again later`,
      );
      throw new AttemptStopped('status');
    }
  }
}
