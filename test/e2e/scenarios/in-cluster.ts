// What an operator installed in the cluster needs before anything else: a pod on the real node reaches
// the API server through the `kubernetes` Service, verifies its certificate, and is known by its
// ServiceAccount token.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { waitFor } from '../../harness/cluster.ts';
import { FLUX_IMAGE, ON_REAL_NODE, podLog, scenario } from '../../harness/real-node.ts';

/** Asks the API server who the pod is (a SelfSubjectReview), the way in-cluster clients connect. */
const WHO_AM_I = `
import json, os, ssl, urllib.request
account = '/var/run/secrets/kubernetes.io/serviceaccount'
server = 'https://%s:%s' % (os.environ['KUBERNETES_SERVICE_HOST'], os.environ['KUBERNETES_SERVICE_PORT'])
request = urllib.request.Request(
    server + '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    data=json.dumps({'apiVersion': 'authentication.k8s.io/v1', 'kind': 'SelfSubjectReview'}).encode(),
    headers={'Authorization': 'Bearer ' + open(account + '/token').read(), 'Content-Type': 'application/json'},
)
context = ssl.create_default_context(cafile=account + '/ca.crt')
print(server, json.load(urllib.request.urlopen(request, context=context))['status']['userInfo']['username'])
`;

export function inClusterScenarios(): void {
  it('a pod reaches the API server through the kubernetes Service with its ServiceAccount token', async (t) => {
    const { namespace, clients } = await scenario(t, 'incluster');
    const pod: V1Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'who-am-i', namespace },
      spec: {
        restartPolicy: 'Never',
        nodeSelector: { ...ON_REAL_NODE.nodeSelector },
        tolerations: [...ON_REAL_NODE.tolerations],
        containers: [
          { name: 'ask', image: FLUX_IMAGE, imagePullPolicy: 'Never', command: ['python3', '-c', WHO_AM_I] },
        ],
      },
    };
    await clients.core.createNamespacedPod({ namespace, body: pod });
    const phase = await waitFor(
      async () => {
        const live = await clients.core.readNamespacedPod({ name: 'who-am-i', namespace });
        const done = live.status?.phase === 'Succeeded' || live.status?.phase === 'Failed';
        return done ? live.status?.phase : undefined;
      },
      { what: 'the pod to finish', timeoutMs: 90_000 },
    );
    const log = await podLog(clients, namespace, 'who-am-i');
    assert.equal(phase, 'Succeeded', log);
    assert.equal(log.trim(), `https://10.0.0.1:443 system:serviceaccount:${namespace}:default`);
  });
}
