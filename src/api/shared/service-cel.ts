/**
 * Services: the CEL rules the CRD carries, twins of the validator's rules in service-rules.ts. The
 * schema takes these and the rules take the schema's types, so the two halves live apart.
 */
import type { CelRule } from './schema-helpers.ts';

export const MINIMAL_SERVICE_MESSAGE =
  'services need the headless Service to select their pod, and with flux.minimalService it selects the lead broker alone (the services pod would have no DNS name); remove flux.minimalService or services';

/** The same checks in CEL, on the spec (the Flux container fields are refused on each service). */
export const SPEC_SERVICE_RULES: CelRule[] = [
  {
    rule: '!has(self.services) || self.services.all(service, self.services.filter(other, other.name == service.name).size() == 1)',
    message: 'service names must be unique (they are containers of one pod)',
    fieldPath: '.services',
    reason: 'FieldValueDuplicate',
  },
  {
    rule: '!has(self.services) || self.services.size() == 0 || !has(self.flux) || !has(self.flux.minimalService) || !self.flux.minimalService',
    message: MINIMAL_SERVICE_MESSAGE,
    fieldPath: '.services',
    reason: 'FieldValueForbidden',
  },
];
