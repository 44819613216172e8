// The v1alpha2 version entry of the MiniCluster CRD: shaped like v1alpha1's (subresources, printer
// columns), a structural schema with every field documented and bounded, the Go operator's defaults,
// and CEL rules that read only fields of the node they sit on.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { miniClusterCrd } from '../../../src/api/minicluster-crd.ts';
import type { JsonSchemaProps } from '../../../src/api/shared/crd.ts';
import { miniClusterCrdVersion } from '../../../src/api/crd-version.ts';
import { schemaNodes } from './schema-nodes.ts';

const version = miniClusterCrdVersion();
const [v1alpha1] = miniClusterCrd().spec.versions;
assert.ok(v1alpha1);
const root = version.schema.openAPIV3Schema;

const { nodes, nodeAt } = schemaNodes(root);

function isIntOrString(node: JsonSchemaProps): boolean {
  return node['x-kubernetes-int-or-string'] === true;
}

describe('the v1alpha2 CRD version', () => {
  it('is served and stored, with the subresources and printer columns of v1alpha1', () => {
    assert.equal(version.name, 'v1alpha2');
    assert.equal(version.served, true);
    assert.equal(version.storage, true);
    assert.deepEqual(version.subresources, v1alpha1.subresources);
    assert.deepEqual(version.additionalPrinterColumns, v1alpha1.additionalPrinterColumns);
    for (const column of version.additionalPrinterColumns) {
      if (column.jsonPath === '.metadata.creationTimestamp') continue;
      assert.equal(nodeAt(column.jsonPath).type, column.type, column.name);
    }
  });

  it('is a structural schema, every field documented, every list, map and integer bounded', () => {
    for (const { path, node, isProperty } of nodes) {
      const where = path || '(root)';
      if (!isIntOrString(node)) {
        assert.ok(node.type, `${where}: every node needs a type`);
        assert.equal(node.anyOf, undefined, `${where}: anyOf only in int-or-string`);
      }
      if (isProperty && path !== '.metadata')
        assert.ok((node.description ?? '').length > 3, `${path}: description`);
      if (node.type === 'array') assert.ok(node.maxItems, `${path} needs maxItems`);
      if (node.additionalProperties) assert.ok(node.maxProperties, `${path} needs maxProperties`);
      if (path.startsWith('.spec') && (node.type === 'integer' || isIntOrString(node))) {
        assert.ok(node.maximum !== undefined && node.maximum <= Number.MAX_SAFE_INTEGER, `${path}: maximum`);
      }
    }
  });

  it('gives every free string of the spec a pattern, but what is refused by name or reaches metadata only', () => {
    const unpatterned = new Set(['.spec.pod.annotations[*]', '.spec.pod.tolerations[*].key']);
    for (const { path, node } of nodes) {
      if (!path.startsWith('.spec') || node.type !== 'string' || node.enum || unpatterned.has(path)) continue;
      if (path.includes('.windowsOptions.')) continue;
      assert.ok(node.pattern, `${path} needs a pattern`);
    }
  });

  it("keeps the Go operator's defaults, but the view image's, which is the operator's setting", () => {
    assert.equal(nodeAt('.spec.logging.strict').default, false);
    assert.equal(nodeAt('.spec.containers[*].image').default, 'ghcr.io/rse-ops/accounting:app-latest');
    assert.equal(nodeAt('.spec.flux.container.name').default, 'flux-view');
    assert.equal(nodeAt('.spec.flux.container.mountPath').default, '/mnt/flux');
    assert.equal(nodeAt('.spec.flux.container.disable').default, false);
    assert.equal(nodeAt('.spec.flux.container').default, undefined);
    assert.equal(nodeAt('.spec.flux.container.image').default, undefined);
    assert.equal(nodeAt('.spec.deadlineSeconds').default, 31500000);
    assert.equal(nodeAt('.spec.flux.connectTimeout').default, '5s');
    assert.equal(nodeAt('.spec.flux.logLevel').default, 6);
    assert.equal(nodeAt('.spec.flux.bursting.leadBroker.port').default, 8050);
  });

  it("declares the Go operator's v1alpha2 fields and v1alpha1's own", () => {
    for (const path of [
      '.spec.minSize',
      '.spec.backoffLimit',
      '.spec.network.disableAffinity',
      '.spec.network.sharedSelector',
      '.spec.pod.nodeAffinity[*]',
      '.spec.pod.securityContext.sysctls[*].name',
      '.spec.flux.container.pythonPath',
      '.spec.flux.arch',
      '.spec.flux.scheduler.simple',
      '.spec.flux.curveCertSecret',
      '.spec.flux.bursting.policy.targets',
      '.spec.containers[*].volumes[*].csiDriverAttributes[*]',
      '.spec.containers[*].commands.script',
      '.spec.containers[*].commands.runFluxAsRoot',
      '.spec.containers[*].securityContext.capabilities.drop',
      '.spec.containers[*].fluxUser.uid',
      '.spec.services[*].noWrapEntrypoint',
      '.spec.volumes[*].capacity',
      '.spec.fluxRestful.port',
      '.spec.users[*].name',
      '.status.jobid',
    ]) {
      nodeAt(path);
    }
    assert.equal(
      nodes.some((visited) => visited.path.endsWith('.existingVolumes')),
      false,
      "v1alpha1's existingVolumes are volumes",
    );
  });

  it('writes CEL rules that only read fields of the node they sit on, each with a message', () => {
    let count = 0;
    for (const { path, node } of nodes) {
      const fields = new Set(Object.keys(node.properties ?? {}));
      for (const { rule, message, fieldPath } of node['x-kubernetes-validations'] ?? []) {
        count += 1;
        assert.ok(message.length > 10, `${path}: every rule needs a message`);
        for (const [, field] of rule.matchAll(/\b(?:self|oldSelf)\.([A-Za-z]+)\b(?!\()/g)) {
          assert.ok(
            field !== undefined && fields.has(field),
            `${path || '(root)'}: rule reads ${field}: ${rule}`,
          );
        }
        if (fieldPath) {
          const [, first] = /^\.([A-Za-z]+)/.exec(fieldPath) ?? [];
          assert.ok(first && fields.has(first), `${path}: fieldPath ${fieldPath} is not a field`);
        }
      }
    }
    assert.ok(count > 60, `the rules of both versions (got ${count})`);
  });

  it('returns a fresh object on each call', () => {
    const first = miniClusterCrdVersion();
    first.additionalPrinterColumns.pop();
    assert.deepEqual(miniClusterCrdVersion(), version);
  });
});
