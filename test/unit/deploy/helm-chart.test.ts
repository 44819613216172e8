// The Helm chart's generated parts, checked without Helm: they parse as YAML, equal src/deploy (the
// source of deploy/install.yaml), and the hand-written templates include every one of them.
// helm-render.test.ts renders the whole chart with a real Helm.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { miniClusterCrd } from '../../../src/api/index.ts';
import {
  DEFAULT_OPERATOR_IMAGE,
  LEADER_ELECTION_RULES,
  OPERATOR_IMAGE_REPOSITORY,
  OPERATOR_RESOURCES,
  OPERATOR_RULES,
  OPERATOR_VERSION,
  SERVE_ARGS,
  containerPorts,
  containerSecurityContext,
  installObjects,
  operatorEnv,
  operatorVolumeMounts,
  operatorVolumes,
  podSecurityContext,
  policyRule,
} from '../../../src/deploy/index.ts';
import type { V1ClusterRole, V1Deployment } from '@kubernetes/client-node';
import { REPOSITORY_ROOT } from '../../../hack/generate.ts';
import { CHART_CRD_PATH, CHART_GENERATED_TEMPLATE_PATH, CHART_PATH } from '../../../hack/deploy-files.ts';

const chart = join(REPOSITORY_ROOT, CHART_PATH);
const read = (path: string) => readFileSync(join(REPOSITORY_ROOT, path), 'utf8');

/** The named templates of a .tpl file: name -> body. */
function defines(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of text.matchAll(/\{\{-? define "([^"]+)" -?\}\}\n?([\s\S]*?)\{\{-? end -?\}\}/g)) {
    found.set(match[1] ?? '', match[2] ?? '');
  }
  return found;
}

const generated = defines(read(CHART_GENERATED_TEMPLATE_PATH));
const helpers = defines(readFileSync(join(chart, 'templates/_helpers.tpl'), 'utf8'));
const templates = readdirSync(join(chart, 'templates'))
  .filter((file) => file.endsWith('.yaml') || file.endsWith('.txt'))
  .map((file) => ({ file, text: readFileSync(join(chart, 'templates', file), 'utf8') }));

function generatedYaml(name: string): unknown {
  const body = generated.get(name);
  assert.ok(body !== undefined, `_generated.tpl defines ${name}`);
  return parse(body);
}

const installed = installObjects();
const deployment = installed.find((object) => object.kind === 'Deployment') as V1Deployment;
const container = deployment.spec?.template.spec?.containers[0];

describe('Helm chart: generated parts', () => {
  it('the ClusterRole and leader-election rules equal install.yaml rules', () => {
    assert.deepEqual(generatedYaml('flux-operator.clusterRoleRules'), OPERATOR_RULES.map(policyRule));
    assert.deepEqual(
      generatedYaml('flux-operator.clusterRoleRules'),
      (installed.find((object) => object.kind === 'ClusterRole') as V1ClusterRole).rules,
    );
    assert.deepEqual(generatedYaml('flux-operator.leaderElectionRules'), LEADER_ELECTION_RULES.map(policyRule));
  });

  it('the container settings equal the install.yaml Deployment', () => {
    assert.ok(container);
    assert.deepEqual(generatedYaml('flux-operator.command'), container.command);
    // The install's own flags follow the generated ones (the chart writes them from its values).
    assert.deepEqual(
      ['run', '--leader-elect', ...(generatedYaml('flux-operator.serveArgs') as string[])],
      container.args?.slice(0, 2 + SERVE_ARGS.length),
    );
    assert.deepEqual(generatedYaml('flux-operator.serveArgs'), SERVE_ARGS);
    assert.deepEqual(generatedYaml('flux-operator.env'), operatorEnv());
    assert.deepEqual(generatedYaml('flux-operator.ports'), containerPorts());
    assert.deepEqual(generatedYaml('flux-operator.probes'), {
      livenessProbe: container.livenessProbe,
      readinessProbe: container.readinessProbe,
    });
    assert.deepEqual(generatedYaml('flux-operator.podSecurityContext'), podSecurityContext());
    assert.deepEqual(generatedYaml('flux-operator.containerSecurityContext'), containerSecurityContext());
    assert.deepEqual(generatedYaml('flux-operator.volumeMounts'), operatorVolumeMounts());
    assert.deepEqual(generatedYaml('flux-operator.volumes'), operatorVolumes());
    assert.deepEqual(generatedYaml('flux-operator.componentLabels'), { 'app.kubernetes.io/component': 'controller' });
  });

  it('crds/ holds the MiniCluster CRD, as Helm expects (not templated)', () => {
    assert.deepEqual(parse(read(CHART_CRD_PATH)), miniClusterCrd());
    assert.ok(!templates.some(({ text }) => text.includes('CustomResourceDefinition')));
  });

  it('Chart.yaml and values.yaml carry the version, image and resources of src/deploy', () => {
    const chartYaml = parse(readFileSync(join(chart, 'Chart.yaml'), 'utf8')) as Record<string, unknown>;
    assert.equal(chartYaml.apiVersion, 'v2');
    assert.equal(chartYaml.name, 'flux-operator');
    assert.equal(chartYaml.version, OPERATOR_VERSION);
    assert.equal(chartYaml.appVersion, OPERATOR_VERSION);
    const values = parse(readFileSync(join(chart, 'values.yaml'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(values.image, { repository: OPERATOR_IMAGE_REPOSITORY, tag: '', pullPolicy: 'IfNotPresent' });
    assert.equal(`${OPERATOR_IMAGE_REPOSITORY}:${chartYaml.appVersion}`, DEFAULT_OPERATOR_IMAGE);
    assert.deepEqual(values.resources, OPERATOR_RESOURCES);
    assert.equal(values.replicas, 1);
    assert.equal(values.leaderElect, true);
    assert.deepEqual(values.watchNamespaces, []);
    for (const key of ['logLevel', 'concurrency']) assert.ok(key in values, `values.yaml has ${key}`);
  });
});

describe('Helm chart: hand-written templates', () => {
  const included = new Set(
    templates.flatMap(({ text }) => [...text.matchAll(/include "([^"]+)"/g)].map((match) => match[1])),
  );
  for (const { text } of [...generated, ...helpers].map(([, body]) => ({ text: body }))) {
    for (const match of text.matchAll(/include "([^"]+)"/g)) included.add(match[1]);
  }

  it('include every generated template', () => {
    for (const name of generated.keys()) assert.ok(included.has(name), `no template includes ${name}`);
  });

  it('include only templates that are defined', () => {
    for (const name of included) {
      assert.ok(name && (generated.has(name) || helpers.has(name)), `${name} is included but not defined`);
    }
  });

  it('use every value of values.yaml', () => {
    const values = parse(readFileSync(join(chart, 'values.yaml'), 'utf8')) as Record<string, unknown>;
    const all = [...templates.map(({ text }) => text), ...helpers.values()].join('\n');
    for (const key of Object.keys(values)) assert.ok(all.includes(`.Values.${key}`), `.Values.${key} is unused`);
  });
});
