/**
 * Compute resources, as Kubernetes checks them in a pod: resource names a container (or a pod) may
 * ask for, quantities within range, whole numbers where Kubernetes counts (extended resources,
 * huge pages), requests within limits (and equal to them where Kubernetes cannot overcommit), and
 * pod-level resources that do not meet the containers' own. Kubernetes is slightly more lenient
 * (it takes `kubernetes.io/` resource names, mixed pod and container levels); what is refused here
 * it would refuse or could not schedule. The validator's rules and the CRD's CEL rules sit side by
 * side.
 */
import { DNS_SUBDOMAIN_MAX_LENGTH, MAX_QUANTITY } from './limits.ts';
import { indexPath } from './problems.ts';
import type { Problem } from './problems.ts';
import { quantityNanos, quantityUnits, unitsToNanos } from './quantity.ts';
import { celQualifiedName, isQualifiedName } from './qualified-names.ts';
import type { SemanticRule } from './rule-helpers.ts';
import { celRegex } from './schema-helpers.ts';
import type { CelRule } from './schema-helpers.ts';
import type { DefaultedMiniClusterSpec } from './schema.ts';

type Quantity = string | number;
type QuantityMap = Readonly<Record<string, Quantity>>;

/** Resources Kubernetes lets a container ask for less of than its limit. */
const OVERCOMMITTED = ['cpu', 'memory', 'ephemeral-storage'];
/** `hugepages-<page size>`: the page size a whole number of Ki, Mi or Gi. */
const HUGEPAGES_PATTERN = '^hugepages-[1-9][0-9]{0,5}(Ki|Mi|Gi)$';
const HUGEPAGES_PREFIX = 'hugepages-';
/**
 * A whole number of units as both readers agree on it: digits and a suffix without fractions
 * (`4`, `2Mi`, `1k`). The API server's CEL `isInteger()` depends on how a quantity is spelled
 * (`1000m` is not one), so whole-number resources are spelled this way.
 */
const WHOLE_QUANTITY_PATTERN = '^\\+?[0-9]+([KMGTPE]i|[kMGTPE])?$';
/** Pod-level resources this API takes (Kubernetes also takes huge pages there). */
const POD_RESOURCES = ['cpu', 'memory'];
/**
 * An extended resource's prefix must stay a DNS subdomain with `requests.` in front (Kubernetes
 * builds the quota name that way).
 */
const EXTENDED_PREFIX_MAX_LENGTH = DNS_SUBDOMAIN_MAX_LENGTH - 'requests.'.length;
const MAX_QUANTITY_NANOS = unitsToNanos(MAX_QUANTITY);

const hugepages = new RegExp(HUGEPAGES_PATTERN);
const wholeQuantity = new RegExp(WHOLE_QUANTITY_PATTERN);

function isExtendedResource(name: string): boolean {
  return (
    name.includes('/') &&
    isQualifiedName(name) &&
    name.indexOf('/') <= EXTENDED_PREFIX_MAX_LENGTH &&
    !name.includes('kubernetes.io/') &&
    !name.startsWith('requests.')
  );
}

function isContainerResource(name: string): boolean {
  return OVERCOMMITTED.includes(name) || hugepages.test(name) || isExtendedResource(name);
}

/** Bytes of one huge page of `hugepages-<size>`. */
function pageBytes(name: string): bigint {
  return quantityUnits(quantityNanos(name.slice(HUGEPAGES_PREFIX.length)) ?? 0n) ?? 1n;
}

/** Problems of one resource value, at `path`. */
function valueProblems(path: string, name: string, value: Quantity): Problem[] {
  const nanos = quantityNanos(value);
  if (nanos === undefined || nanos > MAX_QUANTITY_NANOS) {
    return [{ path, message: `must be a quantity such as 500m, 2Gi or 4, at most ${MAX_QUANTITY}` }];
  }
  const whole = wholeQuantity.test(String(value));
  if (isExtendedResource(name) && !whole) {
    return [
      {
        path,
        message: `${name} is counted in whole units, written as digits and a suffix such as k or Mi; got ${value}`,
      },
    ];
  }
  if (hugepages.test(name) && (!whole || (quantityUnits(nanos) ?? 1n) % pageBytes(name) !== 0n)) {
    return [
      {
        path,
        message: `must be a whole multiple of the page size of ${name}, written as digits and a suffix such as Mi; got ${value}`,
      },
    ];
  }
  return [];
}

