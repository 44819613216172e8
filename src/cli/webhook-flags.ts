/**
 * The conversion webhook's flags of `flux-operator run`, checked and turned into the operator's
 * webhook settings: `--webhook-addr` (where to listen; `0` serves none), `--webhook-service` (in
 * cluster: the Service the CRD names; without it the CRD gets this process's https URL) and
 * `--leave-crd-conversion` (serve, but never point the CRD here).
 */
import { DEFAULT_FLUX_VIEW_IMAGE, WEBHOOK_CERT_SECRET, operatorLabels } from '../deploy/index.ts';
import type { ConversionWebhookSettings } from '../controllers/conversion/setup.ts';
import { parseBindAddress } from '../observability/health-server.ts';

/** Out of cluster: loopback, any free port (the operator writes the one it got into the CRD). */
export const DEFAULT_WEBHOOK_ADDR = '127.0.0.1:0';
/**
 * In cluster, a stopping pod answers this long more: enough for the Service's endpoints and the
 * nodes' forwarding rules to drop it (about a second), well within the pod's grace period.
 */
export const IN_CLUSTER_DRAIN_MS = 5_000;

/** An RFC 1123 label (namespace and Service names). */
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export interface WebhookFlags {
  readonly webhookAddr: string;
  readonly webhookService?: string;
  /** The operator's namespace: where the certificate Secret is kept out of cluster. */
  readonly namespace: string;
  /** `--leave-crd-conversion`: another webhook holds the CRD's conversions. */
  readonly leaveCrdConversion?: boolean;
}

/** The settings, undefined when `--webhook-addr 0`, or the problems with the flags. */
export function webhookSettings(flags: WebhookFlags): {
  settings?: ConversionWebhookSettings;
  problems: string[];
} {
  const problems: string[] = [];
  let address;
  try {
    address = parseBindAddress(flags.webhookAddr);
  } catch (error) {
    problems.push(
      `--webhook-addr ${flags.webhookAddr}: ${(error as Error).message}; e.g. :9443, 127.0.0.1:0, or 0 to serve none`,
    );
  }
  let service: { namespace: string; name: string } | undefined;
  if (flags.webhookService !== undefined) {
    const [namespace, name, ...rest] = flags.webhookService.split('/');
    if (
      rest.length > 0 ||
      !namespace ||
      !name ||
      !LABEL.test(namespace) ||
      !LABEL.test(name) ||
      namespace.length > 63 ||
      name.length > 63
    ) {
      problems.push(
        `--webhook-service ${flags.webhookService}: expected <namespace>/<name> of a Service, e.g. flux-operator-system/flux-operator-webhook`,
      );
    } else service = { namespace, name };
  }
  if (problems.length > 0) return { problems };
  if (!address) {
    if (service) return { problems: ['--webhook-service: needs a --webhook-addr to serve on (not 0)'] };
    if (flags.leaveCrdConversion) {
      return { problems: ['--leave-crd-conversion: needs a --webhook-addr to serve on (not 0)'] };
    }
    return { problems };
  }
  return {
    problems,
    settings: {
      address,
      ...(service ? { service, drainMs: IN_CLUSTER_DRAIN_MS } : {}),
      ...(flags.leaveCrdConversion ? { leaveCrd: true } : {}),
      secret: { namespace: service?.namespace ?? flags.namespace, name: WEBHOOK_CERT_SECRET },
      secretLabels: operatorLabels(),
    },
  };
}

/** The Flux view image: the flag, else the Go operator's public one. */
export function fluxViewImage(flag: string | undefined): string {
  return flag || DEFAULT_FLUX_VIEW_IMAGE;
}
