/**
 * The MiniCluster CRD's conversion as `flux-operator install` leaves it without the operator's
 * Deployment (nothing of the install serves the webhook). A webhook the API server converts through
 * now is kept (an operator run out of cluster, or one installed before). Otherwise the CRD converts
 * nothing and serves only its storage version (crd-conversion-strategy.ts) until an operator points
 * it at itself, unless some MiniCluster may still be stored in another version: read unconverted,
 * it would be misread, so the CRD keeps a webhook (its Service) and the install says it must run.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { GROUP, KIND, type ConversionClientConfig } from '../../api/index.ts';
import { apiErrorCode, isNotFound } from '../../kube/api-errors.ts';
import type { Transport } from '../../kube/transport.ts';
import { apiServerConverts, type ApiServerConversion } from './api-server-check.ts';
import { describeClientConfig, patchCrdConversion, readCrd } from './crd-client-config.ts';
import {
  convertsThroughWebhook,
  storageVersion,
  storedOnlyAs,
  toNoWebhookPatch,
  withoutWebhook,
  type CrdConversionView,
} from './crd-conversion-strategy.ts';

export type InstalledConversion =
  /** The API server converts through the live webhook: kept. */
  | { readonly kind: 'kept'; readonly webhook: string }
  /** A live webhook whose conversions could not be checked (access, load): kept, as the safe side. */
  | { readonly kind: 'unchecked'; readonly webhook: string; readonly reason: string }
  /** Converting nothing: only `served` is served (not `unserved`) until an operator points the CRD at itself. */
  | { readonly kind: 'none'; readonly served: readonly string[]; readonly unserved: readonly string[] }
  /** MiniClusters may be stored as `stored`: the CRD names `webhook`, which nothing serves yet. */
  | { readonly kind: 'needs-operator'; readonly webhook: string; readonly stored: readonly string[] };

/** A webhook failing now may be one being replaced: asked this many times, this far apart. */
const CHECK_ATTEMPTS = 3;
const CHECK_RETRY_MS = 1_000;

async function converts(transport: Transport, namespace: string): Promise<ApiServerConversion> {
  let check = await apiServerConverts(transport, namespace);
  for (let attempt = 1; !check.ok && attempt < CHECK_ATTEMPTS; attempt++) {
    await sleep(CHECK_RETRY_MS);
    check = await apiServerConverts(transport, namespace);
  }
  return check;
}

/**
 * The live CRD; undefined when there is none, or when this user may not read it: then the install's
 * apply of the CRD is what fails, with the one line that names the right it lacks.
 */
async function readLive(transport: Transport): Promise<CrdConversionView | undefined> {
  try {
    return await readCrd(transport);
  } catch (error) {
    if (isNotFound(error) || apiErrorCode(error) === 403) return undefined;
    throw error;
  }
}

/**
 * The CRD to apply in place of `crd` (the install's, pointing at its Service) when no Deployment
 * comes with it, and what it means; `namespace` (which must exist) is where the dry-run check runs.
 * A live CRD turned away from a webhook that does not convert is patched here, before the apply:
 * server-side apply would leave the webhook fields another manager (the operator) set.
 */
export async function crdWithoutOperator<T extends object>(
  transport: Transport,
  crd: T & CrdConversionView,
  namespace: string,
): Promise<{ readonly crd: T; readonly conversion: InstalledConversion }> {
  const live = await readLive(transport);
  const liveWebhook = live?.spec?.conversion?.webhook?.clientConfig;
  if (live && convertsThroughWebhook(live)) {
    const check = await converts(transport, namespace);
    const webhook = describeClientConfig(liveWebhook);
    if (check.ok) return { crd, conversion: { kind: 'kept', webhook } };
    // Not the webhook failing, nor v1alpha1 unserved: whether it converts is unknown, so it stays.
    if (check.failure === 'other' || check.failure === 'forbidden') {
      return { crd, conversion: { kind: 'unchecked', webhook, reason: check.reason } };
    }
  }
  if (live && !storedOnlyAs(live, storageVersion(crd))) {
    const webhook = describeClientConfig(liveWebhook ?? crd.spec?.conversion?.webhook?.clientConfig);
    const stored = live.status?.storedVersions ?? [];
    return { crd, conversion: { kind: 'needs-operator', webhook, stored } };
  }
  if (live && convertsThroughWebhook(live)) {
    await patchCrdConversion(transport, toNoWebhookPatch(live));
  }
  const without = withoutWebhook(crd);
  const versions = crd.spec?.versions ?? [];
  const served = versions.filter((version) => version.storage).map((version) => version.name);
  const unserved = versions.filter((version) => !version.storage).map((version) => version.name);
  return { crd: without, conversion: { kind: 'none', served, unserved } };
}

const START_OPERATOR = '`flux-operator run` (or an install with --with-deployment)';

/** install's line on what it did with the conversion. */
export function conversionLine(conversion: InstalledConversion): string {
  switch (conversion.kind) {
    case 'kept':
      return `conversion: kept the webhook at ${conversion.webhook}, which the API server converts MiniClusters through`;
    case 'unchecked':
      return (
        `conversion: kept the webhook at ${conversion.webhook}; whether the API server converts through it ` +
        `could not be checked (${conversion.reason})`
      );
    case 'none': {
      const refused = conversion.unserved.map((version) => `"${GROUP}/${version}"`).join(' or ');
      return (
        `conversion: none until an operator serves it: only ${conversion.served.join(', ')} is served; ` +
        `a manifest of ${refused} is refused (kubectl: no matches for kind "${KIND}" in version ...; the API: 404) ` +
        `until ${START_OPERATOR} points the CRD at its conversion webhook`
      );
    }
    case 'needs-operator':
      return (
        `conversion: through ${conversion.webhook}, which no operator answers yet: MiniClusters may be stored ` +
        `as ${conversion.stored.join(', ')} (status.storedVersions), which the CRD cannot serve without the ` +
        `webhook; requests that need a conversion fail (HTTP 500) until ${START_OPERATOR} answers there`
      );
  }
}

/**
 * install --with-deployment's line: where the CRD sends conversions (`live`), and when that answers:
 * the install's Service once a pod of the Deployment is Ready; elsewhere (kept) until the Deployment's
 * operator, answering, points the CRD at its Service, unless it leaves the CRD alone.
 */
export function deploymentConversionLine(
  live: ConversionClientConfig | undefined,
  service: ConversionClientConfig | undefined,
  leaveCrd: boolean,
): string {
  const where = describeClientConfig(live);
  if (where === describeClientConfig(service)) {
    return (
      `conversion: through ${where}, answered once a pod of the Deployment is Ready ` +
      '(until then requests that need a conversion fail with HTTP 500)'
    );
  }
  return leaveCrd
    ? `conversion: kept the webhook at ${where} (--leave-crd-conversion)`
    : `conversion: kept the webhook at ${where} until the Deployment's operator, answering at its Service, points the CRD there`;
}