function compare(a: Quantity, b: Quantity): number {
  const left = quantityNanos(a) ?? 0n;
  const right = quantityNanos(b) ?? 0n;
  return left < right ? -1 : left > right ? 1 : 0;
}

export function containerResourceProblems(
  path: string,
  resources: { limits?: QuantityMap; requests?: QuantityMap },
): Problem[] {
  const problems: Problem[] = [];
  const limits = resources.limits ?? {};
  const requests = resources.requests ?? {};
  for (const [mapName, map] of [
    ['limits', limits],
    ['requests', requests],
  ] as const) {
    for (const [name, value] of Object.entries(map)) {
      const valuePath = indexPath(`${path}.${mapName}`, name);
      if (!isContainerResource(name)) {
        problems.push({
          path: valuePath,
          message: `must be cpu, memory, ephemeral-storage, hugepages-<size> (e.g. hugepages-2Mi) or an extended resource with a domain (e.g. nvidia.com/gpu); got ${JSON.stringify(name)}`,
        });
        continue;
      }
      problems.push(...valueProblems(valuePath, name, value));
    }
  }
  for (const [name, request] of Object.entries(requests)) {
    const limit = limits[name];
    const overcommitted = OVERCOMMITTED.includes(name);
    if (limit === undefined) {
      if (!overcommitted) {
        problems.push({
          path: indexPath(`${path}.limits`, name),
          message: `is required: Kubernetes cannot overcommit ${name}, so its limit must equal the request`,
        });
      }
    } else if (overcommitted ? compare(request, limit) > 0 : compare(request, limit) !== 0) {
      problems.push({
        path: indexPath(`${path}.requests`, name),
        message: overcommitted
          ? `must be at most the limit (${limit}); got ${request}`
          : `must equal the limit (${limit}): Kubernetes cannot overcommit ${name}; got ${request}`,
      });
    }
  }
  const names = [...Object.keys(limits), ...Object.keys(requests)];
  if (
    names.some((name) => name.startsWith(HUGEPAGES_PREFIX)) &&
    !names.some((name) => POD_RESOURCES.includes(name))
  ) {
    problems.push({ path, message: 'huge pages need cpu or memory too (in limits or requests)' });
  }
  return problems;
}

function podResourceProblems(spec: DefaultedMiniClusterSpec): Problem[] {
  const podResources = spec.pod?.resources ?? {};
  const problems: Problem[] = [];
  for (const [name, value] of Object.entries(podResources)) {
    const path = indexPath('spec.pod.resources', name);
    if (!POD_RESOURCES.includes(name)) {
      problems.push({
        path,
        message: `pod-level resources are ${POD_RESOURCES.join(' and ')}; got ${JSON.stringify(name)}`,
      });
      continue;
    }
    problems.push(...valueProblems(path, name, value));
    spec.containers.forEach((container, index) => {
      const { limits = {}, requests = {} } = container.resources ?? {};
      if (limits[name] !== undefined || requests[name] !== undefined) {
        problems.push({
          path,
          message: `spec.containers[${index}] sets ${name} too; set it for the pod or per container, not both`,
        });
      }
    });
  }
  return problems;
}

export const resources: SemanticRule = {
  name: 'resources are names Kubernetes takes, with quantities in range, requests within limits',
  check: ({ spec }) => [
    ...spec.containers.flatMap((container, index) =>
      container.resources
        ? containerResourceProblems(`spec.containers[${index}].resources`, container.resources)
        : [],
    ),
    ...podResourceProblems(spec),
  ],
};

/** Quantities outside resources (emptyDir size limits) have the same bounds. */
export const emptyDirSizes: SemanticRule = {
  name: 'emptyDir size limits are quantities in range',
  check: ({ spec }) =>
    spec.containers.flatMap((container, index) =>
      (['volumes', 'existingVolumes'] as const).flatMap((mapName) =>
        Object.entries(container[mapName] ?? {}).flatMap(([volumeName, volume]) =>
          volume.emptyDirSizeLimit === undefined
            ? []
            : valueProblems(
                `${indexPath(`spec.containers[${index}].${mapName}`, volumeName)}.emptyDirSizeLimit`,
                '',
                volume.emptyDirSizeLimit,
              ),
        ),
      ),
    ),
};

