/**
 * The conversion webhook as the operator runs it: its certificates (made, kept in their Secret,
 * renewed), its HTTPS server, a check that it answers where the API server will call it (its
 * Service, or its URL), and the MiniCluster CRD pointed at it. One pass does all four; the operator
 * makes one before its caches start and then one every `syncIntervalMs`. A pass writes (renews,
 * points the CRD) only when `mayWrite` says so (the first pass, then the leader): the standbys only
 * follow the Secret, so every replica serves the same certificate and none fights over the CRD.
 *
 * The CRD is pointed here only once this webhook answers there, so a new operator never trades a
 * webhook that works for one that does not (yet); with `leaveCrd` never (another webhook holds it:
 * tests that share one CRD). One that does not answer is logged with the reason. Once the CRD is
 * pointed here, a dry-run create of a v1alpha1 MiniCluster (api-server-check.ts) is repeated until the
 * API server converts it through this webhook: `apiServerConverts`, which `run` waits for before it
 * says it is ready (a newcomer's v1alpha1 manifest then applies). Stopping, it keeps
 * answering for `drainMs` (each connection closed after its answer) while the Service stops sending
 * to this pod, so the API server's conversions do not fail when a pod goes (a failover, a rollout).
 */
import { isIP } from 'node:net';
import type { Logger } from 'pino';
import { CONVERSION_WEBHOOK_PATH, CRD_NAME, type ConversionClientConfig } from '../../api/index.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiErrorCode, describeApiError, isConflict, isTransient } from '../../kube/api-errors.ts';
import type { Transport } from '../../kube/transport.ts';
import type { BindAddress } from '../../observability/health-server.ts';
import type { Runnable } from '../../runtime/runnable.ts';
import {
  createCertificateAuthority,
  issueServingCertificate,
  type CertificateAndKey,
  type CertificateHosts,
} from './certificates.ts';
import { CertificateSecret, type SecretState } from './certificate-secret.ts';
import { apiServerConverts } from './api-server-check.ts';
import { describeClientConfig, readCrdClientConfig, syncCrdClientConfig } from './crd-client-config.ts';
import type { MiniClusterConverter } from './review.ts';
import {
  DEFAULT_ROTATION_POLICY,
  planRotation,
  trustedFrom,
  validityFrom,
  type RotationPlan,
  type RotationPolicy,
  type StoredCertificates,
} from './rotation.ts';
import { ConversionWebhookServer, type WebhookServerOptions } from './server.ts';
import { webhookReach, type Reachability } from './service-probe.ts';

/** How soon a pass runs again while the webhook does not answer where the CRD would send conversions. */
const RETRY_SOON_MS = 2_000;
/**
 * Not answering is expected this long after the start (in cluster the Service sends nothing to a
 * pod before it is Ready): a debug line until then, a warning with the reason after.
 */
export const DEFAULT_START_GRACE_MS = 60_000;
/** An answer is trusted this long: passes (as often as every few hundred ms in tests) check no more. */
const REACH_RECHECK_MS = 10_000;
/**
 * The API server takes a CRD change in a second or a few after it is made (measured: 1-2 s on 2 busy
 * cores): the dry-run check is repeated this often for that long, then less often (doubling) while
 * it keeps failing.
 */
const CONVERSION_CHECK_MS = 250;
const CONVERSION_CHECK_FAST_FOR_MS = 10_000;
const CONVERSION_CHECK_MAX_MS = 5_000;

export const DEFAULT_SYNC_INTERVAL_MS = 60_000;
/** A pass this long is logged: renewals wait for it. */
const SLOW_PASS_MS = 5_000;
const CA_COMMON_NAME = 'flux-operator-webhook-ca';

