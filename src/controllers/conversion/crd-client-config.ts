/**
 * Keeps the MiniCluster CRD's conversion webhook pointing at this operator: its Service (in cluster)
 * or its URL (out of cluster), with the caBundle of the CA that signs what it serves. One GET, and a
 * merge patch only when something differs (a CRD change makes the API server rebuild its handler).
 * A CRD an install left converting nothing (crd-conversion-strategy.ts) is turned to this webhook.
 */
import { isDeepStrictEqual } from 'node:util';
import { CRD_NAME, type ConversionClientConfig } from '../../api/index.ts';
import type { Transport } from '../../kube/transport.ts';
import {
  JSON_PATCH,
  servedVersions,
  toWebhookPatch,
  type CrdConversionView,
  type JsonPatchOperation,
} from './crd-conversion-strategy.ts';

const CRD_PATH = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`;

export type CrdSyncOutcome =
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'patched'; readonly from: string }
  /** It sends conversions elsewhere, and `mayTakeOver` said not yet. */
  | { readonly kind: 'deferred'; readonly current: string }
  /** The CRD has a single version (a CRD from before v1alpha2): nothing to convert, nowhere to point. */
  | { readonly kind: 'no-webhook' };

/** A short description of where a clientConfig sends conversions (for logs). */
export function describeClientConfig(config: ConversionClientConfig | undefined): string {
  if (!config) return 'nowhere';
  if ('url' in config && config.url) return config.url;
  if ('service' in config && config.service) {
    const { namespace, name, port, path } = config.service;
    return `service ${namespace}/${name}:${port ?? 443}${path ?? ''}`;
  }
  return 'nowhere';
}

/** The live MiniCluster CRD, as far as its conversion goes; the API error when it cannot be read. */
export function readCrd(transport: Transport): Promise<CrdConversionView> {
  return transport.request<CrdConversionView>('GET', CRD_PATH, { timeoutMs: 10_000 });
}

/** One step of crd-conversion-strategy.ts, applied to the live CRD. */
export async function patchCrdConversion(
  transport: Transport,
  operations: readonly JsonPatchOperation[],
): Promise<void> {
  await transport.request('PATCH', CRD_PATH, {
    body: operations,
    contentType: JSON_PATCH,
    timeoutMs: 10_000,
  });
}

/** Where the CRD sends conversions now (undefined: it converts through no webhook). */
export async function readCrdClientConfig(transport: Transport): Promise<ConversionClientConfig | undefined> {
  const crd = await readCrd(transport);
  const conversion = crd.spec?.conversion;
  return conversion?.strategy === 'Webhook' ? conversion.webhook?.clientConfig : undefined;
}

/**
 * Makes the CRD's clientConfig equal to `desired`. Throws the API error when the CRD cannot be read or
 * patched (404: not installed; 403: the RBAC lacks get/patch on it).
 */
export async function syncCrdClientConfig(
  transport: Transport,
  desired: ConversionClientConfig,
  /** Asked before the CRD is pointed away from another webhook (not for a caBundle change). */
  mayTakeOver: () => Promise<boolean> = async () => true,
): Promise<CrdSyncOutcome> {
  const crd = await readCrd(transport);
  const conversion = crd.spec?.conversion;
  if (conversion?.strategy !== 'Webhook') {
    const patch = toWebhookPatch(crd, desired);
    const now = `no webhook (strategy ${conversion?.strategy ?? 'None'}, serving ${servedVersions(crd).join(', ') || 'nothing'})`;
    if (!patch) return { kind: 'no-webhook' };
    if (!(await mayTakeOver())) return { kind: 'deferred', current: now };
    await patchCrdConversion(transport, patch);
    return { kind: 'patched', from: now };
  }
  const current = conversion.webhook?.clientConfig;
  if (isDeepStrictEqual(current, desired)) return { kind: 'unchanged' };
  const { caBundle: _current, ...where } = current ?? {};
  const { caBundle: _desired, ...wanted } = desired;
  if (!isDeepStrictEqual(where, wanted) && !(await mayTakeOver())) {
    return { kind: 'deferred', current: describeClientConfig(current) };
  }
  // A merge patch: null removes the other way of reaching the webhook (exactly one is allowed).
  const clientConfig = 'url' in desired ? { ...desired, service: null } : { ...desired, url: null };
  await transport.request('PATCH', CRD_PATH, {
    body: { spec: { conversion: { webhook: { clientConfig } } } },
    contentType: 'application/merge-patch+json',
    timeoutMs: 10_000,
  });
  return { kind: 'patched', from: describeClientConfig(current) };
}
