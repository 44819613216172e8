/**
 * Resources: the CEL rules the CRD carries, twins of the validator's rules in resource-rules.ts. The
 * schema takes these and the rules take the schema's types, so the two halves live apart.
 */
import { DNS_SUBDOMAIN_MAX_LENGTH } from './limits.ts';
import { celQualifiedName } from './qualified-names.ts';
import { celRegex } from './schema-helpers.ts';
import type { CelRule } from './schema-helpers.ts';

/** Resources Kubernetes lets a container ask for less of than its limit. */
export const OVERCOMMITTED = ['cpu', 'memory', 'ephemeral-storage'];
/** `hugepages-<page size>`: the page size a whole number of Ki, Mi or Gi. */
export const HUGEPAGES_PATTERN = '^hugepages-[1-9][0-9]{0,5}(Ki|Mi|Gi)$';
export const HUGEPAGES_PREFIX = 'hugepages-';
/**
 * A whole number of units as both readers agree on it: digits and a suffix without fractions
 * (`4`, `2Mi`, `1k`). The API server's CEL `isInteger()` depends on how a quantity is spelled
 * (`1000m` is not one), so whole-number resources are spelled this way.
 */
export const WHOLE_QUANTITY_PATTERN = '^\\+?[0-9]+([KMGTPE]i|[kMGTPE])?$';
/** Pod-level resources this API takes (Kubernetes also takes huge pages there). */
export const POD_RESOURCES = ['cpu', 'memory'];
/**
 * An extended resource's prefix must stay a DNS subdomain with `requests.` in front (Kubernetes
 * builds the quota name that way).
 */
export const EXTENDED_PREFIX_MAX_LENGTH = DNS_SUBDOMAIN_MAX_LENGTH - 'requests.'.length;

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
