import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { checkKubeconfig, unsafeSettings } from '../../../src/burst/target-kubeconfig.ts';

const SOURCE = 'Secret team-a/remote key kubeconfig';
const TOKEN = 'sekrit-token-value';

function kubeconfig(
  user: Record<string, unknown> = { token: TOKEN },
  cluster: Record<string, unknown> = {
    server: 'https://remote.example.com:6443',
    'certificate-authority-data': 'Q0E=',
  },
  extra: Record<string, unknown> = {},
): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'remote',
    clusters: [{ name: 'remote', cluster }],
    contexts: [{ name: 'remote', context: { cluster: 'remote', user: 'burst' } }],
    users: [{ name: 'burst', user }],
    ...extra,
  });
}

function failed(text: string): string {
  const result = checkKubeconfig(text, SOURCE);
  assert.equal(result.ok, false, 'expected the kubeconfig to be refused');
  if (result.ok) return '';
  assert.ok(result.message.startsWith(SOURCE), result.message);
  assert.ok(!result.message.includes(TOKEN), 'the message must not quote credentials');
  return result.message;
}

describe('checkKubeconfig', () => {
  it('accepts a token kubeconfig and keeps only the current context', () => {
    const text = stringify({
      apiVersion: 'v1',
      'current-context': 'remote',
      clusters: [
        { name: 'remote', cluster: { server: 'https://remote.example.com:6443/' } },
        { name: 'other', cluster: { server: 'https://other:6443' } },
      ],
      contexts: [
        { name: 'remote', context: { cluster: 'remote', user: 'burst' } },
        { name: 'other', context: { cluster: 'other', user: 'burst' } },
      ],
      users: [{ name: 'burst', user: { token: TOKEN } }],
    });
    const result = checkKubeconfig(text, SOURCE);
    assert.ok(result.ok, result.ok ? '' : result.message);
    assert.equal(result.server, 'https://remote.example.com:6443');
    assert.equal(result.user, 'burst');
    assert.deepEqual(
      result.config.getClusters().map((cluster) => cluster.name),
      ['remote'],
    );
    assert.equal(result.config.getCurrentUser()?.token, TOKEN);
  });

  it('accepts inline client certificates', () => {
    const result = checkKubeconfig(
      kubeconfig({ 'client-certificate-data': 'Y2VydA==', 'client-key-data': 'a2V5' }),
      SOURCE,
    );
    assert.equal(result.ok, true);
  });

  it('refuses exec and auth-provider plugins, which would run commands in the operator', () => {
    assert.match(
      failed(kubeconfig({ exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'aws' } })),
      /users\[0\] \("burst"\) uses an exec plugin \(exec\), which would run a command inside the operator; use a token or client certificate/,
    );
    assert.match(
      failed(kubeconfig({ 'auth-provider': { name: 'gcp' } })),
      /uses an auth-provider plugin \(auth-provider\)/,
    );
  });

  it('refuses file paths, which would read the operator’s own files', () => {
    assert.match(
      failed(kubeconfig({ 'token-file': '/var/run/secrets/kubernetes.io/serviceaccount/token' })),
      /sets token-file, a file path the operator would read from its own disk; inline it as token \(`kubectl config view --flatten --minify`\)/,
    );
    assert.match(
      failed(kubeconfig({ 'client-certificate': '/c.crt', 'client-key': '/c.key' })),
      /client-certificate.*client-certificate-data.*client-key.*client-key-data/,
    );
    assert.match(
      failed(kubeconfig({ token: TOKEN }, { server: 'https://x', 'certificate-authority': '/ca.crt' })),
      /clusters\[0\] \("remote"\) sets certificate-authority.*certificate-authority-data/,
    );
  });

  it('sees settings hidden behind YAML merge keys', () => {
    const text = [
      'current-context: remote',
      'hidden: &hidden',
      '  token-file: /var/run/secrets/kubernetes.io/serviceaccount/token',
      'clusters: [{name: remote, cluster: {server: "https://x"}}]',
      'contexts: [{name: remote, context: {cluster: remote, user: burst}}]',
      'users:',
      '- name: burst',
      '  user:',
      '    <<: *hidden',
    ].join('\n');
    assert.match(failed(text), /sets token-file/);
  });

  it('checks unused entries too (the client reads token files on load)', () => {
    const document = {
      users: [{ name: 'unused', user: { 'token-file': '/etc/passwd' } }],
      clusters: [],
    };
    assert.equal(unsafeSettings(document).length, 1);
  });

  const structural: [string, string, RegExp][] = [
    ['empty', '  \n', /is empty; put a kubeconfig there/],
    ['not YAML', 'a: [b\nc: "', /is not valid YAML \(line \d+\)/],
    ['not an object', '- a\n- b', /is not a kubeconfig/],
    [
      'no current context',
      kubeconfig(undefined, undefined, { 'current-context': '' }),
      /has no current-context/,
    ],
    [
      'unknown current context',
      kubeconfig(undefined, undefined, { 'current-context': 'nope' }),
      /current-context "nope" is not in contexts/,
    ],
    [
      'no server',
      kubeconfig({ token: TOKEN }, { 'certificate-authority-data': 'Q0E=' }),
      /cluster "remote" needs a server URL/,
    ],
    [
      'a server that is no URL',
      kubeconfig({ token: TOKEN }, { server: 'remote:6443' }),
      /needs a server URL/,
    ],
    ['no credentials', kubeconfig({}), /user "burst" has no credentials .* anonymous/],
    [
      'half a client certificate',
      kubeconfig({ 'client-certificate-data': 'Y2VydA==' }),
      /has no credentials/,
    ],
  ];
  for (const [name, text, expected] of structural) {
    it(`refuses ${name}`, () => assert.match(failed(text), expected));
  }

  it('never quotes the YAML around a syntax error (it may be a credential)', () => {
    const message = failed(`users:\n- name: u\n  user:\n    token: "${TOKEN}\n  bad: [`);
    assert.ok(!message.includes(TOKEN));
  });
});
