/**
 * Rules of `spec.services` beyond what each field's schema says: unique names, no Flux container
 * fields, and no `flux.minimalService` beside them. The validator's rule and the CRD's CEL twins sit
 * side by side. The container-level checks services share with containers (volumes, environment,
 * resources, ports) run through the containers' own rules (semantic-rules.ts).
 */
import { fieldPath } from './problems.ts';
import type { Problem } from './problems.ts';
import { duplicates } from './rule-helpers.ts';
import type { SemanticRule } from './rule-helpers.ts';
import type { CelRule } from './schema-helpers.ts';
import { FLUX_ONLY_SERVICE_FIELDS, fluxOnlyServiceMessage } from './service-schema.ts';

const MINIMAL_SERVICE_MESSAGE =
  'services need the headless Service to select their pod, and with flux.minimalService it selects the lead broker alone (the services pod would have no DNS name); remove flux.minimalService or services';

export const serviceRules: SemanticRule = {
  name: 'services are named once, set no Flux container field, and do without minimalService',
  check: ({ given, spec }) => {
    const services = given.services ?? [];
    const problems: Problem[] = [];
    services.forEach((service, index) => {
      const path = `spec.services[${index}]`;
      const fields = service as Record<string, unknown>;
      for (const field of FLUX_ONLY_SERVICE_FIELDS) {
        const value = fields[field];
        if (value === undefined || value === false) continue;
        problems.push({ path: fieldPath(path, field), message: fluxOnlyServiceMessage(field) });
      }
    });
    for (const { index, firstIndex } of duplicates(services, (service) => service.name)) {
      problems.push({
        path: `spec.services[${index}].name`,
        message: `duplicates spec.services[${firstIndex}].name ${JSON.stringify(services[index]?.name)}; service names must be unique (they are containers of one pod)`,
      });
    }
    if (services.length > 0 && spec.flux.minimalService === true) {
      problems.push({ path: 'spec.services', message: MINIMAL_SERVICE_MESSAGE });
    }
    return problems;
  },
};

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
