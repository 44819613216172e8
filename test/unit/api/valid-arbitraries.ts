/**
 * Arbitraries of valid MiniClusters, for the property tests of the hub (v1alpha2) and the spoke
 * (v1alpha1): every field drawn within the ranges the schemas allow, so each must be accepted.
 */
import fc from 'fast-check';
import type { Container, MiniCluster } from '../../../src/api/index.ts';
import { QUEUE_POLICIES } from '../../../src/api/shared/flux-fields.ts';
import type { ContainerV1alpha1, MiniClusterV1alpha1 } from '../../../src/api/v1alpha1/schema.ts';

const dnsLabel = (maxTail: number) =>
  fc.stringMatching(new RegExp(`^[a-z]([-a-z0-9]{0,${maxTail}}[a-z0-9])?$`));
const labelValue = fc.stringMatching(/^([A-Za-z0-9]([-A-Za-z0-9_.]{0,20}[A-Za-z0-9])?)?$/);
const labelKey = fc.stringMatching(/^(example\.com\/)?[a-z][a-z0-9]{0,10}$/);

const volumeName = dnsLabel(8);

/** Volumes whose source is derived from their name, so equal names across containers agree. */
const volumes = fc
  .dictionary(volumeName, fc.boolean(), { maxKeys: 2 })
  .map((entries) =>
    Object.fromEntries(
      Object.entries(entries).map(([name, readOnly]) => [
        name,
        name.length % 2 === 0
          ? { path: `/scratch/${name}`, emptyDir: true }
          : { path: `/data/${name}`, claimName: name, readOnly },
      ]),
    ),
  );

// Built once: constructing arbitraries (regular expressions especially) inside chain() is slow.
const containerFields = fc.record(
  {
    image: fc.constantFrom('fluxrm/flux-sched:jammy', 'ghcr.io/example/app:1.0'),
    command: fc.string({ maxLength: 40 }),
    workingDir: fc.constantFrom('/', '/opt/app'),
    environment: fc.dictionary(fc.stringMatching(/^[A-Z_]{1,8}$/), fc.string({ maxLength: 20 }), {
      maxKeys: 3,
    }),
    ports: fc.uniqueArray(fc.integer({ min: 1, max: 65535 }), { maxLength: 3 }),
    cores: fc.integer({ min: 1, max: 128 }),
    pullAlways: fc.boolean(),
    launcher: fc.boolean(),
    resources: fc.record(
      {
        limits: fc.dictionary(
          fc.constantFrom('cpu', 'memory'),
          fc.oneof(fc.nat(64), fc.constantFrom('500m', '2Gi')),
        ),
      },
      { requiredKeys: [] },
    ),
    volumes,
  },
  { requiredKeys: ['image'] },
);

function container(name: string | undefined, runFlux: boolean | undefined): fc.Arbitrary<ContainerV1alpha1> {
  return containerFields.map((fields) => ({
    ...fields,
    ...(name === undefined ? {} : { name }),
    ...(runFlux === undefined ? {} : { runFlux }),
  }));
}

/** Containers with unique names and exactly one Flux runner (named or not) when there are several. */
const containers: fc.Arbitrary<ContainerV1alpha1[]> = fc
  .integer({ min: 1, max: 3 })
  .chain((count) =>
    fc
      .integer({ min: 0, max: count - 1 })
      .chain((runnerIndex) =>
        fc.tuple(
          ...Array.from({ length: count }, (_, index) =>
            count === 1
              ? container(undefined, undefined)
              : index === runnerIndex
                ? container(undefined, true)
                : container(`sidecar-${index}`, index % 2 === 0 ? false : undefined),
          ),
        ),
      ),
  );

