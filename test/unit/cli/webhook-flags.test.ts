import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_WEBHOOK_ADDR,
  IN_CLUSTER_DRAIN_MS,
  fluxViewImage,
  webhookSettings,
} from '../../../src/cli/webhook-flags.ts';
import { DEFAULT_FLUX_VIEW_IMAGE, installObjects } from '../../../src/deploy/index.ts';

describe('the webhook flags of flux-operator run', () => {
  it('out of cluster: loopback, any free port, the Secret in the operator namespace, the CRD given a URL', () => {
    const { settings, problems } = webhookSettings({
      webhookAddr: DEFAULT_WEBHOOK_ADDR,
      namespace: 'default',
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(settings?.address, { host: '127.0.0.1', port: 0 });
    assert.equal(settings?.service, undefined);
    assert.deepEqual(settings?.secret, { namespace: 'default', name: 'flux-operator-webhook-cert' });
  });

  it('in cluster: every interface of the pod, the Service the CRD names, the Secret beside it', () => {
    const { settings } = webhookSettings({
      webhookAddr: ':9443',
      webhookService: 'ops/flux-operator-webhook',
      namespace: 'elsewhere',
    });
    assert.deepEqual(settings?.address, { host: undefined, port: 9443 });
    assert.deepEqual(settings?.service, { namespace: 'ops', name: 'flux-operator-webhook' });
    assert.deepEqual(settings?.secret, { namespace: 'ops', name: 'flux-operator-webhook-cert' });
    // A stopping pod answers while the Service stops sending to it; out of cluster there is no Service.
    assert.equal(settings?.drainMs, IN_CLUSTER_DRAIN_MS);
    assert.equal(
      webhookSettings({ webhookAddr: DEFAULT_WEBHOOK_ADDR, namespace: 'd' }).settings?.drainMs,
      undefined,
    );
    assert.equal(settings?.leaveCrd, undefined, 'takes the CRD by default');
  });

  it('serves but leaves the CRD with --leave-crd-conversion, which needs a webhook to serve', () => {
    const { settings } = webhookSettings({
      webhookAddr: ':9443',
      webhookService: 'ops/flux-operator-webhook',
      namespace: 'ops',
      leaveCrdConversion: true,
    });
    assert.equal(settings?.leaveCrd, true);
    assert.deepEqual(
      webhookSettings({ webhookAddr: '0', namespace: 'd', leaveCrdConversion: true }).problems,
      ['--leave-crd-conversion: needs a --webhook-addr to serve on (not 0)'],
    );
  });

  it('serves none with --webhook-addr 0', () => {
    assert.deepEqual(webhookSettings({ webhookAddr: '0', namespace: 'default' }), { problems: [] });
  });

  it('names the flag and the fix when a value is wrong', () => {
    assert.deepEqual(webhookSettings({ webhookAddr: 'nine', namespace: 'd' }).problems, [
      '--webhook-addr nine: invalid bind address "nine": expected host:port, :port or 0; e.g. :9443, 127.0.0.1:0, or 0 to serve none',
    ]);
    for (const service of ['ops', 'ops/', 'Ops/x', 'a/b/c']) {
      assert.match(
        webhookSettings({ webhookAddr: ':9443', webhookService: service, namespace: 'd' }).problems[0] ?? '',
        new RegExp(`^--webhook-service ${service}: expected <namespace>/<name> of a Service`),
      );
    }
    assert.deepEqual(webhookSettings({ webhookAddr: '0', webhookService: 'a/b', namespace: 'd' }).problems, [
      '--webhook-service: needs a --webhook-addr to serve on (not 0)',
    ]);
  });

  it("takes --flux-view-image, else the Go operator's public view image", () => {
    assert.equal(fluxViewImage('localhost/flux-view:0.88.0'), 'localhost/flux-view:0.88.0');
    assert.equal(fluxViewImage(undefined), DEFAULT_FLUX_VIEW_IMAGE);
    assert.equal(fluxViewImage(''), 'ghcr.io/converged-computing/flux-view-ubuntu:tag-noble');
  });

  it('reaches the operator from `install --with-deployment`', () => {
    const args = (image?: string) =>
      (
        installObjects(image === undefined ? {} : { fluxViewImage: image }).find(
          (o) => o.kind === 'Deployment',
        ) as unknown as {
          spec: { template: { spec: { containers: { args: string[] }[] } } };
        }
      ).spec.template.spec.containers[0]?.args ?? [];
    assert.ok(args('example.com/view:1').includes('--flux-view-image=example.com/view:1'));
    assert.ok(args().includes(`--flux-view-image=${DEFAULT_FLUX_VIEW_IMAGE}`));
  });
});
