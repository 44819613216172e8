import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiException } from '@kubernetes/client-node';
import {
  CENSOR,
  LONG_BLOB_LENGTH,
  redactSecretFields,
  scrubSecrets,
  serializeError,
} from '../../../src/observability/redact.ts';
import { leaked, secretMaterial } from './fixtures.ts';

describe('scrubSecrets', () => {
  it('masks the secret-key line of a zcert and keeps the rest', () => {
    const material = secretMaterial();
    const scrubbed = scrubSecrets(material.keys.curveCertificate);
    assert.deepEqual(leaked(material, scrubbed), []);
    assert.match(scrubbed, /^ {4}secret-key = "\[REDACTED\]"$/m);
    assert.match(scrubbed, /^ {4}public-key = "(?!\[REDACTED\])[^"]{40}"$/m, 'the public key is not secret');
    assert.match(scrubbed, /^ {4}name = "demo"$/m);
  });

  it('masks secret-key inside JSON strings (escaped quotes) and without quotes', () => {
    const material = secretMaterial();
    const once = JSON.stringify({ curveCert: material.keys.curveCertificate });
    const twice = JSON.stringify({ message: once });
    for (const text of [once, twice]) {
      const scrubbed = scrubSecrets(text);
      assert.deepEqual(leaked(material, scrubbed), [], text.slice(0, 30));
      assert.match(scrubbed, /secret-key = \\+"\[REDACTED\]\\+"/);
    }
    assert.equal(scrubSecrets('secret-key = abcdefghij1234567890'), `secret-key = ${CENSOR}`);
  });

  it('masks a base64 value following munge.key or curve.cert, in JSON and YAML', () => {
    // The data keys spelled out on purpose: this is the text an API error or a dump would echo.
    const material = secretMaterial();
    const json = `Body: ${JSON.stringify({ kind: 'Secret', items: { 'munge.key': material.mungeKeyBase64 } })}`;
    const yaml = `data:\n  munge.key: ${material.mungeKeyBase64}\n  curve.cert: ${material.curveCertBase64}\n`;
    const short = 'munge.key=QUJDREVGR0hJSktMTU5PUA==';
    for (const text of [json, yaml, JSON.stringify(json)]) {
      const scrubbed = scrubSecrets(text);
      assert.deepEqual(leaked(material, scrubbed), []);
      assert.match(scrubbed, /munge\.key\\*"?:\s*\\*"?\[REDACTED\]/);
    }
    assert.equal(scrubSecrets(short), `munge.key=${CENSOR}`);
  });

  it('masks the data map of a Secret in a JSON body', () => {
    const body = JSON.stringify({
      kind: 'Secret',
      data: { token: 'c2hvcnQ=' },
      stringData: { password: 'hunter2' },
    });
    const scrubbed = scrubSecrets(`Body: ${body}`);
    assert.equal(scrubbed, `Body: {"kind":"Secret","data":"${CENSOR}","stringData":"${CENSOR}"}`);
    const escaped = scrubSecrets(JSON.stringify(body));
    assert.doesNotMatch(escaped, /c2hvcnQ=|hunter2/);
  });

  it('masks any long base64 run, and only long ones', () => {
    const blob = Buffer.alloc(LONG_BLOB_LENGTH, 7).toString('base64');
    assert.equal(scrubSecrets(`token ${blob} end`), `token ${CENSOR} end`);
    const digest = `image@sha256:${'0123456789abcdef'.repeat(4)}`;
    assert.equal(scrubSecrets(digest), digest);
  });

  it('leaves text without secrets unchanged', () => {
    for (const text of [
      'reconciled flux/demo in 12ms',
      'cannot read munge.key: /etc/munge/munge.key: no such file',
      'the secret-key line is missing',
      'HTTP-Code: 404\nMessage: Not Found\nBody: {"kind":"Status","reason":"NotFound"}',
      '',
    ]) {
      assert.equal(scrubSecrets(text), text);
    }
  });
});

describe('redactSecretFields', () => {
  it('masks secret fields at any depth without touching the input', () => {
    const input = {
      a: { b: { c: { d: { stringData: { x: 'y' }, keep: 1 } } } },
      mungeKey: 'x',
      'secret-key': 'y',
      headers: { authorization: 'Bearer abc' },
    };
    const copy = structuredClone(input);
    assert.deepEqual(redactSecretFields(input), {
      a: { b: { c: { d: { stringData: CENSOR, keep: 1 } } } },
      mungeKey: CENSOR,
      'secret-key': CENSOR,
      headers: { authorization: CENSOR },
    });
    assert.deepEqual(input, copy);
  });

  it('handles cycles, shared objects, bytes, dates, class instances and depth', () => {
    const shared = { n: 1 };
    const cyclic: Record<string, unknown> = { shared, again: shared };
    cyclic.self = cyclic;
    const when = new Date('2025-01-01T00:00:00Z');
    class Thing {
      data = 'secret';
      name = 'thing';
    }
    let deep: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 20; i++) deep = { deep };
    const result = redactSecretFields({
      cyclic,
      bytes: new Uint8Array(32),
      when,
      thing: new Thing(),
      deep,
    }) as Record<string, unknown>;
    assert.deepEqual(result.cyclic, { shared: { n: 1 }, again: { n: 1 }, self: '[Circular]' });
    assert.equal(result.bytes, '[32 bytes]');
    assert.equal(result.when, when);
    assert.deepEqual(result.thing, { data: CENSOR, name: 'thing' });
    assert.match(JSON.stringify(result.deep), /\[Truncated\]/);
  });

  it('serializes errors with scrubbed messages, stacks and bodies', () => {
    const material = secretMaterial();
    const error = new ApiException(422, 'Invalid', material.curveSecret, {});
    const serialized = serializeError(error) as Record<string, unknown>;
    assert.deepEqual(leaked(material, JSON.stringify(serialized)), []);
    assert.equal(serialized.type, 'ApiException');
    assert.equal(serialized.code, 422);
    assert.equal((serialized.body as Record<string, unknown>).data, CENSOR);
    assert.match(serialized.stack as string, /\n {4}at /, 'the stack trace is kept');
    assert.deepEqual(serializeError({ data: 1, ok: 2 }), { data: CENSOR, ok: 2 });
  });
});
