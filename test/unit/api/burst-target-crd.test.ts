import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import { burstTargetCrd } from '../../../src/api/burst-target-crd.ts';
import { GENERATED_FILES, REPOSITORY_ROOT } from '../../../hack/generate.ts';
import { CHART_BURST_TARGET_CRD_PATH, INSTALL_YAML_PATH } from '../../../hack/deploy-files.ts';
import { schemaNodes } from './schema-nodes.ts';

const crd = burstTargetCrd();
const [version] = crd.spec.versions;
assert.ok(version);
const root = version.schema.openAPIV3Schema;

const { nodes, nodeAt } = schemaNodes(root);

describe('burstTargetCrd', () => {
  it('names a namespaced kind with short name bt in the flux category', () => {
    assert.equal(crd.metadata.name, 'bursttargets.flux-framework.org');
    assert.equal(crd.spec.group, 'flux-framework.org');
    assert.equal(crd.spec.scope, 'Namespaced');
    assert.deepEqual(crd.spec.names, {
      kind: 'BurstTarget',
      listKind: 'BurstTargetList',
      plural: 'bursttargets',
      singular: 'bursttarget',
      shortNames: ['bt'],
      categories: ['flux'],
    });
    assert.equal(version.name, 'v1alpha1');
    assert.deepEqual(version.subresources, { status: {} });
  });

  it('shows Provider, Connected and Age; Server only with -o wide', () => {
    const columns = version.additionalPrinterColumns;
    assert.deepEqual(
      columns.filter((column) => column.priority === undefined).map((column) => column.name),
      ['Provider', 'Connected', 'Age'],
    );
    const server = columns.find((column) => column.name === 'Server');
    assert.equal(server?.priority, 1);
    assert.equal(server?.jsonPath, '.status.server');
    assert.equal(
      columns.find((column) => column.name === 'Connected')?.jsonPath,
      '.status.conditions[?(@.type=="Connected")].status',
    );
    for (const column of columns) {
      if (column.jsonPath.startsWith('.metadata') || column.jsonPath.includes('[?(')) continue;
      assert.equal(nodeAt(column.jsonPath).type, column.type, column.name);
    }
    assert.equal(nodeAt('.status.conditions[*].status').type, 'string');
  });

  it('is a structural schema', () => {
    for (const { path, node } of nodes) {
      assert.ok(node.type, `${path || '(root)'}: every node needs a type`);
      assert.equal(node.anyOf, undefined, path);
      for (const forbidden of ['oneOf', 'allOf', 'not', 'const', '$id', 'patternProperties']) {
        assert.ok(!(forbidden in node), `${path}: ${forbidden}`);
      }
      if (node.type === 'array') assert.ok(node.items, `${path}: a list needs items`);
    }
  });

  it('makes provider an enum, defaults the kubeconfig key, and requires provider', () => {
    assert.deepEqual(nodeAt('.spec.provider').enum, ['kubeconfig', 'gke', 'eks']);
    assert.deepEqual(nodeAt('.spec').required, ['provider']);
    assert.equal(nodeAt('.spec.kubeconfig.key').default, 'kubeconfig');
    assert.deepEqual(nodeAt('.spec.kubeconfig').required, ['secretName']);
    assert.deepEqual(nodeAt('.spec.eks').required, [
      'region',
      'clusterName',
      'roleArn',
      'nodeRoleArn',
      'subnetIds',
      'instanceType',
    ]);
    assert.equal(nodeAt('.spec.eks.subnetIds').minItems, 2);
    assert.equal(nodeAt('.spec.eks.nodeCount').default, 1);
    assert.equal(nodeAt('.spec.eks.nodeCount').minimum, 1);
    assert.equal(nodeAt('.spec.gke.nodeCount').default, 1);
    assert.equal(nodeAt('.spec.eks.kubernetesVersion').pattern, '^1\\.[0-9]{1,3}$');
    assert.deepEqual(nodeAt('.spec.gke').required, ['project', 'location', 'clusterName', 'machineType']);
    assert.equal(nodeAt('.status.lastConnectedTime').format, 'date-time');
    assert.deepEqual(nodeAt('.status.conditions')['x-kubernetes-list-map-keys'], ['type']);
  });

  it('carries the CEL rules: the provider block is required, others forbidden, provider fixed', () => {
    const rules = nodeAt('.spec')['x-kubernetes-validations'] ?? [];
    const byRule = new Map(rules.map((rule) => [rule.rule, rule]));
    const required = byRule.get("self.provider != 'kubeconfig' || has(self.kubeconfig)");
    assert.equal(required?.fieldPath, '.kubeconfig');
    assert.equal(required?.reason, 'FieldValueRequired');
    assert.match(required?.message ?? '', /spec\.kubeconfig is required when provider is kubeconfig/);
    for (const provider of ['gke', 'eks']) {
      assert.ok(byRule.has(`self.provider != '${provider}' || has(self.${provider})`), provider);
      assert.ok(byRule.has(`!has(self.${provider}) || self.provider == '${provider}'`), provider);
    }
    assert.equal(byRule.get('self.provider == oldSelf.provider')?.reason, 'FieldValueForbidden');
    // Every field a rule reads exists in the schema next to it.
    for (const rule of rules) {
      for (const [, field] of rule.rule.matchAll(/self\.([a-z]+)/g))
        assert.ok(nodeAt(`.spec.${field}`), field);
    }
    const rootRules = root['x-kubernetes-validations'] ?? [];
    assert.ok(rootRules.some((rule) => rule.rule.includes('self.metadata.name.matches(')));
  });
});

describe('generated BurstTarget CRD files', () => {
  const read = (path: string) => readFileSync(join(REPOSITORY_ROOT, path), 'utf8');

  it('deploy/burst-target-crd.yaml is the generated CRD', () => {
    assert.ok(GENERATED_FILES.some((file) => file.path === 'deploy/burst-target-crd.yaml'));
    const text = read('deploy/burst-target-crd.yaml');
    assert.match(text, /^# Generated by `npm run generate`/);
    assert.deepEqual(parse(text), crd);
  });

  it('install.yaml and the Helm chart crds/ hold it', () => {
    const installed = parseAllDocuments(read(INSTALL_YAML_PATH)).map(
      (document) => document.toJS() as unknown,
    );
    assert.ok(installed.some((object) => JSON.stringify(object) === JSON.stringify(crd)));
    assert.deepEqual(parse(read(CHART_BURST_TARGET_CRD_PATH)), crd);
  });
});
