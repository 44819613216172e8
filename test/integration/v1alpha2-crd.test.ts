/**
 * The v1alpha2 CRD version on the local API server, installed alone under a group of this test's
 * own (the served CRD is assembled elsewhere, with the conversion webhook): its CEL rules compile
 * within the server's cost budget, it stores the Go operator's e2e manifests and MiniClusters
 * setting every field, and it refuses every bad input of the validator's table naming the field the
 * validator names (or the object holding it). Server-side dry runs: nothing is stored.
 */
import assert from 'node:assert/strict';
import https from 'node:https';
import { after, before, describe, it } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { KIND, LIST_KIND, PLURAL, SINGULAR } from '../../src/api/group.ts';
import { miniClusterCrdVersion } from '../../src/api/crd-version.ts';
import { validateMiniCluster } from '../../src/api/validate.ts';
import { cluster, waitFor } from '../harness/cluster.ts';
import { goV1alpha2TestManifests } from '../harness/go-v1alpha2-examples.ts';
import { V1ALPHA2_BAD_CASES } from '../unit/api/v1alpha2-cases.ts';
import {
  connectedV1alpha2,
  everyFieldV1alpha2,
  hostlistV1alpha2,
  joiningV1alpha2,
  restfulV1alpha2,
} from '../unit/api/v1alpha2-fixtures.ts';

const GROUP = `p${process.pid}.v1alpha2.test.flux-framework.org`;
const CRD_NAME = `${PLURAL}.${GROUP}`;
const NAMESPACE = 'default';
const REQUEST_TIMEOUT_MS = 30_000;

interface Answer {
  status: number;
  body: { message?: string; details?: { causes?: { field?: string; message?: string }[] } };
}

async function request(kc: KubeConfig, method: string, path: string, body?: unknown): Promise<Answer> {
  const server = kc.getCurrentCluster()?.server;
  assert.ok(server, 'a current cluster');
  const options: https.RequestOptions = {
    method,
    headers: { 'content-type': 'application/json' },
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  };
  await kc.applyToHTTPSOptions(options);
  return new Promise((resolve, reject) => {
    const sent = https.request(new URL(path, server), options, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: text === '' ? {} : JSON.parse(text) }),
      );
    });
    sent.on('error', reject);
    sent.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** A dry-run create with strict field validation, as `kubectl apply` sends it. */
function dryRunCreate(kc: KubeConfig, object: unknown): Promise<Answer> {
  const moved: Record<string, unknown> = {
    ...(object as Record<string, unknown>),
    apiVersion: `${GROUP}/v1alpha2`,
  };
  return request(
    kc,
    'POST',
    `/apis/${GROUP}/v1alpha2/namespaces/${NAMESPACE}/${PLURAL}?dryRun=All&fieldValidation=Strict`,
    { ...moved, metadata: { ...(moved.metadata as object), namespace: NAMESPACE } },
  );
}

/** A field path with list indexes and map keys as dotted segments, as the server writes map keys. */
function dotted(path: string): string {
  return path.replace(/\[([^\]]*)\]/g, '.$1');
}

/** The server names `path`, or the object or list holding it (`spec.containers` for `spec.containers[1].name`). */
function namesField(answer: Answer, path: string): boolean {
  const fields = [
    ...(answer.body.details?.causes ?? []).map((cause) => cause.field ?? ''),
    ...[...(answer.body.message ?? '').matchAll(/(?:^|[\s"])((?:spec|metadata)\.[^\s:"]+)/g)].map(
      (match) => match[1] ?? '',
    ),
  ]
    .map(dotted)
    .filter((field) => field.split('.').length >= 2);
  const wanted = dotted(path);
  return fields.some((field) => wanted === field || wanted.startsWith(`${field}.`));
}

describe('the v1alpha2 CRD version on the local API server', () => {
  let kc: KubeConfig;

  before(async () => {
    ({ kc } = await cluster());
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: CRD_NAME },
      spec: {
        group: GROUP,
        names: { kind: KIND, listKind: LIST_KIND, plural: PLURAL, singular: SINGULAR },
        scope: 'Namespaced',
        versions: [miniClusterCrdVersion()],
      },
    };
    const created = await request(kc, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    assert.equal(
      created.status,
      201,
      `the CRD (its CEL rules compile within the cost budget): ${created.body.message}`,
    );
    await waitFor(
      async () => {
        const read = await request(
          kc,
          'GET',
          `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`,
        );
        const conditions = (read.body as { status?: { conditions?: { type: string; status: string }[] } })
          .status?.conditions;
        if (!conditions?.some((condition) => condition.type === 'Established' && condition.status === 'True'))
          return false;
        return (await request(kc, 'GET', `/apis/${GROUP}/v1alpha2/${PLURAL}`)).status === 200;
      },
      { what: 'the v1alpha2 test CRD to be established and served', timeoutMs: 60_000 },
    );
  });

  after(async () => {
    if (kc)
      await request(kc, 'DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`);
  });

  it("stores the Go operator's e2e manifests and MiniClusters setting every field", async () => {
    const manifests = await goV1alpha2TestManifests();
    const objects = [
      ...manifests.flatMap((manifest) =>
        parseAllDocuments(manifest.text)
          .map((document) => document.toJS() as { kind?: string })
          .filter((document) => document.kind === KIND)
          .map((document) => ({ what: manifest.path, object: document })),
      ),
      ...[everyFieldV1alpha2, restfulV1alpha2, joiningV1alpha2, connectedV1alpha2, hostlistV1alpha2].map(
        (make) => ({ what: make.name, object: make() as unknown }),
      ),
    ];
    assert.ok(objects.length >= 25);
    for (const { what, object } of objects) {
      const { status: _status, ...withoutStatus } = object as Record<string, unknown>;
      const answer = await dryRunCreate(kc, withoutStatus);
      assert.equal(answer.status, 201, `${what}: ${answer.body.message}`);
    }
  });

  it('refuses each bad input of the table, naming the field the validator names', async () => {
    const failures: string[] = [];
    for (const { name, input, problems } of V1ALPHA2_BAD_CASES) {
      assert.equal(validateMiniCluster(input).ok, false, name);
      const answer = await dryRunCreate(kc, input);
      if (answer.status !== 422 && answer.status !== 400) failures.push(`${name}: stored (${answer.status})`);
      else {
        for (const [path] of problems) {
          if (!namesField(answer, path))
            failures.push(`${name}: the server does not name ${path}: ${answer.body.message}`);
        }
      }
    }
    assert.deepEqual(failures, []);
  });
});
