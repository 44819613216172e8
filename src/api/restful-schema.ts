/**
 * `spec.fluxRestful` and `spec.users`: the RESTful mode of a MiniCluster (its lead pod serves an
 * HTTP API for its Flux instance, compatible with flux-restful-api's v1 routes), and who may use
 * it. The mode itself, and the CEL rules that keep these fields to MiniClusters in that mode, are
 * here too; the validator's twin of those rules is in restful-rules.ts.
 */
import { Type } from '@sinclair/typebox';
import { DEFAULT_BROKER_PORT, MAX_MAP_ENTRIES } from './limits.ts';
import { celRunsFlux } from './rule-helpers.ts';
import { celRegex, withDefault } from './schema-helpers.ts';
import type { CelRule } from './schema-helpers.ts';
import { HAS_TEXT_PATTERN } from './script-cel.ts';

export const DEFAULT_RESTFUL_PORT = 5000;
/** Longest user name, token, password or secret key. */
export const CREDENTIAL_MAX_LENGTH = 256;
/**
 * Shortest token, password or secret key a user may give: 32 characters, as many as the generated
 * ones carry bits of entropy / 8 (a random 256-bit value, 43 base64url characters). A guessable
 * token gives the lead pod's jobs to whoever guesses it.
 */
export const CREDENTIAL_MIN_LENGTH = 32;
/**
 * A user name: no `:` (HTTP Basic credentials are `user:token`), no space or control character;
 * letters, digits and `-._@`.
 */
export const API_USER_PATTERN = '^[A-Za-z0-9][-._@A-Za-z0-9]*$';
export const API_USER_MAX_LENGTH = 64;
/** Tokens, passwords and keys: printable ASCII without space, as a header carries them unchanged. */
export const CREDENTIAL_PATTERN = '^[!-~]+$';

/** Whether a JSON pointer (`/spec/users/0/password`) names a token, password or key: a secret. */
export function isCredentialPointer(pointer: string): boolean {
  return /\/fluxRestful\/(token|secretKey)$|\/users\/\d+\/password$/.test(pointer);
}

function credential(description: string) {
  return Type.String({
    description: `${description} At least ${CREDENTIAL_MIN_LENGTH} characters.`,
    minLength: CREDENTIAL_MIN_LENGTH,
    maxLength: CREDENTIAL_MAX_LENGTH,
    pattern: CREDENTIAL_PATTERN,
  });
}

function userName(description: string) {
  return Type.String({
    description,
    minLength: 1,
    maxLength: API_USER_MAX_LENGTH,
    pattern: API_USER_PATTERN,
  });
}

export const FluxRestfulSchema = Type.Object(
  {
    branch: Type.Optional(
      Type.String({
        description:
          'Accepted for v1alpha1 manifests and ignored: the Go operator cloned flux-restful-api at this branch when the pod started; here the server ships with the operator and nothing is downloaded.',
        maxLength: 255,
        pattern: CREDENTIAL_PATTERN,
      }),
    ),
    port: withDefault(
      Type.Integer({
        description: `Port the lead pod serves the API on, and the port of the Service <name>-restful. Not the broker port (${DEFAULT_BROKER_PORT}).`,
        minimum: 1,
        maximum: 65535,
      }),
      DEFAULT_RESTFUL_PORT,
    ),
    username: Type.Optional(
      userName(
        'User of the API, an administrator: sees and cancels every job of the API. Default: flux. Kept, with the token, in the Secret <name>-restful.',
      ),
    ),
    token: Type.Optional(credential("The user's token. Default: a random one (256 bits), made once.")),
    secretKey: Type.Optional(
      credential(
        'Key that signs the bearer tokens of /v1/token (the flux-restful-client handshake). Default: a random one (256 bits), made once.',
      ),
    ),
  },
  {
    description:
      'The Flux RESTful API served by the lead pod (see docs/restful-api.md). Implied, with defaults, when the Flux container has no command and the MiniCluster is not interactive.',
    additionalProperties: false,
  },
);

