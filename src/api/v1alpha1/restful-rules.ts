/** The validator's rule for fluxRestful and users, twin of SPEC_RESTFUL_RULES (restful-schema.ts). */
import { DEFAULT_BROKER_PORT } from '../shared/limits.ts';
import type { Problem } from '../shared/problems.ts';
import { duplicates } from '../shared/rule-helpers.ts';
import type { SemanticRuleV1alpha1 } from './semantic-rule.ts';
import {
  COMMAND_MESSAGE,
  DEFAULT_RESTFUL_USER,
  JOINS_MESSAGE,
  PORT_MESSAGE,
  ROOT_JOBS_MESSAGE,
  USERNAME_MESSAGE,
  USERS_MESSAGE_V1ALPHA1,
  joinsAnother,
  rootJobContainers,
  runnerHasCommand,
  servesRestfulApi,
} from '../shared/restful-schema.ts';

export const restfulFields: SemanticRuleV1alpha1 = {
  name: 'fluxRestful and users belong to a MiniCluster that serves the RESTful API',
  check: ({ given }) => {
    const problems: Problem[] = [];
    const users = given.users ?? [];
    if (given.fluxRestful !== undefined && runnerHasCommand(given)) {
      problems.push({ path: 'spec.fluxRestful', message: COMMAND_MESSAGE });
    }
    if (given.fluxRestful !== undefined && joinsAnother(given)) {
      problems.push({ path: 'spec.fluxRestful', message: JOINS_MESSAGE });
    }
    if (users.length > 0 && !servesRestfulApi(given)) {
      problems.push({ path: 'spec.users', message: USERS_MESSAGE_V1ALPHA1 });
    }
    if (servesRestfulApi(given)) {
      for (const { index, field } of rootJobContainers(given)) {
        problems.push({ path: `spec.containers[${index}].${field}`, message: ROOT_JOBS_MESSAGE });
      }
    }
    if (given.fluxRestful?.port === DEFAULT_BROKER_PORT) {
      problems.push({ path: 'spec.fluxRestful.port', message: PORT_MESSAGE });
    }
    const mainUser = given.fluxRestful?.username ?? DEFAULT_RESTFUL_USER;
    if (users.some((user) => user.name === mainUser)) {
      problems.push({
        path: 'spec.users',
        message: `has ${mainUser}, the user of spec.fluxRestful.username (default ${DEFAULT_RESTFUL_USER}); ${USERNAME_MESSAGE}`,
      });
    }
    for (const { index } of duplicates(users, (user) => user.name)) {
      problems.push({
        path: `spec.users[${index}].name`,
        message: 'is the name of an earlier user; names must be unique',
      });
    }
    return problems;
  },
};
