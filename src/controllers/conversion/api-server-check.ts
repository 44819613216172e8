/**
 * Whether the API server converts MiniClusters now, seen from its side: a v1alpha1 MiniCluster
 * created with `dryRun=All`. The API server encodes it in the stored version (v1alpha2) through
 * whatever webhook the CRD names and decodes the answer back, so a success means a newcomer's
 * v1alpha1 manifest applies; nothing is stored and no watch sees it. Probing the webhook directly
 * (service-probe.ts) cannot tell this: the API server takes a CRD change in a moment after it is made,
 * and may still call the webhook named before.
 */
import { API_VERSION_V1ALPHA1, GROUP, KIND, PLURAL, VERSION_V1ALPHA1 } from '../../api/index.ts';
import { apiErrorCode, describeApiError } from '../../kube/api-errors.ts';
import type { Transport } from '../../kube/transport.ts';

export const API_SERVER_CHECK_TIMEOUT_MS = 5_000;

export type ApiServerConversion =
  | { readonly ok: true }
  | {
      readonly ok: false;
      /**
       * `webhook`: the API server could not convert through the webhook (HTTP 500 naming it);
       * `not-served`: v1alpha1 is not served (yet); `forbidden`: no right to create MiniClusters
       * there; `other`: anything else (load, the API server away).
       */
      readonly failure: 'webhook' | 'not-served' | 'forbidden' | 'other';
      readonly reason: string;
    };

/** The smallest v1alpha1 MiniCluster the schema admits, named by the API server. */
function checkObject(namespace: string): object {
  return {
    apiVersion: API_VERSION_V1ALPHA1,
    kind: KIND,
    metadata: { generateName: 'conversion-check-', namespace },
    spec: { containers: [{ image: 'conversion-check' }] },
  };
}

function failureOf(error: unknown): 'webhook' | 'not-served' | 'forbidden' | 'other' {
  const code = apiErrorCode(error);
  if (code === 404) return 'not-served';
  if (code === 403) return 'forbidden';
  if (code === 500 && describeApiError(error).includes('conversion webhook')) return 'webhook';
  return 'other';
}

/** A dry-run create of a v1alpha1 MiniCluster in `namespace` (which must exist): converted, or why not. */
export async function apiServerConverts(
  transport: Transport,
  namespace: string,
  timeoutMs = API_SERVER_CHECK_TIMEOUT_MS,
): Promise<ApiServerConversion> {
  try {
    await transport.request('POST', `/apis/${GROUP}/${VERSION_V1ALPHA1}/namespaces/${namespace}/${PLURAL}`, {
      query: { dryRun: 'All' },
      body: checkObject(namespace),
      timeoutMs,
    });
    return { ok: true };
  } catch (error) {
    return { ok: false, failure: failureOf(error), reason: describeApiError(error) };
  }
}
