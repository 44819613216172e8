/**
 * What the operator must read from a user's own broker.toml (`spec.flux.brokerConfig`) so that the
 * pods match the config their brokers read: where it expects the CURVE certificate and R (the
 * entrypoint puts them there), and the headless Service its connect URIs go through (the pods' DNS
 * subdomain). Flux Operator v1alpha1 manifests name the Go operator's places: `/etc/curve/curve.cert`,
 * `/etc/flux/system/R` and its default Service `flux-service`.
 */
import { parse } from 'smol-toml';
import { PATH_MAX_LENGTH } from './limits.ts';

export interface UserBrokerConfigFacts {
  /** `[bootstrap] curve_cert`, when it is an absolute path. */
  curveCertPath?: string;
  /** `[resource] path`, when it is an absolute path. */
  resourcePath?: string;
  /** `<service>` of the connect URIs `tcp://<host>.<service>.<namespace>.svc...`: `default_connect` first, then the hosts' own. */
  serviceName?: string;
}

/** `tcp://<host or %h>.<service>.<namespace>.svc[.<domain>][:<port>]`; the service is a DNS-1035 label. */
const SERVICE_CONNECT_URI = /^tcp:\/\/[^./:]+\.([a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)\.[^./:]+\.svc(?:[.:]|$)/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * An absolute path the entrypoint can quote and the pod can hold: TOML strings may spell a NUL
 * (`\u0000`), and nothing bounds their length; anything else is no path the operator acts on.
 */
function absolutePath(value: unknown): string | undefined {
  return typeof value === 'string' &&
    value.startsWith('/') &&
    !value.includes('\0') &&
    value.length <= PATH_MAX_LENGTH
    ? value
    : undefined;
}

function serviceOf(uri: unknown): string | undefined {
  return typeof uri === 'string' ? SERVICE_CONNECT_URI.exec(uri)?.[1] : undefined;
}

/** The facts the text states; none for text that is not TOML (the brokers then report it). */
export function userBrokerConfigFacts(text: string): UserBrokerConfigFacts {
  let document: unknown;
  try {
    document = parse(text);
  } catch {
    return {};
  }
  const bootstrap = isRecord(document) && isRecord(document.bootstrap) ? document.bootstrap : {};
  const resource = isRecord(document) && isRecord(document.resource) ? document.resource : {};
  const hosts = Array.isArray(bootstrap.hosts) ? bootstrap.hosts.filter(isRecord) : [];
  const facts: UserBrokerConfigFacts = {};
  const curveCertPath = absolutePath(bootstrap.curve_cert);
  if (curveCertPath !== undefined) facts.curveCertPath = curveCertPath;
  const resourcePath = absolutePath(resource.path);
  if (resourcePath !== undefined) facts.resourcePath = resourcePath;
  const serviceName = [bootstrap.default_connect, ...hosts.map((host) => host.connect)]
    .map(serviceOf)
    .find((name) => name !== undefined);
  if (serviceName !== undefined) facts.serviceName = serviceName;
  return facts;
}
