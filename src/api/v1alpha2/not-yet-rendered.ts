/**
 * The v1alpha2 fields the operator does not act on yet: it renders MiniClusters from their v1alpha1
 * form until the renderer is ported to v1alpha2, and these have none. The controller refuses a
 * MiniCluster that sets one (by name, with `notYetRenderedProblems`) rather than run it without;
 * a field set to what the renderer does anyway (its default) is no refusal. The renderer's port
 * empties this table.
 */
import type { Problem } from '../problems.ts';
import { isObject } from './json.ts';

export interface NotYetRendered {
  /** Field path; `*` stands for any list item or map key. */
  readonly path: string;
  /** What it does in v1alpha2, for the refusal. */
  readonly what: string;
  /** Values the renderer already gives it (as it renders everything today). Unset: none. */
  readonly accepts?: (
    value: unknown,
    parent: Record<string, unknown>,
    spec: Record<string, unknown>,
  ) => boolean;
  /** The value an absent field stands for, when that is a value the renderer does not give it. */
  readonly absentMeans?: (parent: Record<string, unknown>, spec: Record<string, unknown>) => unknown;
}

const is =
  (...values: unknown[]) =>
  (value: unknown): boolean =>
    values.includes(value);

/** The renderer's container security context: privileged and added capabilities only. */
const SECURITY_FIELDS = [
  'seLinuxOptions',
  'runAsUser',
  'runAsGroup',
  'runAsNonRoot',
  'seccompProfile',
  'readOnlyRootFilesystem',
  'allowPrivilegeEscalation',
  'procMount',
  'capabilities.drop',
];

function containerEntries(list: 'containers' | 'services'): NotYetRendered[] {
  return [
    {
      path: `spec.${list}[*].imagePullPolicy`,
      what: 'the pull policy (the renderer pulls Always with pullAlways, else IfNotPresent)',
      accepts: (value, container) => value === (container.pullAlways === true ? 'Always' : 'IfNotPresent'),
    },
    ...SECURITY_FIELDS.map((field) => ({
      path: `spec.${list}[*].securityContext.${field}`,
      what: 'a security setting beyond privileged and capabilities.add',
    })),
    { path: `spec.${list}[*].volumes[*].csiDriver`, what: 'an inline CSI volume' },
  ];
}

function isSidecar(container: Record<string, unknown>, spec: Record<string, unknown>): boolean {
  const containers = Array.isArray(spec.containers) ? spec.containers : [];
  return containers.length > 1 && container.runFlux !== true;
}

