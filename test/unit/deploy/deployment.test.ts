import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { execFileSync } from 'node:child_process';
import { totalmem } from 'node:os';
import {
  DEFAULT_OPERATOR_IMAGE,
  OPERATOR_NAME,
  OPERATOR_NODE_OPTIONS,
  installObjects,
  operatorDeployment,
  operatorDisruptionBudget,
  webhookService,
} from '../../../src/deploy/index.ts';
import type { V1Deployment } from '@kubernetes/client-node';

const deployment = operatorDeployment({ image: 'example.com/op:1', namespace: 'ops' });
const pod = deployment.spec?.template.spec;
const [container] = pod?.containers ?? [];
assert.ok(pod && container, 'the Deployment has a pod template with one container');

describe('operator Deployment', () => {
  it('runs one leader-elected replica of `flux-operator run` with the given image', () => {
    assert.equal(deployment.metadata.name, OPERATOR_NAME);
    assert.equal(deployment.metadata.namespace, 'ops');
    assert.equal(deployment.spec?.replicas, 1);
    assert.equal(pod.containers.length, 1);
    assert.equal(container.image, 'example.com/op:1');
    assert.deepEqual(container.command, ['flux-operator']);
    assert.deepEqual(container.args, [
      'run',
      '--leader-elect',
      '--metrics-addr=:8443',
      '--metrics-secure',
      '--health-addr=:8081',
      '--webhook-addr=:9443',
      '--webhook-service=ops/flux-operator-webhook',
      '--flux-view-image=ghcr.io/converged-computing/flux-view-ubuntu:tag-noble',
    ]);
    assert.equal(pod.serviceAccountName, OPERATOR_NAME);
    assert.equal(operatorDeployment({ image: 'x', namespace: 'ops', replicas: 3 }).spec?.replicas, 3);
  });

  it('selects its pods by labels the pod template carries', () => {
    const selector = deployment.spec?.selector.matchLabels ?? {};
    assert.deepEqual(selector, {
      'app.kubernetes.io/name': 'flux-operator',
      'app.kubernetes.io/component': 'controller',
    });
    for (const [key, value] of Object.entries(selector)) {
      assert.equal(deployment.spec?.template.metadata?.labels?.[key], value);
    }
  });

  it('is locked down: non-root, read-only root filesystem, no capabilities, RuntimeDefault seccomp', () => {
    assert.equal(container.securityContext?.privileged, undefined);
    assert.deepEqual(pod.securityContext, { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    assert.deepEqual(container.securityContext, {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    // The only writable path is an emptyDir at /tmp.
    assert.deepEqual(container.volumeMounts, [{ name: 'tmp', mountPath: '/tmp' }]);
    assert.deepEqual(pod.volumes, [{ name: 'tmp', emptyDir: {} }]);
    assert.equal(pod.hostNetwork, undefined);
  });

  it('serves metrics on 8443 (HTTPS, to allowed tokens), health on 8081 (probed at /healthz and /readyz) and the conversion webhook on 9443', () => {
    assert.deepEqual(container.ports, [
      { name: 'metrics', containerPort: 8443, protocol: 'TCP' },
      { name: 'health', containerPort: 8081, protocol: 'TCP' },
      { name: 'webhook', containerPort: 9443, protocol: 'TCP' },
    ]);
    assert.deepEqual(container.livenessProbe?.httpGet, { path: '/healthz', port: 'health' });
    assert.deepEqual(container.readinessProbe?.httpGet, { path: '/readyz', port: 'health' });
  });

  it('requests 50m CPU and 128Mi, and limits memory to 512Mi (no CPU limit)', () => {
    assert.deepEqual(container.resources, {
      requests: { cpu: '50m', memory: '128Mi' },
      limits: { memory: '512Mi' },
    });
  });

  it('tells the operator its pod name and namespace (leader-election identity and Lease namespace), heap size and image', () => {
    assert.deepEqual(container.env, [
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      { name: 'NODE_OPTIONS', value: '--max-old-space-size-percentage=50 --max-semi-space-size=2' },
      { name: 'OPERATOR_IMAGE', value: 'example.com/op:1' },
    ]);
  });

  it('sizes the heap at half the memory Node sees, a flag this Node accepts in NODE_OPTIONS', () => {
    const heapLimitMiB = (nodeOptions: string | undefined) =>
      Number(
        execFileSync(
          process.execPath,
          ['-p', 'Math.round(require("v8").getHeapStatistics().heap_size_limit / 2 ** 20)'],
          { env: { ...process.env, NODE_OPTIONS: nodeOptions ?? '' }, encoding: 'utf8' },
        ),
      );
    // Node takes the cgroup limit when there is one, else the machine's memory.
    const constrained = process.constrainedMemory();
    const available = constrained > 0 && constrained < totalmem() ? constrained : totalmem();
    const wanted = available / 2 ** 20 / 2;
    const limited = heapLimitMiB(OPERATOR_NODE_OPTIONS);
    // The heap limit adds the young space to the old space the flag sets.
    assert.ok(limited >= wanted && limited <= wanted + 256, `${limited} MiB for ${wanted} MiB of old space`);
    assert.notEqual(limited, heapLimitMiB(undefined));
  });

  it('defaults to the release image of this version in flux-operator-system', () => {
    const objects = installObjects();
    const installed = objects.find((object) => object.kind === 'Deployment') as V1Deployment | undefined;
    assert.equal(installed?.spec?.template.spec?.containers[0]?.image, DEFAULT_OPERATOR_IMAGE);
    assert.match(DEFAULT_OPERATOR_IMAGE, /^ghcr\.io\/flux-framework\/flux-operator-ts:\d+\.\d+\.\d+/);
    assert.equal(installed?.metadata?.namespace, 'flux-operator-system');
  });

  it('watches the namespaces and runs where the install says, and only there', () => {
    const placed = operatorDeployment({
      image: 'example.com/op:1',
      namespace: 'ops',
      replicas: 2,
      watchNamespaces: ['team-a', 'team-b'],
      nodeSelector: { 'example.com/pool': 'operators' },
      tolerations: [{ key: 'example.com/pool', operator: 'Equal', value: 'operators', effect: 'NoSchedule' }],
      fluxViewImage: 'localhost/flux-view:0.88.0',
    });
    const spec = placed.spec?.template.spec;
    assert.equal(placed.spec?.replicas, 2);
    assert.deepEqual(spec?.containers[0]?.args, [
      'run',
      '--leader-elect',
      '--metrics-addr=:8443',
      '--metrics-secure',
      '--health-addr=:8081',
      '--webhook-addr=:9443',
      '--webhook-service=ops/flux-operator-webhook',
      '--flux-view-image=localhost/flux-view:0.88.0',
      '--namespace=team-a',
      '--namespace=team-b',
    ]);
    assert.deepEqual(spec?.nodeSelector, { 'example.com/pool': 'operators' });
    assert.deepEqual(spec?.tolerations, [
      { key: 'example.com/pool', operator: 'Equal', value: 'operators', effect: 'NoSchedule' },
    ]);
    assert.equal(pod?.nodeSelector, undefined, 'no placement unless asked');
    assert.equal(pod?.tolerations, undefined);
  });
});

describe('conversion webhook Service', () => {
  it('sends port 443 to the webhook port of the operator pods', () => {
    const service = webhookService('ops');
    assert.equal(service.metadata.name, 'flux-operator-webhook');
    assert.equal(service.metadata.namespace, 'ops');
    assert.deepEqual(service.spec?.selector, deployment.spec?.selector.matchLabels);
    assert.deepEqual(service.spec?.ports, [{ name: 'webhook', port: 443, targetPort: 'webhook', protocol: 'TCP' }]);
    assert.ok(container.ports?.some((port) => port.name === 'webhook'), 'the container names the port');
  });
});

describe('with standbys', () => {
  it('leaves the CRD where it points with --leave-crd-conversion, the flag last but the namespaces', () => {
    const args = operatorDeployment({
      image: 'x',
      namespace: 'ops',
      leaveCrdConversion: true,
      watchNamespaces: ['a'],
    }).spec?.template.spec?.containers[0]?.args;
    assert.deepEqual(args?.slice(-2), ['--leave-crd-conversion', '--namespace=a']);
    assert.ok(!container.args?.includes('--leave-crd-conversion'), 'not by default');
  });

  it('keeps one operator pod through evictions when there are two or more, and adds nothing for one', () => {
    const kinds = (replicas?: number) =>
      installObjects({ namespace: 'ops', ...(replicas === undefined ? {} : { replicas }) }).map((o) => o.kind);
    assert.ok(!kinds().includes('PodDisruptionBudget'));
    assert.ok(!kinds(1).includes('PodDisruptionBudget'));
    assert.equal(kinds(2).at(-1), 'PodDisruptionBudget');
    const budget = operatorDisruptionBudget('ops');
    assert.equal(budget.metadata.namespace, 'ops');
    assert.equal(budget.spec?.minAvailable, 1);
    assert.deepEqual(budget.spec?.selector?.matchLabels, deployment.spec?.selector.matchLabels);
  });
});
