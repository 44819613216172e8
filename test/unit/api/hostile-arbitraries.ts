/**
 * MiniClusters over the whole schema, for property tests of the validator, the CRD and render: the
 * shapes a user writes (every field, every bursting side) filled with hostile but legal contents
 * (quotes, shell syntax, every kind of whitespace, non-ASCII, lone surrogates, names at their
 * length limits, edge quantities), cross-field combinations that may break a rule, and mutations
 * that put hostile text or numbers (NUL, 2^53+2, ...) into any one field. Some are invalid; enough
 * are valid to reach render.
 *
 * Shared by test/unit/api/render.property.test.ts and test/integration/validation-parity.test.ts.
 */
import fc from 'fast-check';
import { QUEUE_POLICIES } from '../../../src/api/shared/flux-fields.ts';
import { CURVE_CERT } from './fixtures.ts';

/** Pieces that break naive quoting, parsing and counting (NUL comes with mutations). */
const HOSTILE_PIECES = [
  "'",
  '"',
  '`',
  '$',
  '$(id)',
  '\\',
  '\n',
  '\r\n',
  '\t',
  '\v',
  ' ',
  '\u00a0',
  '\u3000',
  '\u2028',
  '\ufeff',
  '\u0085',
  '#',
  '..',
  '/',
  ',',
  '[',
  ']',
  '=',
  ':',
  '%',
  '-',
  '*',
  'é',
  '😀',
  '\ud800',
  'a',
  '0',
];

/** Text of any kind but NUL. */
function text(maxLength: number): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ maxLength }),
    fc.string({ unit: 'binary', maxLength }).map((value) => value.replaceAll('\0', '')),
    fc.array(fc.constantFrom(...HOSTILE_PIECES), { maxLength: 10 }).map((pieces) => pieces.join('')),
  );
}

/** Absent two times out of three: a MiniCluster sets a few of its optional fields. */
function sometimes<T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.oneof({ arbitrary: fc.constant(undefined), weight: 2 }, { arbitrary, weight: 1 });
}

/** Values that break a rule, now and then. */
function mostly<T, U>(valid: fc.Arbitrary<T>, invalid: fc.Arbitrary<U>): fc.Arbitrary<T | U> {
  return fc.oneof({ arbitrary: valid, weight: 12 }, { arbitrary: invalid, weight: 1 });
}

const dnsLabel = fc.stringMatching(/^[a-z]([-a-z0-9]{0,6}[a-z0-9])?$/);
/** Host name prefixes: short, the defaults of unnamed burst clusters, and ones at the length limit. */
const hostPrefix = fc.oneof(
  { arbitrary: dnsLabel, weight: 6 },
  { arbitrary: fc.constantFrom('burst-0', 'burst-1', 'lead', 'mc-a', 'mc-b'), weight: 3 },
  { arbitrary: fc.integer({ min: 58, max: 63 }).map((length) => `b${'x'.repeat(length - 1)}`), weight: 1 },
);

const labelKey = mostly(
  fc.stringMatching(/^([a-z]{1,6}\.[a-z]{2,3}\/)?[a-zA-Z][-a-zA-Z0-9_.]{0,8}[a-zA-Z0-9]$/),
  fc.constantFrom(
    'app.kubernetes.io/name',
    `${'a'.repeat(254)}/x`,
    `x/${'a'.repeat(64)}`,
    'a b',
    '-x',
    'a/b/c',
  ),
);
const labelValue = fc.stringMatching(/^([A-Za-z0-9][-A-Za-z0-9_.]{0,10}[A-Za-z0-9])?$/);
const labels = fc.dictionary(labelKey, labelValue, { maxKeys: 2 });

const quantity = fc.oneof(
  fc.nat(64),
  fc.constantFrom(
    '500m',
    '2Gi',
    '1e3',
    '0',
    '1.5',
    '+5',
    '5.',
    '.5',
    '2Mi',
    '4Mi',
    '3Mi',
    '1Gi',
    '1000m',
    '1E',
  ),
  fc.constantFrom('0.0000000001', '1e-99', '9007199254740992', '1e99'),
);
const resourceName = mostly(
  fc.constantFrom('cpu', 'memory', 'ephemeral-storage', 'hugepages-2Mi', 'hugepages-1Gi', 'example.com/gpu'),
  fc.constantFrom('kubernetes.io/foo', 'requests.example.com/x', 'pods', 'hugepages-abc'),
);
const quantities = fc.dictionary(resourceName, quantity, { maxKeys: 2 });

