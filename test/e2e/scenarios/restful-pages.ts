// The RESTful MiniCluster's web pages in a real browser (Debian's chromium, driven by playwright-core),
// against real Flux on the real node: through `flux-operator jobs ui` (a port-forward) and through the
// API server's service proxy. A wrong token is refused; a 2-node hostname shows both host names on its
// page within 10 s and COMPLETED in the table; a sleep is canceled from its page; a job printing a
// script tag shows the text and opens no dialog; no credential is in any page or URL the browser saw.
// Screenshots of each page go to test-output/pages/ for review.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { it } from 'node:test';
import type { Page } from 'playwright-core';
import { cluster, waitFor } from '../../harness/cluster.ts';
import { applyMiniCluster, waitForCondition } from '../../harness/operator.ts';
import { realMiniCluster, scenario } from '../../harness/real-node.ts';
import { launchBrowser, STEP_MS, type TestBrowser } from '../../harness/browser.ts';
import { apiServerProxy } from '../../harness/api-server-proxy.ts';
import { RestfulApiError, RestfulClient } from '../../../src/cli/restful-client.ts';

const MAIN = join(new URL('../../../', import.meta.url).pathname, 'src/cli/main.ts');
const HOSTILE = '<script>alert(1)</script>';

/** `flux-operator jobs ui`, running until stopped; its URL, from the first line it prints. */
async function jobsUi(
  kubeconfig: string,
  namespace: string,
  name: string,
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [MAIN, 'jobs', 'ui', name, '-n', namespace], {
    env: { ...process.env, KUBECONFIG: kubeconfig },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(
      () => reject(new Error(`jobs ui printed no URL within 30 s: ${stderr}`)),
      30_000,
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n') && line !== undefined) {
        clearTimeout(timer);
        resolve(line.trim());
      }
    });
    child.on('exit', (code) => reject(new Error(`jobs ui exited (${code}): ${stderr}`)));
  });
  return { url, child };
}

function stopped(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    const timer = setTimeout(() => reject(new Error('jobs ui did not stop within 10 s of SIGINT')), 10_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    child.kill('SIGINT');
  });
}

async function logIn(page: Page, user: string, token: string): Promise<void> {
  await page.fill('input[name=user]', user);
  await page.fill('input[name=token]', token);
  await Promise.all([page.waitForNavigation(), page.click('form[action=login] button')]);
}

/** Submits the form; the number of the job whose page opened. */
async function submit(page: Page, fields: Record<string, string>): Promise<string> {
  await Promise.all([page.waitForNavigation(), page.click('nav a[href=submit]')]);
  for (const [name, value] of Object.entries(fields)) await page.fill(`[name=${name}]`, value);
  await Promise.all([page.waitForNavigation(), page.click('form[action=submit] button')]);
  const id = new URL(page.url()).searchParams.get('id');
  assert.ok(id, `a job page opened, not ${page.url()}: ${await page.content()}`);
  return id;
}

/** Waits until the job page's output has every one of these texts (polled: the pages' CSP forbids eval). */
async function outputHas(page: Page, texts: string[], timeout = STEP_MS): Promise<void> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const text = (await page.locator('#output').textContent({ timeout })) ?? '';
    if (texts.every((wanted) => text.includes(wanted))) return;
    if (Date.now() > deadline) {
      assert.fail(`the output has not ${JSON.stringify(texts)} after ${timeout} ms: ${JSON.stringify(text)}`);
    }
    await sleep(100);
  }
}

async function field(page: Page, name: string): Promise<string> {
  return (await page.locator(`[data-field=${name}]`).textContent({ timeout: STEP_MS })) ?? '';
}

