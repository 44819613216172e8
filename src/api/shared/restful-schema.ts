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
  containers: readonly {
    command?: string | undefined;
    runFlux?: boolean | undefined;
    commands?: { runFluxAsRoot?: boolean | undefined } | undefined;
    fluxUser?: { name?: string | undefined; uid?: number | undefined } | undefined;
  }[];
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

/** The index of each container that runs Flux, and so the API's jobs, as root; the field that says so. */
export function rootJobContainers(spec: RestfulSpecView): { index: number; field: string }[] {
  return spec.containers.flatMap((container, index) => {
    if (spec.containers.length !== 1 && container.runFlux !== true) return [];
    if (container.commands?.runFluxAsRoot === true) return [{ index, field: 'commands.runFluxAsRoot' }];
    const user = container.fluxUser;
    if (user?.uid === 0) return [{ index, field: 'fluxUser.uid' }];
    if (user?.name === 'root') return [{ index, field: 'fluxUser.name' }];
    return [];
  });
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
export const USERS_MESSAGE_V1ALPHA1 =
  'are users of the RESTful API, which this MiniCluster does not serve (it has a command or is interactive): set fluxRestful, or remove users';
export const PORT_MESSAGE = `must not be the broker port ${DEFAULT_BROKER_PORT}; choose another port`;
export const USERNAME_MESSAGE = 'must not also be the name of an entry of spec.users; rename one of them';

export const ROOT_JOBS_MESSAGE =
  "would run the RESTful API's jobs as root (commands.runFluxAsRoot, or a fluxUser named root or with uid 0), and every API user's job could read the others' tokens, the signing key, the CURVE key and the munge key: remove runFluxAsRoot and keep fluxUser an unprivileged user (default flux, uid 1000), or give the Flux container a command";

/** The container runs Flux, and so the API's jobs, as root. */
const CEL_ROOT_JOBS = (container: string) =>
  `((has(${container}.commands) && has(${container}.commands.runFluxAsRoot) && ${container}.commands.runFluxAsRoot) || (has(${container}.fluxUser) && ((has(${container}.fluxUser.uid) && ${container}.fluxUser.uid == 0) || (has(${container}.fluxUser.name) && ${container}.fluxUser.name == 'root'))))`;

/** The RESTful API's jobs never run as root: `serves` is the version's CEL for "serves the API". */
export function restfulRootJobsRule(serves: string): CelRule {
  return {
    rule: `!(${serves}) || !self.containers.exists(container, ${celRunsFlux('self', 'container')} && ${CEL_ROOT_JOBS('container')})`,
    message: `the Flux container ${ROOT_JOBS_MESSAGE}`,
    fieldPath: '.containers',
    reason: 'FieldValueForbidden',
  };
}

/** v1alpha2 serves the API only with fluxRestful. */
export const CEL_SERVES_V1ALPHA2 = `has(self.fluxRestful) && !(${CEL_JOINS_ANOTHER})`;

export const NON_ROOT_START_MESSAGE =
  "starts the Flux container as a user other than root, and a RESTful MiniCluster starts as root to keep every user's token, the signing key, the CURVE key and the munge key from the API's jobs, which run as fluxUser (default flux, uid 1000): remove runAsUser and runAsNonRoot from the Flux container's and the pod's securityContext (or set runAsUser: 0), or give the Flux container a command";

interface SecurityContextView {
  runAsUser?: number | undefined;
  runAsNonRoot?: boolean | undefined;
}

/**
 * Where a v1alpha2 spec starts the Flux container as another user than root: the container's
 * securityContext where it sets runAsUser or runAsNonRoot, else the pod's (Kubernetes' precedence).
 */
export function nonRootStarts(
  containerPath: string,
  container: SecurityContextView | undefined,
  pod: SecurityContextView | undefined,
): string[] {
  const paths: string[] = [];
  const user = container?.runAsUser !== undefined ? container : pod;
  if (user?.runAsUser !== undefined && user.runAsUser !== 0) {
    paths.push(
      `${user === container ? `${containerPath}.securityContext` : 'spec.pod.securityContext'}.runAsUser`,
    );
  }
  const nonRoot = container?.runAsNonRoot !== undefined ? container : pod;
  if (nonRoot?.runAsNonRoot === true) {
    paths.push(
      `${nonRoot === container ? `${containerPath}.securityContext` : 'spec.pod.securityContext'}.runAsNonRoot`,
    );
  }
  return paths;
}

const CEL_POD_CONTEXT = 'has(self.pod) && has(self.pod.securityContext)';
const CEL_OWN_USER = (c: string) => `has(${c}.securityContext) && has(${c}.securityContext.runAsUser)`;
const CEL_OWN_NON_ROOT = (c: string) => `has(${c}.securityContext) && has(${c}.securityContext.runAsNonRoot)`;
const CEL_FLUX_CONTAINERS = (test: string) =>
  `self.containers.exists(container, ${celRunsFlux('self', 'container')} && (${test}))`;

/**
 * v1alpha2: a RESTful MiniCluster's Flux container starts as root (it then runs the jobs as
 * fluxUser). Two rules, so that each names where the other user is set: the container's own
 * securityContext, or the pod's for a container that sets none.
 */
export const RESTFUL_STARTS_AS_ROOT_RULES: CelRule[] = [
  {
    rule: `!(${CEL_SERVES_V1ALPHA2}) || !${CEL_FLUX_CONTAINERS(
      `(${CEL_OWN_USER('container')} && container.securityContext.runAsUser != 0) || (${CEL_OWN_NON_ROOT('container')} && container.securityContext.runAsNonRoot)`,
    )}`,
    message: `the Flux container's securityContext ${NON_ROOT_START_MESSAGE}`,
    fieldPath: '.containers',
    reason: 'FieldValueForbidden',
  },
  {
    rule: `!(${CEL_SERVES_V1ALPHA2}) || !(${CEL_POD_CONTEXT}) || !${CEL_FLUX_CONTAINERS(
      `(!(${CEL_OWN_USER('container')}) && has(self.pod.securityContext.runAsUser) && self.pod.securityContext.runAsUser != 0) || (!(${CEL_OWN_NON_ROOT('container')}) && has(self.pod.securityContext.runAsNonRoot) && self.pod.securityContext.runAsNonRoot)`,
    )}`,
    message: `spec.pod.securityContext ${NON_ROOT_START_MESSAGE}`,
    fieldPath: '.pod.securityContext',
    reason: 'FieldValueForbidden',
  },
];

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
  message: `spec.users ${USERS_MESSAGE_V1ALPHA1}`,
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
  restfulRootJobsRule(CEL_SERVES),
  RESTFUL_COMMAND_RULE,
  RESTFUL_JOINS_RULE,
  RESTFUL_USERS_RULE,
  RESTFUL_PORT_RULE,
  RESTFUL_USERNAME_RULE,
];