/** MiniClusters of the spoke (v1alpha1) drawn from the valid ranges of every field drawn. */
export const validMiniClusterV1alpha1: fc.Arbitrary<MiniClusterV1alpha1> = fc
  .record({
    name: dnsLabel(20).map((name) => `mc-${name}`),
    size: fc.integer({ min: 1, max: 64 }),
    extra: fc.option(fc.integer({ min: 0, max: 64 }), { nil: undefined }),
    containers,
    interactive: fc.boolean(),
    logging: fc.record(
      { quiet: fc.boolean(), strict: fc.boolean(), debug: fc.boolean() },
      { requiredKeys: [] },
    ),
    jobLabels: fc.dictionary(labelKey, labelValue, { maxKeys: 3 }),
    flux: fc.record(
      {
        logLevel: fc.integer({ min: 0, max: 7 }),
        connectTimeout: fc.constantFrom('5s', '1m30s', '250ms'),
        topology: fc.constantFrom('binomial', 'kary:2', 'mincrit', 'mincrit:8'),
        scheduler: fc.record({ queuePolicy: fc.constantFrom(...QUEUE_POLICIES) }),
        bursting: fc.record({
          clusters: fc.array(fc.record({ size: fc.integer({ min: 1, max: 16 }) }, { requiredKeys: [] }), {
            maxLength: 3,
          }),
        }),
      },
      { requiredKeys: [] },
    ),
  })
  .map(({ name, size, extra, ...spec }) => ({
    apiVersion: 'flux-framework.org/v1alpha1',
    kind: 'MiniCluster',
    metadata: { name },
    spec: { size, ...(extra === undefined ? {} : { maxSize: size + extra }), ...spec },
  }));

/** A sidecar (named `sidecar-<n>` above) may run its image's own entrypoint in the hub. */
function withHubContainerFields(containers: ContainerV1alpha1[], noWrap: boolean[]): Container[] {
  return containers.map((container, index) =>
    container.name?.startsWith('sidecar-') === true && noWrap[index] === true
      ? { ...container, noWrapEntrypoint: true }
      : container,
  );
}

/** What the hub (v1alpha2) has that v1alpha1 has not, drawn from their valid ranges. */
const hubExtras = fc.record({
  minSizeShare: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
  backoffLimit: fc.option(fc.nat(6), { nil: undefined }),
  noWrap: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  view: fc.option(
    fc.record(
      { mountPath: fc.constantFrom('/mnt/flux', '/opt/view'), medium: fc.constant('Memory' as const) },
      { requiredKeys: [] },
    ),
    { nil: undefined },
  ),
  socket: fc.record(
    { disableSocket: fc.boolean(), noWaitSocket: fc.boolean(), completeWorkers: fc.boolean() },
    { requiredKeys: [] },
  ),
  viewEnvironment: fc.dictionary(fc.stringMatching(/^[A-Z_]{1,8}$/), fc.string({ maxLength: 20 }), {
    maxKeys: 2,
  }),
});

/**
 * MiniClusters of the hub (v1alpha2, the stored version): every field the v1alpha1 arbitrary draws
 * (the versions share them, under the same names and shapes), plus the hub's own fields.
 */
export const validMiniCluster: fc.Arbitrary<MiniCluster> = fc
  .tuple(validMiniClusterV1alpha1, hubExtras)
  .map(([v1alpha1, extras]) => {
    const { spec } = v1alpha1;
    const minSize =
      extras.minSizeShare === undefined
        ? {}
        : { minSize: Math.max(1, Math.floor((spec.size ?? 1) * extras.minSizeShare)) };
    return {
      apiVersion: 'flux-framework.org/v1alpha2' as const,
      kind: 'MiniCluster' as const,
      metadata: v1alpha1.metadata,
      spec: {
        ...spec,
        ...minSize,
        ...(extras.backoffLimit === undefined ? {} : { backoffLimit: extras.backoffLimit }),
        containers: withHubContainerFields(spec.containers, extras.noWrap),
        flux: {
          ...spec.flux,
          ...extras.socket,
          ...(extras.view === undefined ? {} : { container: extras.view }),
          ...(Object.keys(extras.viewEnvironment).length > 0 ? { environment: extras.viewEnvironment } : {}),
        },
      },
    };
  });