export const ApiUserSchema = Type.Object(
  {
    name: userName('Name the user gives as the user of HTTP Basic credentials or the token handshake.'),
    password: Type.Optional(
      credential("The user's token (the password of the API). Default: a random one (256 bits), made once."),
    ),
    administrator: Type.Optional(
      Type.Boolean({
        description:
          'The user sees and cancels every job of the API, as fluxRestful.username does. Unset or false: only the jobs they submitted.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const UsersSchema = Type.Array(ApiUserSchema, {
  description:
    'More users of the RESTful API, beside fluxRestful.username; their tokens are kept in the Secret <name>-restful. Their jobs run as the flux user, labelled with their name; each sees and cancels only their own jobs unless made an administrator.',
  maxItems: MAX_MAP_ENTRIES,
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['name'],
});

/** The default user of the API. */
export const DEFAULT_RESTFUL_USER = 'flux';

interface RestfulSpecView {
  interactive?: boolean | undefined;
  fluxRestful?: unknown;
  containers: readonly { command?: string | undefined; runFlux?: boolean | undefined }[];
  flux?: { bootServer?: string | undefined; bursting?: { leadBroker?: unknown } | undefined } | undefined;
}

const hasText = new RegExp(HAS_TEXT_PATTERN, 'u');

function runner(spec: RestfulSpecView) {
  return spec.containers.length === 1
    ? spec.containers[0]
    : spec.containers.find((container) => container.runFlux);
}

export function runnerHasCommand(spec: RestfulSpecView): boolean {
  const command = runner(spec)?.command;
  return command !== undefined && hasText.test(command);
}

export function joinsAnother(spec: RestfulSpecView): boolean {
  return spec.flux?.bootServer !== undefined || spec.flux?.bursting?.leadBroker !== undefined;
}

/**
 * Whether the lead pod serves the RESTful API: `fluxRestful` is set, or the Flux container has no
 * command and the MiniCluster is not interactive (the design's persistent MiniCluster). Never for
 * a MiniCluster whose brokers join another's instance: it has no lead of its own.
 */
export function servesRestfulApi(spec: RestfulSpecView): boolean {
  if (joinsAnother(spec)) return false;
  return spec.fluxRestful !== undefined || (!runnerHasCommand(spec) && spec.interactive !== true);
}

export const CEL_RUNNER_HAS_COMMAND = `self.containers.exists(container, ${celRunsFlux('self', 'container')} && has(container.command) && container.command.matches(${celRegex(HAS_TEXT_PATTERN)}))`;
export const CEL_JOINS_ANOTHER =
  'has(self.flux) && (has(self.flux.bootServer) || (has(self.flux.bursting) && has(self.flux.bursting.leadBroker)))';
const CEL_SERVES = `!(${CEL_JOINS_ANOTHER}) && (has(self.fluxRestful) || (!(${CEL_RUNNER_HAS_COMMAND}) && !(has(self.interactive) && self.interactive)))`;

export const COMMAND_MESSAGE =
  'serves jobs through the RESTful API in place of a command: remove the command of the Flux container, or remove fluxRestful to run the command';
export const JOINS_MESSAGE =
  'cannot be served by a MiniCluster whose brokers join another instance (flux.bootServer or flux.bursting.leadBroker): set it on the MiniCluster that runs the lead broker';
export const USERS_MESSAGE =
  'are users of the RESTful API, which this MiniCluster does not serve (it has a command or is interactive): set fluxRestful, or remove users';
export const PORT_MESSAGE = `must not be the broker port ${DEFAULT_BROKER_PORT}; choose another port`;
export const USERNAME_MESSAGE = 'must not also be the name of an entry of spec.users; rename one of them';

/** fluxRestful replaces a command. */
export const RESTFUL_COMMAND_RULE: CelRule = {
  rule: `!has(self.fluxRestful) || !(${CEL_RUNNER_HAS_COMMAND})`,
  message: `spec.fluxRestful ${COMMAND_MESSAGE}`,
  fieldPath: '.fluxRestful',
  reason: 'FieldValueForbidden',
};

/** fluxRestful is for the MiniCluster that runs the lead broker. */
export const RESTFUL_JOINS_RULE: CelRule = {
  rule: `!has(self.fluxRestful) || !(${CEL_JOINS_ANOTHER})`,
  message: `spec.fluxRestful ${JOINS_MESSAGE}`,
  fieldPath: '.fluxRestful',
  reason: 'FieldValueForbidden',
};

/** users need a MiniCluster that serves the API (v1alpha1: also implied without a command). */
export const RESTFUL_USERS_RULE: CelRule = {
  rule: `!has(self.users) || self.users.size() == 0 || (${CEL_SERVES})`,
  message: `spec.users ${USERS_MESSAGE}`,
  fieldPath: '.users',
  reason: 'FieldValueForbidden',
};

/** The API port is not the broker port. */
export const RESTFUL_PORT_RULE: CelRule = {
  rule: `!has(self.fluxRestful) || !has(self.fluxRestful.port) || self.fluxRestful.port != ${DEFAULT_BROKER_PORT}`,
  message: `spec.fluxRestful.port ${PORT_MESSAGE}`,
  fieldPath: '.fluxRestful.port',
  reason: 'FieldValueInvalid',
};

/** The main user is not also among users. */
export const RESTFUL_USERNAME_RULE: CelRule = {
  rule: `!has(self.users) || !(has(self.fluxRestful) && has(self.fluxRestful.username) ? self.users.exists(user, user.name == self.fluxRestful.username) : self.users.exists(user, user.name == '${DEFAULT_RESTFUL_USER}'))`,
  message: `spec.fluxRestful.username (default ${DEFAULT_RESTFUL_USER}) ${USERNAME_MESSAGE}`,
  fieldPath: '.users',
  reason: 'FieldValueDuplicate',
};

export const SPEC_RESTFUL_RULES: CelRule[] = [
  RESTFUL_COMMAND_RULE,
  RESTFUL_JOINS_RULE,
  RESTFUL_USERS_RULE,
  RESTFUL_PORT_RULE,
  RESTFUL_USERNAME_RULE,
];
