/**
 * Rules of `spec.services` beyond what each field's schema says: unique names, no Flux container
 * fields, and no `flux.minimalService` beside them. The CRD's CEL twins are in
 * service-cel.ts. The container-level checks services share with containers (volumes, environment,
 * resources, ports) run through the containers' own rules (semantic-rules.ts).
 */
import { fieldPath } from '../shared/problems.ts';
import type { Problem } from '../shared/problems.ts';
import { duplicates } from '../shared/rule-helpers.ts';
import type { SemanticRuleV1alpha1 } from './semantic-rule.ts';
import { FLUX_ONLY_SERVICE_FIELDS, fluxOnlyServiceMessage } from '../shared/service-fields.ts';
import { MINIMAL_SERVICE_MESSAGE } from '../shared/service-cel.ts';

export const serviceRules: SemanticRuleV1alpha1 = {
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