// ---------------------------------------------------------------------------------------------
// The same checks in CEL.

const OVERCOMMITTED_LIST = `[${OVERCOMMITTED.map((name) => `'${name}'`).join(', ')}]`;

function celQuantity(value: string): string {
  return `quantity(string(${value}))`;
}

const CEL_CONTAINER_RESOURCE = `name in ${OVERCOMMITTED_LIST} || name.matches(${celRegex(HUGEPAGES_PATTERN)}) || (name.contains('/') && ${celQualifiedName('name')} && name.indexOf('/') <= ${EXTENDED_PREFIX_MAX_LENGTH} && !name.contains('kubernetes.io/') && !name.startsWith('requests.'))`;

/** Rules on a container's `limits` and `requests` maps. */
export const CONTAINER_RESOURCE_MAP_RULES: CelRule[] = [
  {
    rule: `self.all(name, ${CEL_CONTAINER_RESOURCE})`,
    message:
      'resource names must be cpu, memory, ephemeral-storage, hugepages-<size> (e.g. hugepages-2Mi) or an extended resource with a domain (e.g. nvidia.com/gpu)',
    reason: 'FieldValueInvalid',
  },
  {
    rule: `self.all(name, !name.contains('/') || string(self[name]).matches(${celRegex(WHOLE_QUANTITY_PATTERN)}))`,
    message: 'extended resources are counted in whole units, written as digits and a suffix such as k or Mi',
    reason: 'FieldValueInvalid',
  },
  {
    rule: `self.all(name, !name.matches(${celRegex(HUGEPAGES_PATTERN)}) || (string(self[name]).matches(${celRegex(WHOLE_QUANTITY_PATTERN)}) && ${celQuantity('self[name]')}.asInteger() % quantity(name.substring(${HUGEPAGES_PREFIX.length})).asInteger() == 0))`,
    message:
      'huge pages must be a whole multiple of their page size, written as digits and a suffix such as Mi',
    reason: 'FieldValueInvalid',
  },
];

/** Rules on a container's `resources`. */
export const CONTAINER_RESOURCES_RULES: CelRule[] = [
  {
    rule: `!has(self.requests) || self.requests.all(name, (has(self.limits) && name in self.limits) ? (name in ${OVERCOMMITTED_LIST} ? ${celQuantity('self.requests[name]')}.compareTo(${celQuantity('self.limits[name]')}) <= 0 : ${celQuantity('self.requests[name]')}.compareTo(${celQuantity('self.limits[name]')}) == 0) : name in ${OVERCOMMITTED_LIST})`,
    message:
      'requests must be at most their limits; huge pages and extended resources need a limit equal to the request (Kubernetes cannot overcommit them)',
    fieldPath: '.requests',
    reason: 'FieldValueInvalid',
  },
  {
    rule: `!((has(self.limits) && self.limits.exists(name, name.startsWith('${HUGEPAGES_PREFIX}'))) || (has(self.requests) && self.requests.exists(name, name.startsWith('${HUGEPAGES_PREFIX}')))) || (has(self.limits) && ('cpu' in self.limits || 'memory' in self.limits)) || (has(self.requests) && ('cpu' in self.requests || 'memory' in self.requests))`,
    message: 'huge pages need cpu or memory too (in limits or requests)',
    reason: 'FieldValueInvalid',
  },
];

/** Rules on `spec.pod.resources`. */
export const POD_RESOURCE_MAP_RULES: CelRule[] = [
  {
    rule: `self.all(name, name in [${POD_RESOURCES.map((name) => `'${name}'`).join(', ')}])`,
    message: `pod-level resources are ${POD_RESOURCES.join(' and ')}`,
    reason: 'FieldValueInvalid',
  },
];

/** Rules on the spec. */
export const SPEC_RESOURCE_RULES: CelRule[] = [
  {
    rule: `!has(self.pod) || !has(self.pod.resources) || self.containers.all(container, !has(container.resources) || ((!has(container.resources.limits) || !container.resources.limits.exists(name, name in self.pod.resources)) && (!has(container.resources.requests) || !container.resources.requests.exists(name, name in self.pod.resources))))`,
    message:
      'a resource is set both for the pod (spec.pod.resources) and by a container; set it for one of them',
    fieldPath: '.pod.resources',
    reason: 'FieldValueInvalid',
  },
];
