/**
 * Compute resources, as Kubernetes checks them in a pod: resource names a container (or a pod) may
 * ask for, quantities within range, whole numbers where Kubernetes counts (extended resources,
 * huge pages), requests within limits (and equal to them where Kubernetes cannot overcommit), and
 * pod-level resources that do not meet the containers' own. Kubernetes is slightly more lenient
 * (it takes `kubernetes.io/` resource names, mixed pod and container levels); what is refused here
 * it would refuse or could not schedule. The CRD's CEL rules for the same checks are in
 * resource-cel.ts. Both versions' rules use these (../v1alpha1/resource-rules.ts, ../rules.ts).
 */
import { MAX_QUANTITY } from './limits.ts';
import { indexPath } from './problems.ts';
import type { Problem } from './problems.ts';
import { quantityNanos, quantityUnits, unitsToNanos } from './quantity.ts';
import { isQualifiedName } from './qualified-names.ts';
import {
  EXTENDED_PREFIX_MAX_LENGTH,
  HUGEPAGES_PATTERN,
  HUGEPAGES_PREFIX,
  OVERCOMMITTED,
  POD_RESOURCES,
  WHOLE_QUANTITY_PATTERN,
} from './resource-cel.ts';

type Quantity = string | number;
type QuantityMap = Readonly<Record<string, Quantity>>;
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
export function resourceValueProblems(path: string, name: string, value: Quantity): Problem[] {
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

/** Problems of a quantity outside resources (a size limit), at `path`: a quantity in range. */
export function quantityValueProblems(path: string, value: Quantity): Problem[] {
  return resourceValueProblems(path, '', value);
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
      problems.push(...resourceValueProblems(valuePath, name, value));
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