const mountPath = mostly(
  fc.constantFrom('/data', '/scratch', '/data/', '/a/...', '//x', '/d\u00e9j\u00e0 vu', "/it's"),
  fc.constantFrom('/mnt/flux', '/etc/flux/config'),
);
const hostPath = mostly(fc.constantFrom('/srv/data', '/', '/a/...'), fc.constantFrom('/a/../b', '/..'));
const itemPath = mostly(
  fc.constantFrom('app.toml', 'a/b', './a', 'a//b', '...', '..x/y'.slice(3)),
  fc.constantFrom('../x', '..x', '/abs'),
);

const volume = fc.oneof(
  fc.record({
    path: mountPath,
    claimName: fc.constantFrom('data', 'other'),
    readOnly: sometimes(fc.boolean()),
  }),
  fc.record({
    path: mountPath,
    emptyDir: fc.constant(true),
    emptyDirMedium: sometimes(fc.constantFrom('Memory', 'HugePages')),
    emptyDirSizeLimit: sometimes(quantity),
  }),
  fc.record({
    path: mountPath,
    configMapName: fc.constantFrom('app', 'other'),
    items: sometimes(fc.dictionary(fc.constantFrom('key', 'k.toml'), itemPath, { maxKeys: 2 })),
  }),
  fc.record({ path: mountPath, secretName: fc.constant('s') }),
  fc.record({ path: mountPath, hostPath }),
  // No source: names an entry of spec.volumes (or no entry).
  fc.record({ path: mountPath, readOnly: sometimes(fc.boolean()) }),
);
const volumeName = mostly(
  fc.constantFrom('data', 'scratch', 'cfg'),
  fc.constantFrom('flux-operator-state', 'Data'),
);
const volumes = fc.dictionary(volumeName, volume, { maxKeys: 2 });

const environmentName = mostly(
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.-]{0,6}$/),
  fc.constantFrom('1ABC', 'a b', 'a=b'),
);

/** Shell text: commands, comment-only and blank lines, anything. */
const shell = fc.oneof(
  fc.constantFrom(
    'hostname',
    'echo "$HOME"',
    "echo 'a' \\\n  b",
    '# only a comment',
    '\n\n',
    'a\nb\n# c',
    ' \u3000\n#x',
    '',
  ),
  text(40),
);

const containerFields = fc.record({
  image: mostly(
    fc.constantFrom('fluxrm/flux-sched:jammy', 'busybox:1.36', 'r.example.com:5000/a/b@sha256:0'),
    fc.constantFrom(' spaced', 'é'),
  ),
  command: sometimes(shell),
  workingDir: sometimes(mountPath),
  environment: sometimes(fc.dictionary(environmentName, text(20), { maxKeys: 2 })),
  ports: sometimes(fc.uniqueArray(fc.integer({ min: 1, max: 65535 }), { maxLength: 2 })),
  resources: sometimes(fc.record({ limits: sometimes(quantities), requests: sometimes(quantities) })),
  cores: sometimes(fc.integer({ min: 1, max: 64 })),
  pullAlways: sometimes(fc.boolean()),
  mode: fc.constantFrom(
    {},
    {},
    { launcher: true },
    { batch: true },
    { batch: true, batchRaw: true },
    { batchRaw: true },
  ),
  volumes: sometimes(volumes),
  existingVolumes: sometimes(volumes),
  fluxUser: sometimes(
    fc.record({ name: sometimes(fc.constantFrom('flux', 'root', 'user_1')), uid: sometimes(fc.nat(65535)) }),
  ),
  commands: sometimes(
    fc.record({
      init: sometimes(shell),
      pre: sometimes(shell),
      brokerPre: sometimes(shell),
      workerPre: sometimes(shell),
      post: sometimes(shell),
      prefix: sometimes(shell),
      runFluxAsRoot: sometimes(fc.boolean()),
    }),
  ),
  lifeCycle: sometimes(fc.record({ postStartExec: sometimes(shell), preStopExec: sometimes(shell) })),
  securityContext: sometimes(
    fc.record({
      privileged: sometimes(fc.boolean()),
      addCapabilities: sometimes(fc.uniqueArray(fc.constantFrom('SYS_ADMIN', 'NET_RAW'), { maxLength: 2 })),
    }),
  ),
  imagePullSecret: sometimes(fc.constant('pull')),
});