export function restfulPagesScenarios(): void {
  it('RESTful pages in a browser: login refused then accepted, a 2-node job shown with both host names, a job canceled from its page, a script tag shown as text, no credential seen, and the same pages through the service proxy', async (t) => {
    const { namespace, clients } = await scenario(t, 'restful-pages');
    await applyMiniCluster(clients, realMiniCluster(namespace, 'pages', { size: 2 }));
    await waitForCondition(clients, namespace, 'pages', 'Ready', 'True', 180_000);
    await waitForCondition(clients, namespace, 'pages', 'RestfulApi', 'True');
    const { kc, kubeconfig, core } = await cluster();
    const secret = await core.readNamespacedSecret({ name: 'pages-restful', namespace });
    const user = Buffer.from(secret.data?.username ?? '', 'base64').toString('utf8');
    const token = Buffer.from(secret.data?.token ?? '', 'base64').toString('utf8');
    assert.ok(user && token.length >= 32);
    const api = new RestfulClient(
      { kind: 'proxy', config: kc, namespace, service: 'pages-restful' },
      { user, token },
    );
    await waitFor(
      async () => {
        const up = await api.nodes().catch((error: unknown) => {
          if (error instanceof RestfulApiError && error.status !== 401) return undefined;
          throw error;
        });
        return up?.length === 2;
      },
      { what: 'the API up with both nodes', timeoutMs: 120_000 },
    );

    const ui = await jobsUi(kubeconfig, namespace, 'pages');
    t.after(() => (ui.child.exitCode === null ? ui.child.kill('SIGKILL') : undefined));
    assert.match(ui.url, /^http:\/\/127\.0\.0\.1:\d+\/ui\/$/);
    const browser: TestBrowser = await launchBrowser();
    t.after(() => browser.close());
    const page = await browser.page();

    // Not logged in: the login page; a wrong token is refused.
    await page.goto(ui.url);
    assert.match(page.url(), /\/ui\/login$/);
    await browser.shoot(page, '01-login');
    await logIn(page, user, `${token.slice(0, -1)}x`);
    assert.equal(await page.locator('p.error').textContent(), 'Wrong user or token.');
    await browser.shoot(page, '02-login-refused');
    assert.equal(
      (await browser.contexts[0]?.cookies())?.filter((c) => c.name === 'flux_restful_session').length,
      0,
    );

    // Logged in: the table and the nodes.
    await logIn(page, user, token);
    assert.match(page.url(), /\/ui\/$/);
    await page.locator('[data-count=up]', { hasText: '2' }).waitFor();
    const [session] =
      (await browser.contexts[0]?.cookies())?.filter((c) => c.name === 'flux_restful_session') ?? [];
    assert.ok(session);
    assert.deepEqual([session.httpOnly, session.sameSite], [true, 'Strict']);
    await browser.shoot(page, '03-jobs-empty');

    // hostname on 2 nodes: both host names on its page within 10 s of the click.
    await page.click('nav a[href=submit]');
    await page.waitForURL(/\/ui\/submit$/);
    await page.fill('[name=command]', 'hostname');
    await page.fill('[name=num_nodes]', '2');
    const clicked = Date.now();
    await Promise.all([page.waitForNavigation(), page.click('form[action=submit] button')]);
    await outputHas(page, ['pages-0', 'pages-1'], 10_000);
    const shown = Date.now() - clicked;
    assert.ok(shown < 10_000, `both host names after ${shown} ms`);
    t.diagnostic(`hostname on 2 nodes: both host names on the job page ${shown} ms after the click`);
    await page.locator('[data-field=result]', { hasText: 'COMPLETED' }).waitFor();
    assert.equal(await field(page, 'nnodes'), '2');
    const hostnameId = await field(page, 'jobid');
    await browser.shoot(page, '04-job-hostname');

    // The table shows it completed (it refreshes by itself).
    await Promise.all([page.waitForNavigation(), page.click('nav a[href="./"]')]);
    await page.locator('#jobs tbody tr[data-result=COMPLETED]', { hasText: hostnameId }).waitFor();

    // A sleep canceled from its page.
    const sleepId = await submit(page, { command: 'sleep 300' });
    await page.locator('[data-field=state]', { hasText: 'RUN' }).waitFor({ timeout: 60_000 });
    await browser.shoot(page, '05-job-running');
    await Promise.all([page.waitForNavigation(), page.click('#cancel button')]);
    await page.locator('[data-field=result]', { hasText: 'CANCELED' }).waitFor({ timeout: 30_000 });
    assert.equal(await page.locator('#cancel').count(), 0);
    await browser.shoot(page, '06-job-canceled');
    const sleepF58 = await field(page, 'jobid');
    await Promise.all([page.waitForNavigation(), page.click('nav a[href="./"]')]);
    await page.locator('#jobs tbody tr[data-result=CANCELED]', { hasText: sleepF58 }).waitFor();
    await browser.shoot(page, '07-jobs');
    assert.ok(sleepId);

    // A job printing a script tag: the text, no dialog, no script element.
    await submit(page, { command: `echo '${HOSTILE}'` });
    await outputHas(page, [HOSTILE]);
    await page.locator('[data-field=result]', { hasText: 'COMPLETED' }).waitFor();
    await page.reload();
    await outputHas(page, [HOSTILE]);
    assert.equal(await page.locator('#output script, main script').count(), 0);
    await browser.shoot(page, '08-job-script-text');

    // Errors beside their fields.
    await page.click('nav a[href=submit]');
    await page.waitForURL(/\/ui\/submit$/);
    await page.fill('[name=num_nodes]', '3');
    await page.fill('[name=workdir]', 'relative');
    await Promise.all([page.waitForNavigation(), page.click('form[action=submit] button')]);
    const errors = page.locator('[data-error]');
    const fields: (string | null)[] = [];
    for (let index = 0; index < (await errors.count()); index++) {
      fields.push(await errors.nth(index).getAttribute('data-error'));
    }
    assert.deepEqual(fields, ['command', 'num_nodes', 'workdir']);
    assert.match((await page.locator('[data-error=num_nodes]').textContent()) ?? '', /has 2 nodes/);
    await browser.shoot(page, '09-submit-errors');

    // Logged out: back at the login page, and the pages need a login again.
    await Promise.all([page.waitForNavigation(), page.click('nav form[action=logout] button')]);
    assert.match(page.url(), /\/ui\/login$/);
    await page.goto(ui.url);
    assert.match(page.url(), /\/ui\/login$/);

    // The same pages through the API server's service proxy, in a browser without credentials.
    const proxy = await apiServerProxy(kc);
    t.after(() => proxy.close());
    const proxied = await browser.page();
    const base = `${proxy.url}/api/v1/namespaces/${namespace}/services/pages-restful:http/proxy/`;
    await proxied.goto(`${base}ui/`);
    assert.equal(proxied.url(), `${base}ui/login`);
    await logIn(proxied, user, token);
    assert.equal(proxied.url(), `${base}ui/`);
    await proxied.locator('#jobs tbody tr', { hasText: hostnameId }).waitFor();
    await browser.shoot(proxied, '10-proxy-jobs');
    await Promise.all([proxied.waitForNavigation(), proxied.click(`#jobs a:text-is("${hostnameId}")`)]);
    await outputHas(proxied, ['pages-0', 'pages-1']);
    assert.ok(proxied.url().startsWith(`${base}ui/job?id=`), proxied.url());
    const viaProxyId = await submit(proxied, { command: 'hostname', num_nodes: '2' });
    await outputHas(proxied, ['pages-0', 'pages-1']);
    await browser.shoot(proxied, '11-proxy-job');
    assert.ok(viaProxyId);

    // Nothing the browser saw carries a credential: not the token, not the session's id.
    await Promise.all(browser.recorded.pending);
    const cookies = (await Promise.all(browser.contexts.map((context) => context.cookies()))).flat();
    const sessions = cookies.filter((c) => c.name === 'flux_restful_session').map((c) => c.value);
    assert.ok(browser.recorded.bodies.length > 10, `${browser.recorded.bodies.length} bodies`);
    for (const secretText of [token, session.value, ...sessions]) {
      assert.equal(browser.recorded.urls.filter((url) => url.includes(secretText)).length, 0);
      assert.equal(browser.recorded.bodies.filter((body) => body.includes(secretText)).length, 0);
    }
    assert.deepEqual(browser.recorded.dialogs, []);
    t.diagnostic(
      `${browser.recorded.urls.length} requests and ${browser.recorded.bodies.length} pages, scripts and JSON answers seen; none carries a credential`,
    );

    assert.equal(await stopped(ui.child), 0);
  });
}
