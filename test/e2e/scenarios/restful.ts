// The RESTful mode on the real node: a MiniCluster without a command serves the Flux RESTful API
// from its lead pod; jobs are submitted, followed, read and canceled through it, over the
// Kubernetes API server's service proxy (the client of `flux-operator jobs`) and through the CLI
// itself, and through the token handshake flux-restful-client does (401, then /v1/token).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { it } from 'node:test';
import { cluster, waitFor } from '../../harness/cluster.ts';
import { apiUpWithNodes } from '../../harness/restful-api.ts';
import { applyMiniCluster, waitForCondition } from '../../harness/operator.ts';
import { fluxInLead, podAt, realMiniCluster, scenario } from '../../harness/real-node.ts';
import { RestfulApiError, RestfulClient, type JobRecord } from '../../../src/cli/restful-client.ts';
import { restfulClientFor } from '../../../src/cli/restful-target.ts';
import { followJob } from '../../../src/cli/jobs-command.ts';
import { API_VERSION } from '../../../src/api/index.ts';
import { PLAIN_IMAGE_REPOSITORY } from '../../../workbench/src/images/plain-image.ts';

const MAIN = join(new URL('../../../', import.meta.url).pathname, 'src/cli/main.ts');

/** The CLI as a user runs it, with the test cluster's kubeconfig. */
async function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { kubeconfig } = await cluster();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      env: { ...process.env, KUBECONFIG: kubeconfig },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function jwt(claims: object, key: string): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(claims)}`;
  return `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`;
}

async function rejected(promise: Promise<unknown>): Promise<RestfulApiError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof RestfulApiError, `a RestfulApiError, got ${String(error)}`);
  return error;
}

export function restfulScenarios(): void {
  it('RESTful: a MiniCluster without a command serves its Flux instance over HTTP; jobs submitted, followed, read and canceled through the API and the CLI; wrong tokens refused', async (t) => {
    const { namespace, clients } = await scenario(t, 'restful');
    await applyMiniCluster(
      clients,
      realMiniCluster(namespace, 'api', {
        size: 2,
        users: [{ name: 'peenut' }],
        flux: { optionFlags: '--setattr=user.team=blue -o cpu-affinity=off' },
      }),
    );
    await waitForCondition(clients, namespace, 'api', 'Ready', 'True', 180_000);
    const served = await waitForCondition(clients, namespace, 'api', 'RestfulApi', 'True');
    assert.match(
      served.conditions?.find((condition) => condition.type === 'RestfulApi')?.message ?? '',
      /^the lead pod serves the Flux RESTful API on port 5000 of Service api-restful /,
    );
    const { kc } = await cluster();
    const api = await restfulClientFor({ config: () => kc, name: 'api', namespace });

    // The server comes up after the lead broker: wait for it and for both brokers.
    const nodes = await apiUpWithNodes(api, 2);
    assert.deepEqual(nodes, ['api-0', 'api-1']);

    // A 2-node job, followed to its end; its output names both pods.
    const id = await api.submit({ command: 'hostname', num_nodes: 2, num_tasks: 2 });
    const done = await followJob(api, id);
    assert.equal(done.result, 'COMPLETED', JSON.stringify(done));
    assert.equal(done.nnodes, 2);
    assert.deepEqual((await api.output(id)).map((line) => line.trim()).sort(), ['api-0', 'api-1']);
    // The jobspec, as Flux holds it: the API user's name, and the MiniCluster's optionFlags.
    const lead = (await podAt(clients, namespace, 'api')).metadata?.name ?? '';
    const { stdout: jobspecText } = await fluxInLead(namespace, lead, ['job', 'info', String(id), 'jobspec']);
    const jobspec = JSON.parse(jobspecText) as {
      attributes: { user?: Record<string, unknown>; system: Record<string, unknown> };
    };
    assert.equal(jobspec.attributes.system.user, 'flux');
    assert.equal(jobspec.attributes.user?.team, 'blue');
    assert.deepEqual(
      (jobspec.attributes.system.shell as { options?: Record<string, unknown> } | undefined)?.options?.[
        'cpu-affinity'
      ],
      'off',
    );

    // The stream route of flux-restful-client's stream_output: the whole output of an ended job.
    const streamed = await api.call('GET', `/v1/jobs/${id}/output/stream`);
    assert.equal(typeof streamed, 'string');
    assert.deepEqual(String(streamed).trim().split('\n').sort(), ['api-0', 'api-1']);
    assert.ok(
      (await api.jobs()).some((job: JobRecord) => job.id === id),
      'the job is listed',
    );

    // flux-restful-client posts its parameters as a query string.
    const viaQuery = (await api.call('POST', '/v1/jobs/submit?command=hostname&num_tasks=2&num_nodes=2')) as {
      id: number;
    };
    assert.equal((await followJob(api, viaQuery.id)).nnodes, 2);

    // The environment, working directory and shell options of a submission reach the job; the
    // search route finds it; unknown jobs and missing commands are refused.
    const shaped = await api.submit({
      command: 'bash -c "echo $GREETING; pwd"',
      envars: { GREETING: 'hello from the API' },
      workdir: '/tmp',
      option_flags: { 'output.stderr.type': 'kvs' },
    });
    assert.equal((await followJob(api, shaped)).result, 'COMPLETED');
    assert.deepEqual((await api.output(shaped)).join(''), 'hello from the API\n/tmp\n');
    const search = (await api.call('GET', '/v1/jobs/search?search=bash&length=5')) as { data: JobRecord[] };
    assert.deepEqual(
      search.data.map((job) => job.id),
      [shaped],
    );
    assert.equal((await rejected(api.job(123456789))).status, 404);
    const noCommand = await rejected(api.call('POST', '/v1/jobs/submit', { num_tasks: 1 }));
    assert.equal(noCommand.status, 400);
    assert.match(noCommand.message, /A 'command' is minimally required/);
    const tooBig = await rejected(api.submit({ command: 'hostname', num_nodes: 3, num_tasks: 3 }));
    assert.equal(tooBig.status, 400);
    assert.match(tooBig.message, /The server only has 2 nodes, you requested 3/);

    // A long job canceled: it ends CANCELED.
    const long = await api.submit({ command: 'sleep 600' });
    await waitFor(async () => (await api.job(long)).state === 'RUN', {
      what: 'the long job running',
      timeoutMs: 60_000,
    });
    assert.equal(await api.cancel(long), 'Job is requested to cancel.');
    const canceled = await followJob(api, long);
    assert.equal(canceled.result, 'CANCELED');

    // Wrong or missing credentials: 401, with the WWW-Authenticate the client's handshake needs.
    const location = api.location;
    const wrong = new RestfulClient(location, { user: 'flux', token: 'not-the-token' });
    const refused = await rejected(wrong.nodes());
    assert.equal(refused.status, 401);
    assert.equal(refused.wwwAuthenticate, 'Bearer realm="flux-restful"');
    const stranger = new RestfulClient(location, { user: 'nobody', token: 'x' });
    assert.equal((await rejected(stranger.submit({ command: 'hostname' }))).status, 401);

    // The token handshake of flux-restful-client: a JWT of user, pass and scope signed with the
    // secret key buys a bearer access token; the other user of spec.users is known too.
    const secret = await clients.core.readNamespacedSecret({ name: 'api-restful', namespace });
    const field = (key: string) => Buffer.from(secret.data?.[key] ?? '', 'base64').toString('utf8');
    const users = (JSON.parse(field('credentials.json')) as { users: Record<string, string> }).users;
    assert.deepEqual(Object.keys(users), ['flux', 'peenut']);
    const handshake = jwt({ user: 'peenut', pass: users.peenut, scope: 'token' }, field('secretKey'));
    const badHandshake = jwt({ user: 'peenut', pass: 'wrong', scope: 'token' }, field('secretKey'));
    const viaHeader = (authorization: string, path: string, method: 'GET' | 'POST') =>
      api.callWith(method, path, authorization);
    const token = (await viaHeader(`Bearer ${handshake}`, '/v1/token', 'POST')) as {
      access_token: string;
      token_type: string;
    };
    assert.equal(token.token_type, 'Bearer');
    assert.deepEqual(await viaHeader(`Bearer ${token.access_token}`, '/v1/nodes', 'GET'), {
      nodes: ['api-0', 'api-1'],
    });
    assert.equal((await rejected(viaHeader(`Bearer ${badHandshake}`, '/v1/token', 'POST'))).status, 400);
    assert.equal((await rejected(viaHeader(`Bearer ${handshake}`, '/v1/nodes', 'GET'))).status, 401);
    // peenut has the shared key, as every API user does, and signs an access token for flux (an
    // administrator) or for itself: the server signs its access tokens with a key of its own.
    const later = Math.floor(Date.now() / 1000) + 600;
    for (const sub of ['flux', 'peenut']) {
      const minted = jwt({ sub, exp: later }, field('secretKey'));
      assert.equal((await rejected(viaHeader(`Bearer ${minted}`, '/v1/jobs', 'GET'))).status, 401, sub);
    }

    // The CLI: submit and wait (exit status and output of the job), list, logs, cancel.
    const waited = await cli('jobs', 'submit', 'api', '-n', namespace, '-N', '2', '--wait', '--', 'hostname');
    assert.equal(waited.code, 0, waited.stderr);
    assert.deepEqual(waited.stdout.trim().split('\n').sort(), ['api-0', 'api-1'], waited.stderr);
    const failing = await cli(
      'jobs',
      'submit',
      'api',
      '-n',
      namespace,
      '--wait',
      '--',
      'bash',
      '-c',
      '"exit 3"',
    );
    assert.equal(failing.code, 3, failing.stderr);
    const submitted = await cli('jobs', 'submit', 'api', '-n', namespace, '--', 'sleep', '600');
    assert.equal(submitted.code, 0, submitted.stderr);
    const sleeper = submitted.stdout.trim();
    assert.match(sleeper, /^\d+$/);
    const listed = await cli('jobs', 'list', 'api', '-n', namespace);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`^${sleeper} .* (SCHED|RUN|DEPEND|PRIORITY) `, 'm'));
    const cancel = await cli('jobs', 'cancel', 'api', '-n', namespace, sleeper);
    assert.equal(cancel.code, 0, cancel.stderr);
    const follow = await cli('jobs', 'logs', 'api', '-n', namespace, '--follow', String(id));
    assert.equal(follow.code, 0, follow.stderr);
    assert.deepEqual(follow.stdout.trim().split('\n').sort(), ['api-0', 'api-1']);
    assert.equal((await followJob(api, sleeper)).result, 'CANCELED');

    // Clear refusals: a wrong token, a MiniCluster that does not exist.
    const denied = await cli('jobs', 'list', 'api', '-n', namespace, '--token', 'wrong');
    assert.equal(denied.code, 1);
    assert.match(denied.stderr, /unauthorized: the RESTful API refused user flux/);
    const missing = await cli('jobs', 'list', 'nope', '-n', namespace);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, new RegExp(`there is no MiniCluster ${namespace}/nope`));
  });

  it("RESTful with Flux from the view on localhost/plain:bookworm (v1alpha2 fluxRestful): the server runs on the view's Python; a 2-node job through the API", async (t) => {
    const { namespace, clients } = await scenario(t, 'restful-view');
    const object = realMiniCluster(
      namespace,
      'viewapi',
      { size: 2, fluxRestful: {} },
      { image: `${PLAIN_IMAGE_REPOSITORY}:bookworm` },
    );
    // v1alpha2 with no flux.container: Flux, and the server's Python, from the view.
    await applyMiniCluster(clients, { ...object, apiVersion: API_VERSION });
    await waitForCondition(clients, namespace, 'viewapi', 'Ready', 'True', 180_000);
    await waitForCondition(clients, namespace, 'viewapi', 'RestfulApi', 'True');
    const { kc } = await cluster();
    const api = await restfulClientFor({ config: () => kc, name: 'viewapi', namespace });
    const nodes = await apiUpWithNodes(api, 2);
    assert.deepEqual(nodes, ['viewapi-0', 'viewapi-1']);
    // The plain image has no hostname: uname -n names the pod the same way.
    const id = await api.submit({ command: 'uname -n', num_nodes: 2, num_tasks: 2 });
    const done = await followJob(api, id);
    assert.equal(done.result, 'COMPLETED', JSON.stringify(done));
    assert.deepEqual((await api.output(id)).map((line) => line.trim()).sort(), ['viewapi-0', 'viewapi-1']);
  });
}