/** One to three containers, mostly with exactly one Flux runner and named sidecars. */
const containers = fc.integer({ min: 1, max: 3 }).chain((count) =>
  fc
    .tuple(
      fc.integer({ min: 0, max: count - 1 }),
      fc.array(containerFields, { minLength: count, maxLength: count }),
      fc.array(sometimes(fc.constantFrom('runner', 'mc-a', 'side-1')), {
        minLength: count,
        maxLength: count,
      }),
    )
    .map(([runner, fields, names]) =>
      fields.map(({ mode, ...fields }, index) => {
        const container = { ...fields, ...mode };
        if (count === 1) return { ...container, name: names[0] };
        const name = names[index] ?? (index === runner ? undefined : `side-${index}`);
        return { ...container, name, runFlux: index === runner ? true : undefined };
      }),
    ),
);

/** v1alpha1 service containers: named (now and then twice), some with a Flux container field. */
const services = fc.array(
  fc
    .tuple(
      containerFields,
      mostly(fc.constantFrom('web', 'db', 'cache'), fc.constantFrom('Web', '')),
      fc.oneof(
        { arbitrary: fc.constant({}), weight: 8 },
        {
          arbitrary: fc.constantFrom(
            { runFlux: true },
            { runFlux: false },
            { launcher: false },
            { commands: { pre: 'x' } },
            { fluxUser: {} },
            { cores: 2 },
          ),
          weight: 1,
        },
      ),
    )
    .map(
      ([
        { mode: _mode, cores: _cores, fluxUser: _fluxUser, commands: _commands, ...fields },
        name,
        flux,
      ]) => ({
        ...fields,
        name,
        ...flux,
      }),
    ),
  { maxLength: 2 },
);

const toleration = fc.record({
  key: sometimes(mostly(fc.oneof(labelKey, fc.constant('')), fc.constantFrom('a b', 'a"b', '$x', 'é'))),
  operator: sometimes(fc.constantFrom('Exists', 'Equal')),
  value: sometimes(labelValue),
  effect: sometimes(fc.constantFrom('NoSchedule', 'PreferNoSchedule', 'NoExecute')),
  tolerationSeconds: sometimes(fc.nat(3600)),
});

const pod = fc.record({
  annotations: sometimes(
    fc.dictionary(labelKey, fc.oneof(text(20), fc.constant('x'.repeat(60000))), { maxKeys: 5 }),
  ),
  labels: sometimes(labels),
  serviceAccountName: sometimes(fc.constant('flux')),
  nodeSelector: sometimes(labels),
  tolerations: sometimes(fc.array(toleration, { maxLength: 2 })),
  resources: sometimes(
    fc.dictionary(mostly(fc.constantFrom('cpu', 'memory'), fc.constant('hugepages-2Mi')), quantity, {
      maxKeys: 2,
    }),
  ),
});

const hostlist = fc.oneof(
  fc.tuple(hostPrefix, fc.nat(8), fc.nat(8)).map(([name, first, last]) => `${name}-[${first}-${last}]`),
  fc.constantFrom(
    'a,b,c,d',
    'a,a,b',
    'n[0-3],n2',
    'n[01-03]',
    'n[1,05]',
    'n[0-3]x',
    'n[0-3]x[1]',
    'a b',
    'a,,b',
  ),
);

const clusters = fc.array(
  fc.record({ name: sometimes(hostPrefix), size: sometimes(fc.integer({ min: 1, max: 8 })) }),
  {
    maxLength: 3,
  },
);