export const NOT_YET_RENDERED: readonly NotYetRendered[] = [
  { path: 'spec.minSize', what: "the brokers Flux waits for (the renderer's quorum is size)" },
  { path: 'spec.backoffLimit', what: "the Job's retries (the renderer's Job has none)", accepts: is(0) },
  { path: 'spec.network.disableAffinity', what: 'the brokers without pod affinity', accepts: is(false) },
  {
    path: 'spec.pod.restartPolicy',
    what: "the pods' restart policy (the renderer's is Never)",
    accepts: is('Never'),
  },
  { path: 'spec.pod.runtimeClassName', what: 'the RuntimeClass of the pods' },
  { path: 'spec.pod.automountServiceAccountToken', what: "mounting the service account's token" },
  { path: 'spec.pod.schedulerName', what: 'the scheduler of the pods' },
  { path: 'spec.pod.nodeAffinity', what: "the nodes' labels the pods require" },
  { path: 'spec.pod.dnsPolicy', what: "the pods' DNS policy", accepts: is('ClusterFirst') },
  { path: 'spec.pod.hostIPC', what: "the node's IPC namespace", accepts: is(false) },
  { path: 'spec.pod.hostPID', what: "the node's process namespace", accepts: is(false) },
  { path: 'spec.pod.securityContext', what: "the pods' security context" },
  {
    path: 'spec.flux.container.disable',
    what: 'Flux from the view (unset or false): the renderer runs the Flux of the application image, which disable: true says',
    accepts: is(true),
    absentMeans: () => false,
  },
  ...['image', 'workingDir', 'pythonPath', 'resources', 'imagePullSecret', 'securityContext'].map(
    (field) => ({
      path: `spec.flux.container.${field}`,
      what: 'a setting of the Flux view init container, which the renderer does not make',
    }),
  ),
  { path: 'spec.flux.container.name', what: 'the view init container name', accepts: is('flux-view') },
  { path: 'spec.flux.container.mountPath', what: "the view's mount path", accepts: is('/mnt/flux') },
  { path: 'spec.flux.container.pullAlways', what: 'pulling the view image', accepts: is(false) },
  { path: 'spec.flux.disableSocket', what: "Flux's default socket", accepts: is(false) },
  { path: 'spec.flux.noWaitSocket', what: "not waiting for Flux's socket", accepts: is(false) },
  { path: 'spec.flux.completeWorkers', what: 'workers that end when they fail', accepts: is(false) },
  { path: 'spec.flux.environment', what: "the view's environment file" },
  { path: 'spec.flux.scheduler.simple', what: 'scheduling with sched-simple', accepts: is(false) },
  { path: 'spec.containers[*].logs', what: "the batch jobs' output directory" },
  { path: 'spec.containers[*].commands.script', what: 'a script in place of the command' },
  { path: 'spec.containers[*].commands.servicePre', what: 'shell run first in a container beside Flux' },
  {
    path: 'spec.containers[*].noWrapEntrypoint',
    what: 'a container beside Flux wrapped to wait for Flux (unset or false): the renderer runs it as it is, which noWrapEntrypoint: true says',
    accepts: (value, container, spec) => value === true || !isSidecar(container, spec),
    absentMeans: (container, spec) => (isSidecar(container, spec) ? false : undefined),
  },
  ...containerEntries('containers'),
  ...containerEntries('services'),
];

/** The values at `segments` under `node`, with their parents and field paths. */
function found(
  node: unknown,
  segments: readonly string[],
  path: string,
): { path: string; parent: Record<string, unknown>; present: boolean; value: unknown }[] {
  const [head, ...rest] = segments;
  if (head === undefined || !isObject(node)) return [];
  const [field, wildcard] = head.endsWith('[*]') ? [head.slice(0, -3), true] : [head, false];
  const childPath = path === '' ? field : `${path}.${field}`;
  const present = Object.hasOwn(node, field);
  if (!wildcard) {
    if (rest.length === 0) return [{ path: childPath, parent: node, present, value: node[field] }];
    // An absent object reads as an empty one: its fields are absent, which may mean something.
    return found(present ? node[field] : {}, rest, childPath);
  }
  const collection = node[field];
  const items: [string, unknown][] = Array.isArray(collection)
    ? collection.map((item, index) => [String(index), item])
    : isObject(collection)
      ? Object.entries(collection)
      : [];
  return items.flatMap(([key, item]) => found(item, rest, `${childPath}[${key}]`));
}

/** The fields of a v1alpha2 MiniCluster (as given) that the operator does not act on yet. */
export function notYetRenderedProblems(miniCluster: unknown): Problem[] {
  if (!isObject(miniCluster) || !isObject(miniCluster.spec)) return [];
  const spec = miniCluster.spec;
  return NOT_YET_RENDERED.flatMap((entry) =>
    found(miniCluster, entry.path.split('.'), '').flatMap(({ path, parent, present, value }) => {
      const effective = present ? value : entry.absentMeans?.(parent, spec);
      if (effective === undefined || entry.accepts?.(effective, parent, spec) === true) return [];
      return [
        {
          path,
          message: `is not acted on by this operator yet (${entry.what}); remove it, or wait for the renderer's v1alpha2 port`,
        },
      ];
    }),
  );
}