export interface ConversionWebhookOptions {
  readonly transport: Transport;
  readonly log: Logger;
  readonly convert: MiniClusterConverter;
  /** Where to listen (`:9443` in the operator's pod; `127.0.0.1:0`, any free port, out of cluster). */
  readonly address: BindAddress;
  /**
   * In cluster: the Service the CRD sends conversions to (port 443 by default). Without it the CRD
   * gets `https://<urlHost>:<port>/convert`: the operator runs where the API server can reach it.
   */
  readonly service?: { readonly namespace: string; readonly name: string; readonly port?: number };
  /** The host of that URL; the listening address's host when it is one, else 127.0.0.1. */
  readonly urlHost?: string;
  /** The Secret of the certificates (the operator's namespace). */
  readonly secret: { readonly namespace: string; readonly name: string };
  readonly secretLabels?: Readonly<Record<string, string>>;
  readonly policy?: RotationPolicy;
  readonly syncIntervalMs?: number;
  readonly bodyLimitBytes?: number;
  /** Whether this replica may write (renew, patch the CRD) after its first pass: the leader. */
  readonly mayWrite?: () => boolean;
  /** Never point the CRD here: another webhook holds its conversions (`--leave-crd-conversion`). */
  readonly leaveCrd?: boolean;
  /** Stopping, keep answering this long (in cluster, while the Service stops sending here); 0 by default. */
  readonly drainMs?: number;
  /** See DEFAULT_START_GRACE_MS. */
  readonly startGraceMs?: number;
  readonly onReview?: WebhookServerOptions['onReview'];
  /** The clock (tests of renewal). */
  readonly now?: () => Date;
}

function urlHostOf(options: ConversionWebhookOptions): string {
  if (options.urlHost) return options.urlHost;
  const host = options.address.host;
  return host === undefined || host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
}

/** The names the serving certificate must carry: the Service's DNS names, or the URL's host. */
export function servingHosts(
  options: Pick<ConversionWebhookOptions, 'service' | 'urlHost' | 'address'>,
): CertificateHosts {
  if (options.service) {
    const { namespace, name } = options.service;
    return {
      dnsNames: [
        name,
        `${name}.${namespace}`,
        `${name}.${namespace}.svc`,
        `${name}.${namespace}.svc.cluster.local`,
      ],
      ipAddresses: [],
    };
  }
  const host = urlHostOf(options as ConversionWebhookOptions);
  return isIP(host) ? { dnsNames: [], ipAddresses: [host] } : { dnsNames: [host], ipAddresses: [] };
}

function bundleOf(pems: readonly string[]): string {
  return pems.map((pem) => (pem.endsWith('\n') ? pem : `${pem}\n`)).join('');
}