const bursting = fc.oneof(
  fc.record({
    clusters: sometimes(clusters),
    expose: sometimes(
      fc.record({
        type: sometimes(fc.constantFrom('NodePort', 'LoadBalancer')),
        nodePort: sometimes(fc.integer({ min: 30000, max: 32767 })),
      }),
    ),
    policy: sometimes(
      fc.record({
        maxBurstNodes: sometimes(fc.nat(100)),
        targets: sometimes(
          fc.array(fc.record({ name: hostPrefix, maxNodes: sometimes(fc.nat(10)) }), { maxLength: 2 }),
        ),
      }),
    ),
  }),
  fc.record({
    leadBroker: fc.record({
      address: mostly(
        fc.constantFrom('203.0.113.7', 'lead.example.com', '::1', 'fe80::1'),
        fc.constantFrom(' ', 'a b', 'a_b'),
      ),
      name: hostPrefix,
      size: fc.integer({ min: 1, max: 8 }),
      port: sometimes(fc.integer({ min: 1, max: 65535 })),
    }),
    slot: sometimes(hostPrefix),
    clusters: sometimes(clusters),
  }),
  fc.record({ hostlist }),
);

const brokerConfig = fc.oneof(
  fc.constantFrom(
    '[bootstrap]\ncurve_cert = "/etc/curve/curve.cert"\ndefault_connect = "tcp://%h.flux-service.default.svc.cluster.local:%p"\n[resource]\npath = "/etc/flux/system/R"\n',
    '[resource]\npath = "/a\\u0000b"\n',
    `[resource]\npath = "/${'p'.repeat(5000)}"\n`,
    'not = [toml',
  ),
  text(30),
);

/** The lead broker needs the lead's keys; a MiniCluster that joins one usually has them. */
const flux = fc.record({
  optionFlags: sometimes(
    fc.oneof(
      fc.constantFrom('-ompi=openmpi@5', "--setattr=user.note='a b'", '-o cpu-affinity=per-task'),
      text(20),
    ),
  ),
  logLevel: sometimes(fc.integer({ min: 0, max: 7 })),
  connectTimeout: sometimes(fc.constantFrom('5s', '1m30s')),
  wrap: sometimes(fc.oneof(fc.constantFrom('strace,-e,network', ',,'), text(12))),
  submitCommand: sometimes(fc.oneof(fc.constantFrom('flux batch', 'flux submit --quiet'), text(12))),
  topology: sometimes(fc.constantFrom('kary:2', 'binomial', 'mincrit:8')),
  minimalService: sometimes(fc.boolean()),
  installRoot: sometimes(mountPath),
  curveCert: sometimes(mostly(fc.constant(CURVE_CERT), text(20))),
  curveCertSecret: fc.oneof(fc.constant(undefined), fc.constant('curve')),
  mungeSecret: fc.oneof(fc.constant(undefined), fc.constant('munge')),
  brokerConfig: sometimes(brokerConfig),
  bursting: sometimes(bursting),
  scheduler: sometimes(fc.record({ queuePolicy: fc.constantFrom(...QUEUE_POLICIES) })),
  bootServer: fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 6 },
    { arbitrary: hostPrefix, weight: 1 },
  ),
  bootServerSize: fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 6 },
    { arbitrary: fc.integer({ min: 1, max: 8 }), weight: 1 },
  ),
});

/** `spec.volumes`: storage the operator provisions (hostpath, CSI, or a class's provisioner). */
const storageVolume = fc.record({
  storageClass: sometimes(
    mostly(fc.constantFrom('hostpath', 'csi-gcs', 'standard'), fc.constantFrom('Bad', '')),
  ),
  path: sometimes(hostPath),
  capacity: sometimes(mostly(fc.constantFrom('5Gi', '25Gi', 1), fc.constantFrom('0', 0, '-1'))),
  delete: sometimes(fc.boolean()),
  labels: sometimes(labels),
  annotations: sometimes(fc.dictionary(labelKey, text(10), { maxKeys: 2 })),
  claimAnnotations: sometimes(fc.dictionary(labelKey, text(10), { maxKeys: 2 })),
  driver: sometimes(mostly(fc.constant('gcs.csi.ofek.dev'), fc.constantFrom('-bad', 'a b'))),
  volumeHandle: sometimes(fc.constantFrom('bucket/path', 'h')),
  attributes: sometimes(fc.dictionary(fc.constantFrom('mounter', 'a'), text(10), { maxKeys: 2 })),
  secret: sometimes(fc.constantFrom('csi-secret', 'Bad_Name')),
  secretNamespace: fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 8 },
    { arbitrary: fc.constant('default'), weight: 1 },
  ),
});
const storageVolumes = fc.dictionary(volumeName, storageVolume, { maxKeys: 2 });

