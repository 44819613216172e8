/**
 * Checks of a burst target's kubeconfig (the text of a Secret key) before the operator uses it.
 * Pure: no I/O, and nothing in the kubeconfig may make the operator do I/O of its own.
 *
 * A kubeconfig can run commands (`exec`, `auth-provider`) and read files (`token-file`,
 * `client-certificate`, `client-key`, `certificate-authority`). From a user's Secret, inside the
 * operator, either would be a way to run code as the operator or to send the operator's own files
 * (its service account token) to a server of the user's choosing; both are refused with a message
 * naming the entry and the fix. Messages never quote values, which may be credentials.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { YAMLParseError, parse } from 'yaml';

export type KubeconfigCheck =
  | {
      readonly ok: true;
      /** Only the current context, its cluster and its user. */
      readonly config: KubeConfig;
      /** The API server URL of the current context. */
      readonly server: string;
      /** The user entry's name (not a secret; for messages). */
      readonly user: string;
    }
  | { readonly ok: false; readonly message: string };

const FLATTEN_HINT = 'kubectl config view --flatten --minify';

type Entry = Record<string, unknown>;

function isObject(value: unknown): value is Entry {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(message: string): KubeconfigCheck {
  return { ok: false, message };
}

/** Settings of a `users[].user` entry that make the client run a command. */
const COMMAND_SETTINGS: Record<string, string> = {
  exec: 'an exec plugin',
  'auth-provider': 'an auth-provider plugin',
};

/** Settings that make the client read a file on the operator's disk, and their inline replacement. */
const USER_FILE_SETTINGS: Record<string, string> = {
  'token-file': 'token',
  'client-certificate': 'client-certificate-data',
  'client-key': 'client-key-data',
};
const CLUSTER_FILE_SETTINGS: Record<string, string> = {
  'certificate-authority': 'certificate-authority-data',
};

function named(list: unknown, field: string): { name: string; body: Entry }[] {
  if (!Array.isArray(list)) return [];
  return list.filter(isObject).map((item) => ({
    name: typeof item.name === 'string' ? item.name : '',
    body: isObject(item[field]) ? item[field] : {},
  }));
}

/** Problems that must stop the kubeconfig from being loaded at all (the client acts on load). */
export function unsafeSettings(document: Entry): string[] {
  const problems: string[] = [];
  for (const [index, user] of named(document.users, 'user').entries()) {
    const where = `users[${index}] (${JSON.stringify(user.name)})`;
    for (const [setting, what] of Object.entries(COMMAND_SETTINGS)) {
      if (user.body[setting] !== undefined) {
        problems.push(
          `${where} uses ${what} (${setting}), which would run a command inside the operator; use a token or client certificate instead (for example a ServiceAccount token from \`kubectl create token\`)`,
        );
      }
    }
    for (const [setting, inline] of Object.entries(USER_FILE_SETTINGS)) {
      if (user.body[setting] !== undefined) {
        problems.push(
          `${where} sets ${setting}, a file path the operator would read from its own disk; inline it as ${inline} (\`${FLATTEN_HINT}\`)`,
        );
      }
    }
  }
  for (const [index, cluster] of named(document.clusters, 'cluster').entries()) {
    for (const [setting, inline] of Object.entries(CLUSTER_FILE_SETTINGS)) {
      if (cluster.body[setting] !== undefined) {
        problems.push(
          `clusters[${index}] (${JSON.stringify(cluster.name)}) sets ${setting}, a file path the operator would read from its own disk; inline it as ${inline} (\`${FLATTEN_HINT}\`)`,
        );
      }
    }
  }
  return problems;
}

function hasCredentials(user: Entry): boolean {
  return (
    typeof user.token === 'string' ||
    (user['client-certificate-data'] !== undefined && user['client-key-data'] !== undefined) ||
    (typeof user.username === 'string' && typeof user.password === 'string')
  );
}

function parseYaml(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: parse(text, { merge: true, maxAliasCount: 100 }) as unknown };
  } catch (error) {
    // Only the position: YAML errors quote the surrounding text, which may be a credential.
    const line = error instanceof YAMLParseError ? error.linePos?.[0]?.line : undefined;
    return { ok: false, message: `is not valid YAML${line === undefined ? '' : ` (line ${line})`}` };
  }
}

/**
 * Parses and checks a kubeconfig: YAML, no command plugins or file paths anywhere, a current
 * context whose cluster has an http(s) server and whose user carries credentials. `source` names
 * where the text came from (`Secret ns/name key kubeconfig`) and starts every message.
 */
export function checkKubeconfig(text: string, source: string): KubeconfigCheck {
  if (text.trim() === '') return fail(`${source} is empty; put a kubeconfig there (\`${FLATTEN_HINT}\`)`);
  const parsed = parseYaml(text);
  if (!parsed.ok) return fail(`${source} ${parsed.message}; put a kubeconfig there (\`${FLATTEN_HINT}\`)`);
  const document = parsed.value;
  if (!isObject(document))
    return fail(`${source} is not a kubeconfig (a YAML object with clusters, contexts and users)`);

  const unsafe = unsafeSettings(document);
  if (unsafe.length > 0) return fail(`${source}: ${unsafe.join('; ')}`);

  const currentContext = document['current-context'];
  if (typeof currentContext !== 'string' || currentContext === '') {
    return fail(`${source} has no current-context; set it to the context of the target cluster`);
  }
  const context = named(document.contexts, 'context').find((entry) => entry.name === currentContext);
  if (!context)
    return fail(`${source}: current-context ${JSON.stringify(currentContext)} is not in contexts`);
  const clusterName = context.body.cluster;
  const userName = context.body.user;
  const cluster = named(document.clusters, 'cluster').find((entry) => entry.name === clusterName);
  if (!cluster) {
    return fail(
      `${source}: cluster ${JSON.stringify(clusterName)} of context ${JSON.stringify(currentContext)} is not in clusters`,
    );
  }
  const server = cluster.body.server;
  if (typeof server !== 'string' || !/^https?:\/\/[^/\s]+/.test(server)) {
    return fail(
      `${source}: cluster ${JSON.stringify(cluster.name)} needs a server URL such as https://host:6443`,
    );
  }
  const user = named(document.users, 'user').find((entry) => entry.name === userName);
  if (!user) {
    return fail(
      `${source}: user ${JSON.stringify(userName)} of context ${JSON.stringify(currentContext)} is not in users`,
    );
  }
  if (!hasCredentials(user.body)) {
    return fail(
      `${source}: user ${JSON.stringify(user.name)} has no credentials (token, client-certificate-data with client-key-data, or username with password); the target would treat the operator as anonymous`,
    );
  }

  const loaded = new KubeConfig();
  try {
    // The document as checked, not the text: another YAML parser could read the text differently
    // (merge keys, tags) and see a setting the checks above did not. JSON reads the same everywhere.
    loaded.loadFromString(JSON.stringify(document));
  } catch (error) {
    // The client's own checks name entries, not values (`clusters[0].name is missing`).
    return fail(
      `${source} is not a valid kubeconfig: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const loadedCluster = loaded.getCluster(cluster.name);
  const loadedUser = loaded.getUser(user.name);
  if (!loadedCluster || !loadedUser) return fail(`${source} is not a valid kubeconfig`);

  // Keep only what is used: nothing else in the Secret can influence later requests.
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [loadedCluster],
    users: [loadedUser],
    contexts: [{ name: currentContext, cluster: loadedCluster.name, user: loadedUser.name }],
    currentContext,
  });
  return { ok: true, config, server: loadedCluster.server, user: user.name };
}