export class ConversionWebhook implements Runnable {
  private readonly options: ConversionWebhookOptions;
  private readonly log: Logger;
  private readonly secret: CertificateSecret;
  private readonly server: ConversionWebhookServer;
  private readonly policy: RotationPolicy;
  private readonly hosts: CertificateHosts;
  private timer: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** The CA bundle of the certificate served (what the CRD's caBundle must hold). */
  private caBundle: string | undefined;
  /** The last problem logged, so that one lasting many passes is logged once. */
  private lastProblem: string | undefined;
  private waitingLogged = false;
  private stopped = false;
  private startedAt = 0;
  /** Whether it has answered where the CRD would send conversions since the start. */
  private answeredOnce = false;
  /** When the webhook last answered where the CRD would send conversions. */
  private answeredAt = Number.NEGATIVE_INFINITY;
  /** The reason last logged for not answering (a new reason is logged again). */
  private unreachableLogged: string | undefined;
  private leaveLogged = false;
  /** When the drain ends, once stopping began. */
  private drainUntil: number | undefined;
  /** Reviews of at least one object answered: the API server's (the self-check sends none). */
  private objectReviews = 0;
  /** When the API server was first seen converting through this webhook (see apiServerConverts). */
  private convertedAt: number | undefined;
  private checking: Promise<void> | undefined;
  private halt = new AbortController();
  /** Why the API server is not seen converting here yet, in words an error line can carry. */
  private notConverting = 'the conversion webhook has not made its first pass';

  constructor(options: ConversionWebhookOptions) {
    this.options = options;
    this.log = options.log.child({ component: 'conversion-webhook' });
    this.policy = options.policy ?? DEFAULT_ROTATION_POLICY;
    this.hosts = servingHosts(options);
    this.secret = new CertificateSecret({
      transport: options.transport,
      namespace: options.secret.namespace,
      name: options.secret.name,
      labels: options.secretLabels ?? {},
    });
    this.server = new ConversionWebhookServer({
      convert: options.convert,
      ...(options.bodyLimitBytes === undefined ? {} : { bodyLimitBytes: options.bodyLimitBytes }),
      onReview: (event) => {
        if (event.result === 'failure') {
          this.log.warn(
            {
              uid: event.uid,
              desiredAPIVersion: event.desiredAPIVersion,
              objects: event.objects,
              object: event.failure?.object,
              error: event.failure?.message,
            },
            'a conversion failed',
          );
        } else if (event.result === 'invalid') {
          this.log.warn({ error: event.message }, 'refused a request that is not a ConversionReview');
        }
        if (event.objects > 0) this.objectReviews += 1;
        options.onReview?.(event);
      },
    });
  }

  /** Serving a certificate and not draining: what /readyz checks. */
  get ready(): boolean {
    return this.server.listening && this.server.certificate !== undefined && this.drainUntil === undefined;
  }

  get port(): number | undefined {
    return this.server.port;
  }

  /**
   * The API server has converted a v1alpha1 MiniCluster (a dry-run create) through this webhook since
   * it pointed the CRD here. A replica that does not point the CRD (a standby past its first pass,
   * or `leaveCrd`) asks only that the API server converts, through the webhook the CRD names. Once true,
   * it stays true: later trouble is logged by the passes.
   */
  get apiServerConverts(): boolean {
    return this.convertedAt !== undefined;
  }

  /** Why `apiServerConverts` is false (what did not answer), for the line that gives up waiting. */
  get conversionProblem(): string {
    return this.notConverting;
  }

  /** Where the CRD sends conversions to reach this replica. */
  clientConfig(): ConversionClientConfig | undefined {
    if (this.caBundle === undefined) return undefined;
    const caBundle = Buffer.from(this.caBundle).toString('base64');
    if (this.options.service) {
      const { namespace, name, port } = this.options.service;
      return { service: { namespace, name, path: CONVERSION_WEBHOOK_PATH, port: port ?? 443 }, caBundle };
    }
    const port = this.server.port;
    if (port === undefined) return undefined;
    const host = urlHostOf(this.options);
    const authority = isIP(host) === 6 ? `[${host}]` : host;
    return { url: `https://${authority}:${port}${CONVERSION_WEBHOOK_PATH}`, caBundle };
  }

  /** The certificate served now (tests compare it across a renewal). */
  get servedCertificate(): string | undefined {
    return this.server.certificate?.certificate;
  }

  /** A first pass that may write, then one every interval. Rejects only when it cannot listen. */
  async start(): Promise<void> {
    this.stopped = false;
    this.halt = new AbortController();
    this.startedAt = Date.now();
    await this.sync(true);
    const interval = this.options.syncIntervalMs ?? DEFAULT_SYNC_INTERVAL_MS;
    this.timer = setInterval(() => {
      this.sync(this.options.mayWrite?.() ?? true).catch(() => undefined);
    }, interval);
    this.timer.unref();
  }

  /**
   * Stopping soon: answer for `drainMs` more, each connection closed after its answer, no longer
   * ready. Called first thing on SIGTERM, so the drain runs while the rest of the operator stops.
   */
  beginDrain(): void {
    const drainMs = this.options.drainMs ?? 0;
    if (drainMs <= 0 || this.drainUntil !== undefined || !this.server.listening) return;
    this.drainUntil = Date.now() + drainMs;
    this.server.drain();
    this.log.info(
      { drainMs },
      'stopping: the conversion webhook answers a little longer, closing each connection after its answer',
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.halt.abort();
    await this.checking;
    if (this.timer) clearInterval(this.timer);
    if (this.retry) clearTimeout(this.retry);
    this.timer = undefined;
    this.retry = undefined;
    await this.running?.catch(() => undefined);
    this.beginDrain();
    const left = (this.drainUntil ?? 0) - Date.now();
    if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
    await this.server.close();
  }

  /** One pass (passes never overlap). Rejects only when the server cannot listen. */
  sync(mayWrite: boolean): Promise<void> {
    if (this.running) return this.running;
    const started = Date.now();
    this.running = this.pass(mayWrite).finally(() => {
      this.running = undefined;
      const tookMs = Date.now() - started;
      // Passes are due every interval: one this slow delays renewals (a busy API server, a starved
      // process). Said at info: it is no problem by itself, and a loaded machine makes some.
      if (tookMs >= SLOW_PASS_MS) this.log.info({ tookMs, mayWrite }, 'a conversion webhook pass was slow');
    });
    return this.running;
  }

  private async pass(mayWrite: boolean): Promise<void> {
    let state: SecretState;
    try {
      state = await this.secret.read();
      if (mayWrite) state = await this.renewIfDue(state);
    } catch (error) {
      // Unreachable: the manager's outage line says it; refused (403, say): an error, once.
      this.problem(
        isTransient(error) ? 'warn' : 'error',
        `cannot read or write the conversion webhook's certificate Secret ${this.secret.namespace}/${this.secret.name}: ` +
          describeApiError(error),
      );
      return;
    }
    if (this.stopped) return;
    const stored = state.stored;
    if (!stored) {
      this.notConverting = `no webhook certificate yet: waiting for the leader to make it in the Secret ${this.secret.namespace}/${this.secret.name}`;
      if (!this.waitingLogged) {
        this.log.info(
          { secret: `${this.secret.namespace}/${this.secret.name}` },
          'waiting for the leader to make the webhook certificate',
        );
        this.waitingLogged = true;
      }
      return;
    }
    await this.serve({ certificate: stored.certificate, key: stored.key });
    this.caBundle = stored.caBundle;
    const reach = await this.checkReach();
    const pointing = mayWrite && !this.options.leaveCrd;
    if (this.options.leaveCrd) await this.sayLeft();
    if (!pointing || (await this.pointCrd(reach))) this.checkConversion(pointing);
    else if (this.starting()) this.soon();
  }

  private starting(): boolean {
    return Date.now() - this.startedAt < (this.options.startGraceMs ?? DEFAULT_START_GRACE_MS);
  }

  /**
   * Dry-run creates of a v1alpha1 MiniCluster until one is converted (through this webhook, when it
   * pointed the CRD here: a review of it answered meanwhile), sooner at first; one at a time, until
   * it succeeds once or the webhook stops.
   */
  private checkConversion(throughThis: boolean): void {
    if (this.convertedAt !== undefined || this.checking || this.stopped) return;
    const where = describeClientConfig(this.clientConfig());
    this.checking = (async () => {
      const began = Date.now();
      for (let waitMs = CONVERSION_CHECK_MS; !this.stopped;) {
        const reviewsBefore = this.objectReviews;
        const check = await apiServerConverts(this.options.transport, this.options.secret.namespace);
        if (check.ok && (!throughThis || this.objectReviews > reviewsBefore)) {
          this.convertedAt = Date.now();
          this.log.info(
            { webhook: where, secondsSinceStart: (this.convertedAt - this.startedAt) / 1000 },
            throughThis
              ? 'the API server converts MiniClusters through this webhook'
              : 'the API server converts MiniClusters (through the webhook the CRD names)',
          );
          return;
        }
        this.notConverting = check.ok
          ? `the API server converted a v1alpha1 MiniCluster through another webhook than ${where}, which the CRD names now`
          : `the API server did not convert a v1alpha1 MiniCluster (a dry-run create in ${this.options.secret.namespace})` +
            `${throughThis ? ` through ${where}` : ''}: ${check.reason}`;
        this.log.debug(
          { webhook: where, problem: this.notConverting },
          'the API server does not convert yet',
        );
        // Without the right it will not come by waiting: the next pass asks again.
        if (!check.ok && check.failure === 'forbidden') return;
        await sleep(waitMs, undefined, { signal: this.halt.signal }).catch(() => undefined);
        if (Date.now() - began >= CONVERSION_CHECK_FAST_FOR_MS) {
          waitMs = Math.min(waitMs * 2, CONVERSION_CHECK_MAX_MS);
        }
      }
    })().finally(() => {
      this.checking = undefined;
    });
  }

  /**
   * Whether this webhook answers where the CRD would send conversions to reach it (its Service as
   * the API server reaches it, or its URL), logged when that changes: not answering, with the
   * reason (a warning once the start is past), and answering again.
   */
  private async checkReach(): Promise<Reachability> {
    const desired = this.clientConfig();
    if (!desired) return { ok: false, reason: 'no certificate yet' };
    if (Date.now() - this.answeredAt < REACH_RECHECK_MS) return { ok: true };
    const reach = await webhookReach(this.options.transport, desired);
    const where = describeClientConfig(desired);
    if (reach.ok) {
      if (this.unreachableLogged !== undefined) {
        this.log.info({ webhook: where }, 'the conversion webhook answers again');
      }
      this.answeredOnce = true;
      this.answeredAt = Date.now();
      this.unreachableLogged = undefined;
      return reach;
    }
    this.notConverting = `the conversion webhook does not answer at ${where}: ${reach.reason}`;
    if (!this.answeredOnce && this.starting()) {
      this.log.debug({ webhook: where, reason: reach.reason }, 'the conversion webhook does not answer yet');
      this.soon();
    } else if (this.unreachableLogged !== reach.reason) {
      this.unreachableLogged = reach.reason;
      this.log.warn(
        { webhook: where, reason: reach.reason },
        `the conversion webhook does not answer at ${where}: ${reach.reason}; ` +
          `the API server cannot convert MiniClusters through it`,
      );
    }
    return reach;
  }

  /** Once: where the CRD sends conversions, left as it is. */
  private async sayLeft(): Promise<void> {
    if (this.leaveLogged) return;
    try {
      const current = await readCrdClientConfig(this.options.transport);
      this.log.info(
        { crdWebhook: describeClientConfig(current) },
        `leaving the ${CRD_NAME} conversion webhook as it is (--leave-crd-conversion)`,
      );
      this.leaveLogged = true;
    } catch (error) {
      this.problem('warn', `cannot read the ${CRD_NAME} CRD: ${describeApiError(error)}`);
    }
  }

  private async serve(pair: CertificateAndKey): Promise<void> {
    if (this.server.listening) {
      if (this.server.certificate?.certificate !== pair.certificate) {
        this.server.useCertificate(pair);
        this.log.info({}, 'serving the renewed webhook certificate');
      }
      return;
    }
    const { host, port } = this.options.address;
    try {
      await this.server.listen(this.options.address, pair);
    } catch (error) {
      const where = `${host ?? ''}:${port}`;
      const code = (error as { code?: unknown }).code;
      const message =
        `cannot serve the conversion webhook on ${where}: ${(error as Error).message}` +
        (code === 'EADDRINUSE' ? '; pass --webhook-addr with a free port (or :0 for any)' : '');
      this.log.error({ address: where, code }, message);
      throw new Error(message, { cause: error });
    }
    this.log.info({ port: this.server.port, hosts: this.hosts }, 'serving the conversion webhook');
  }

  /** Makes what the plan says (a new CA is trusted before anything it signs is served: rotateCa). */
  private async renewIfDue(state: SecretState): Promise<SecretState> {
    const now = this.options.now?.() ?? new Date();
    const plan = planRotation(state.stored, this.hosts, now, this.policy);
    if (plan.ca === 'keep' && !plan.issueServing) return state;
    try {
      return await this.renew(state, plan, now);
    } catch (error) {
      if (!isConflict(error)) throw error;
      this.log.debug({}, 'another replica wrote the webhook certificate first; using it');
      return this.secret.read();
    }
  }

  private async renew(state: SecretState, plan: RotationPlan, now: Date): Promise<SecretState> {
    if (plan.ca === 'rotate' && state.stored) return this.rotateCa(state, state.stored, plan, now);
    let ca: CertificateAndKey;
    let bundle: string[];
    if (plan.ca === 'keep' && state.stored) {
      ca = { certificate: plan.keptBundle[0] ?? '', key: state.stored.caKey };
      bundle = [...plan.keptBundle];
    } else {
      ca = await createCertificateAuthority(CA_COMMON_NAME, validityFrom(now, this.policy.caValidityMs));
      bundle = [ca.certificate];
    }
    const serving = await this.issueServing(ca, now, plan);
    const stored = { caBundle: bundleOf(bundle), caKey: ca.key, ...serving };
    return { stored, resourceVersion: await this.secret.write(stored, state.resourceVersion) };
  }

  /**
   * A new CA joins the bundle (the CRD's too) beside the old one, and signs nothing served yet: the
   * pair served stays (or is renewed by the old CA, whose key is at hand this once) until the new CA
   * has been trusted `trustDelayMs` (planRotation).
   */
  private async rotateCa(
    state: SecretState,
    current: StoredCertificates,
    plan: RotationPlan,
    now: Date,
  ): Promise<SecretState> {
    const oldCa = { certificate: plan.keptBundle[0] ?? '', key: current.caKey };
    const serving = plan.issueServing
      ? await this.issueServing(oldCa, now, plan)
      : { certificate: current.certificate, key: current.key };
    const ca = await createCertificateAuthority(CA_COMMON_NAME, validityFrom(now, this.policy.caValidityMs));
    const stored = { caBundle: bundleOf([ca.certificate, ...plan.keptBundle]), caKey: ca.key, ...serving };
    const resourceVersion = await this.secret.write(stored, state.resourceVersion);
    this.log.info(
      { reasons: plan.reasons, signsFrom: trustedFrom(ca.certificate, this.policy).toISOString() },
      'made a new webhook CA; the old one stays trusted until it expires, and the new one signs the ' +
        'serving certificate once the API server has trusted it a while',
    );
    this.caBundle = stored.caBundle;
    // Left to another webhook, the CRD trusts nothing of ours; else the new bundle goes there now.
    if (!this.options.leaveCrd) await this.pointCrd();
    return { stored, resourceVersion };
  }

  private async issueServing(
    ca: CertificateAndKey,
    now: Date,
    plan: RotationPlan,
  ): Promise<CertificateAndKey> {
    const validity = validityFrom(now, this.policy.servingValidityMs);
    const serving = await issueServingCertificate(ca, this.hosts, validity);
    this.log.info(
      {
        reasons: plan.reasons,
        hosts: this.hosts,
        notAfter: validity.notAfter.toISOString(),
        secret: `${this.secret.namespace}/${this.secret.name}`,
      },
      'issued the webhook serving certificate',
    );
    return serving;
  }

  /**
   * A pass soon (once; not after stop): one that may write when this replica may (the first pass runs
   * before the election), else one that only checks again, which asks for the next while it has to.
   */
  private soon(): void {
    if (this.retry || this.stopped) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.sync(this.options.mayWrite?.() ?? true).catch(() => undefined);
    }, RETRY_SOON_MS);
    this.retry.unref();
  }

