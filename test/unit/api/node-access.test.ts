import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BASELINE_CAPABILITIES,
  nodeAccessAnnotations,
  nodeAccessFields,
  nodeAccessRefusal,
} from '../../../src/api/index.ts';
import { toV1alpha1, toV1alpha2 } from '../../../src/api/v1alpha1/convert.ts';

describe('nodeAccessFields', () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['nothing', { containers: [{ image: 'a' }] }, []],
    [
      'what stays in the container: privileged false, baseline capabilities either spelling, drops, RuntimeDefault, container_t',
      {
        pod: { hostPID: false, securityContext: { seccompProfile: { type: 'RuntimeDefault' } } },
        containers: [
          {
            image: 'a',
            securityContext: {
              privileged: false,
              capabilities: { add: ['NET_BIND_SERVICE', 'CAP_CHOWN'], drop: ['ALL'] },
              seLinuxOptions: { type: 'container_t', level: 's0:c1,c2' },
            },
          },
          { image: 'b', securityContext: { addCapabilities: ['KILL'] } },
        ],
      },
      [],
    ],
    [
      "the node's namespaces (v1alpha2's pod)",
      { pod: { hostPID: true, hostIPC: true } },
      ['spec.pod.hostPID', 'spec.pod.hostIPC'],
    ],
    [
      'privileged and capabilities beyond the default set, in both versions, services too',
      {
        containers: [
          { image: 'a', securityContext: { privileged: true, addCapabilities: ['SYS_ADMIN', 'CHOWN'] } },
          { image: 'b', securityContext: { capabilities: { add: ['CAP_SYS_PTRACE'] } } },
        ],
        services: [{ name: 's', securityContext: { privileged: true } }],
      },
      [
        'spec.containers[0].securityContext.privileged',
        'spec.containers[0].securityContext.addCapabilities (SYS_ADMIN)',
        'spec.containers[1].securityContext.capabilities.add (CAP_SYS_PTRACE)',
        'spec.services[0].securityContext.privileged',
      ],
    ],
    [
      'seccomp and AppArmor Unconfined, SELinux beyond a container (pod and container)',
      {
        pod: {
          securityContext: { seccompProfile: { type: 'Unconfined' }, seLinuxOptions: { type: 'spc_t' } },
        },
        containers: [
          {
            image: 'a',
            securityContext: {
              appArmorProfile: { type: 'Unconfined' },
              seLinuxOptions: { user: 'system_u' },
            },
          },
        ],
      },
      [
        'spec.pod.securityContext.seccompProfile.type Unconfined',
        'spec.pod.securityContext.seLinuxOptions.type spc_t',
        'spec.containers[0].securityContext.appArmorProfile.type Unconfined',
        'spec.containers[0].securityContext.seLinuxOptions (user, role)',
      ],
    ],
    ['not an object', 'spec' as unknown as Record<string, unknown>, []],
  ];
  for (const [what, spec, expected] of cases) {
    it(what, () => assert.deepEqual(nodeAccessFields(spec), expected));
  }

  it('every capability of the default set stays in the container, and any other reaches the node', () => {
    for (const capability of BASELINE_CAPABILITIES) {
      const spec = {
        containers: [{ securityContext: { capabilities: { add: [capability, `CAP_${capability}`] } } }],
      };
      assert.deepEqual(nodeAccessFields(spec), [], capability);
    }
    for (const capability of ['SYS_ADMIN', 'NET_ADMIN', 'SYS_MODULE', 'BPF', 'NET_RAW', 'DAC_READ_SEARCH']) {
      const spec = { containers: [{ securityContext: { addCapabilities: [capability] } }] };
      assert.equal(nodeAccessFields(spec).length, 1, capability);
    }
  });
});

describe('nodeAccessAnnotations', () => {
  const object = (spec: Record<string, unknown>, apiVersion: string) => ({
    apiVersion,
    kind: 'MiniCluster',
    metadata: { name: 'a', namespace: 'n' },
    spec: { size: 1, containers: [{ image: 'x', command: 'true' }], ...spec },
  });

  it("finds v1alpha2's hostPID and Unconfined in the annotation of the object converted to v1alpha1", () => {
    const converted = toV1alpha1(
      object(
        { pod: { hostPID: true, securityContext: { seccompProfile: { type: 'Unconfined' } } } },
        'flux-framework.org/v1alpha2',
      ),
    );
    assert.deepEqual(nodeAccessAnnotations(converted.metadata), ['conversion.flux-framework.org/v1alpha2']);
  });

  it('finds nothing in the annotations of plain objects converted either way, nor where there is none', () => {
    const plainV1alpha2 = object(
      {
        pod: { securityContext: { runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } } },
        containers: [{ image: 'x', securityContext: { capabilities: { drop: ['ALL'] } } }],
      },
      'flux-framework.org/v1alpha2',
    );
    const plainV1alpha1 = object(
      { containers: [{ image: 'x', command: 'echo privileged', securityContext: { privileged: false } }] },
      'flux-framework.org/v1alpha1',
    );
    assert.deepEqual(nodeAccessAnnotations(toV1alpha1(plainV1alpha2).metadata), []);
    assert.deepEqual(nodeAccessAnnotations(toV1alpha2(plainV1alpha1).metadata), []);
    assert.deepEqual(nodeAccessAnnotations({ annotations: { other: '"privileged"' } }), []);
    assert.deepEqual(nodeAccessAnnotations(undefined), []);
  });
});

describe('nodeAccessRefusal', () => {
  it('names the fields, the namespace, the label, each way to allow it and the other way out', () => {
    const message = nodeAccessRefusal('team-a', ['spec.pod.hostPID']);
    assert.ok(message.startsWith('spec.pod.hostPID: access to the node itself'), message);
    assert.match(message, /namespace team-a does not allow/);
    assert.match(message, /kubectl label namespace team-a flux-framework\.org\/host-storage=allowed/);
    assert.match(message, /flux-operator install --allow-host-storage team-a/);
    assert.match(message, /Helm value hostStorageNamespaces; otherwise remove them$/);
  });
});