/** A MiniCluster shaped as a user would write it, with hostile contents. */
export const shapedMiniCluster = fc
  .record({
    name: fc.oneof(
      { arbitrary: dnsLabel.map((name) => `mc-${name}`), weight: 8 },
      { arbitrary: fc.constantFrom('lead', 'burst-0', 'mc-a', `m${'c'.repeat(60)}`), weight: 1 },
    ),
    size: sometimes(fc.integer({ min: 1, max: 6 })),
    extra: sometimes(fc.integer({ min: 0, max: 6 })),
    tasks: sometimes(fc.oneof(fc.integer({ min: 1, max: 16 }), fc.constant(2147483647))),
    interactive: sometimes(fc.boolean()),
    deadlineSeconds: sometimes(fc.oneof(fc.integer({ min: 1, max: 100000 }), fc.constant(2 ** 53 - 1))),
    jobLabels: sometimes(labels),
    containers,
    services: sometimes(services),
    logging: sometimes(
      fc.record({
        quiet: sometimes(fc.boolean()),
        strict: sometimes(fc.boolean()),
        debug: sometimes(fc.boolean()),
        zeromq: sometimes(fc.boolean()),
        timed: sometimes(fc.boolean()),
      }),
    ),
    network: sometimes(fc.record({ headlessName: sometimes(dnsLabel), sharedSelector: sometimes(labels) })),
    pod: sometimes(pod),
    flux: sometimes(flux),
    archive: sometimes(fc.record({ path: mountPath })),
    volumes: sometimes(storageVolumes),
    cleanup: sometimes(fc.boolean()),
  })
  .map(({ name, size, extra, ...spec }) => ({
    apiVersion: 'flux-framework.org/v1alpha1',
    kind: 'MiniCluster',
    metadata: { name },
    spec: { size, maxSize: extra === undefined ? undefined : (size ?? 1) + extra, ...spec },
  }));

/** Every path (as keys) into a JSON value. */
/** Every path into a JSON value (the value's own, empty path first). */
export function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [prefix];
  const entries = Array.isArray(value)
    ? value.map((item, index) => [index, item] as const)
    : Object.entries(value);
  return [prefix, ...entries.flatMap(([key, child]) => paths(child, [...prefix, key]))];
}

/** A copy of `target` with the value at `at` replaced (removed, for undefined in an object). */
export function setAt(target: unknown, at: (string | number)[], replacement: unknown): unknown {
  if (at.length === 0) return replacement;
  const copy = structuredClone(target) as Record<string | number, unknown>;
  let node = copy;
  for (const key of at.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = at.at(-1) ?? '';
  if (replacement === undefined && !Array.isArray(node)) Reflect.deleteProperty(node, last);
  else node[last] = replacement;
  return copy;
}

/** What a mutation puts into a field: text with NUL and the rest, edge numbers, wrong types. */
const replacement = fc.oneof(
  fc.constant(undefined),
  fc
    .array(fc.constantFrom('\0', ...HOSTILE_PIECES), { minLength: 1, maxLength: 6 })
    .map((pieces) => pieces.join('')),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.integer({ min: -2, max: 70000 }),
  fc.constantFrom(0, 2 ** 31, 2 ** 53 + 2, 1e20, 0.5, true, null, [], {}, ''),
);

/** JSON as the API server receives it: no undefined fields. */
function asJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

/** A shaped MiniCluster with one spec field (anywhere) replaced, removed or emptied. */
export const mutatedMiniCluster = fc
  .tuple(shapedMiniCluster, fc.nat(), replacement)
  .map(([miniCluster, pick, value]) => {
    const json = asJson(miniCluster);
    const all = paths(json).filter((at) => at.length >= 2 && at[0] === 'spec');
    return all.length === 0 ? json : setAt(json, all[pick % all.length] ?? [], value);
  });

/** What property tests run on: mostly shaped MiniClusters, some mutated; as JSON would carry them. */
export const hostileMiniCluster: fc.Arbitrary<unknown> = fc
  .oneof({ arbitrary: shapedMiniCluster, weight: 2 }, { arbitrary: mutatedMiniCluster, weight: 1 })
  .map(asJson);