  /**
   * Points the CRD at this webhook, away from another only when this one answers (`reach`, or a
   * fresh check); false (and a log line saying why) when it cannot.
   */
  private async pointCrd(reach?: Reachability): Promise<boolean> {
    const desired = this.clientConfig();
    if (!desired) return false;
    if (this.options.leaveCrd) return false;
    try {
      const outcome = await syncCrdClientConfig(
        this.options.transport,
        desired,
        async () => (reach ?? (await this.checkReach())).ok,
      );
      if (outcome.kind === 'deferred') {
        // Not answering there yet (checkReach said why): the CRD keeps the webhook it has, for now.
        this.notConverting = `the CRD still sends conversions to ${outcome.current}: ${this.notConverting}`;
        this.log.debug(
          { current: outcome.current },
          'the conversion webhook does not answer yet; pointing the CRD at it later',
        );
        this.soon();
        return false;
      }
      if (outcome.kind === 'patched') {
        this.log.info(
          { webhook: describeClientConfig(desired), was: outcome.from },
          `pointed the ${CRD_NAME} conversion webhook at this operator`,
        );
      } else if (outcome.kind === 'no-webhook') {
        this.problem(
          'warn',
          `the ${CRD_NAME} CRD does not convert through a webhook (a CRD from before v1alpha2?): apply the current one (flux-operator install)`,
        );
        return false;
      }
      this.lastProblem = undefined;
      return true;
    } catch (error) {
      const code = apiErrorCode(error);
      if (code === 404) {
        this.problem('warn', `the ${CRD_NAME} CRD is not installed: install it (flux-operator install)`);
      } else if (code === 403) {
        this.problem(
          'error',
          `cannot point the ${CRD_NAME} conversion webhook at this operator: ${describeApiError(error)}; ` +
            `its ClusterRole needs get and patch on customresourcedefinitions named ${CRD_NAME}`,
        );
      } else {
        this.problem(
          'warn',
          `cannot point the ${CRD_NAME} conversion webhook at this operator: ${describeApiError(error)}`,
        );
      }
      return false;
    }
  }

  /** A problem, logged when it is new (not at every pass while it lasts). */
  private problem(level: 'warn' | 'error', message: string): void {
    this.notConverting = message;
    if (this.lastProblem === message) return;
    this.lastProblem = message;
    this.log[level]({}, message);
  }
}
