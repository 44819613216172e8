import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiException } from '@kubernetes/client-node';
import {
  RECONCILE_ID_KEY,
  createLogger,
  lazyReconcileLogger,
  newReconcileId,
  reconcileLogger,
} from '../../../src/observability/logger.ts';
import { at, dig, leaked, memoryDestination, secretMaterial } from './fixtures.ts';

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[/;

describe('createLogger (json)', () => {
  it('writes one JSON object per line with a level label, an ISO time and msg', () => {
    const out = memoryDestination();
    const log = createLogger({ destination: out });
    const before = Date.now();
    log.info({ replicas: 3 }, 'scaled');
    const records = out.records();
    assert.equal(records.length, 1);
    const record = at(records, 0);
    assert.equal(record.level, 'info');
    assert.equal(record.msg, 'scaled');
    assert.equal(record.replicas, 3);
    assert.equal(typeof record.time, 'string');
    assert.match(record.time as string, ISO_TIME);
    assert.ok(Math.abs(Date.parse(record.time as string) - before) < 5000);
    assert.equal(record.pid, process.pid);
    assert.ok(at(out.lines, 0).endsWith('\n'));
  });

  it('drops pid and hostname with base: null', () => {
    const out = memoryDestination();
    createLogger({ destination: out, base: null }).warn('x');
    const record = at(out.records(), 0);
    assert.deepEqual(Object.keys(record).sort(), ['level', 'msg', 'time']);
    assert.equal(record.level, 'warn');
  });

  it('writes only records at or above the level', () => {
    const out = memoryDestination();
    const log = createLogger({ destination: out, level: 'warn' });
    log.trace('t');
    log.debug('d');
    log.info('i');
    log.warn('w');
    log.error('e');
    log.fatal('f');
    assert.deepEqual(
      out.records().map((r) => [r.level, r.msg]),
      [
        ['warn', 'w'],
        ['error', 'e'],
        ['fatal', 'f'],
      ],
    );
  });

  it('is info by default, can go down to debug, and writes nothing when silent', () => {
    const info = memoryDestination();
    const infoLog = createLogger({ destination: info });
    infoLog.debug('hidden');
    infoLog.info('shown');
    assert.deepEqual(
      info.records().map((r) => r.msg),
      ['shown'],
    );

    const debug = memoryDestination();
    createLogger({ destination: debug, level: 'debug' }).debug('now shown');
    assert.equal(debug.records()[0]?.level, 'debug');

    const silent = memoryDestination();
    createLogger({ destination: silent, level: 'silent' }).fatal('nothing');
    assert.equal(silent.lines.length, 0);
  });

  it('rejects an unknown level or format', () => {
    assert.throws(() => createLogger({ level: 'verbose' as never }), /unknown log level "verbose"/);
    assert.throws(() => createLogger({ format: 'xml' as never }), /unknown log format "xml"/);
  });
});

describe('createLogger (pretty)', () => {
  it('renders level, namespace/name and message, without colour off a TTY', () => {
    const out = memoryDestination();
    const log = createLogger({ format: 'pretty', destination: out });
    reconcileLogger(log, { namespace: 'flux', name: 'demo', reconcileId: 'abcd1234' }).info('applied job');
    const text = out.text();
    assert.match(text, /INFO/);
    assert.match(text, /flux\/demo applied job/);
    assert.match(text, /reconcileID: "abcd1234"/);
    assert.doesNotMatch(text, ANSI);
    assert.throws(() => JSON.parse(text), 'not JSON');
  });

  it('colours when asked', () => {
    const out = memoryDestination();
    createLogger({ format: 'pretty', destination: out, colorize: true }).error('boom');
    assert.match(out.text(), ANSI);
  });

  it('redacts secrets too', () => {
    const material = secretMaterial();
    const out = memoryDestination();
    createLogger({ format: 'pretty', destination: out }).info({ secret: material.mungeSecret }, 'created');
    assert.deepEqual(leaked(material, out.text()), []);
    assert.match(out.text(), /demo-munge-key/);
  });
});

describe('reconcileLogger', () => {
  it('binds namespace, name and a short random reconcile id to every line', () => {
    const out = memoryDestination();
    const base = createLogger({ destination: out });
    const first = reconcileLogger(base, { namespace: 'flux', name: 'demo' });
    first.info('one');
    first.info('two');
    reconcileLogger(base, { namespace: 'flux', name: 'demo' }).info('three');
    const [one, two, three] = [0, 1, 2].map((i) => at(out.records(), i));
    assert.equal(one?.namespace, 'flux');
    assert.equal(one?.name, 'demo');
    assert.match(String(one?.[RECONCILE_ID_KEY]), /^[0-9a-f]{8}$/);
    assert.equal(two?.[RECONCILE_ID_KEY], one?.[RECONCILE_ID_KEY], 'one id for a reconcile');
    assert.notEqual(three?.[RECONCILE_ID_KEY], one?.[RECONCILE_ID_KEY], 'a new id for the next one');
  });

  it('uses the given id and controller', () => {
    const out = memoryDestination();
    reconcileLogger(createLogger({ destination: out }), {
      namespace: 'ns',
      name: 'n',
      reconcileId: 'fixed',
      controller: 'minicluster',
    }).warn('w');
    const record = at(out.records(), 0);
    assert.equal(record[RECONCILE_ID_KEY], 'fixed');
    assert.equal(record.controller, 'minicluster');
  });

  it('makes ids from the random source', () => {
    assert.equal(
      newReconcileId(() => Uint8Array.of(1, 2, 0xab, 0xff)),
      '0102abff',
    );
  });
});

/** Counts the child loggers made from `base` from now on. */
function countChildren(base: ReturnType<typeof createLogger>): { readonly count: number } {
  const counter = { count: 0 };
  const child = base.child.bind(base);
  base.child = ((...args: Parameters<typeof child>) => {
    counter.count += 1;
    return child(...args);
  }) as typeof base.child;
  return counter;
}

describe('lazyReconcileLogger', () => {
  it('makes no child logger for a pass that logs nothing, and one for every line of a pass that does', () => {
    const out = memoryDestination();
    const base = createLogger({ destination: out });
    const children = countChildren(base);

    lazyReconcileLogger(base, { namespace: 'ns', name: 'quiet' });
    assert.equal(children.count, 0);

    const log = lazyReconcileLogger(base, { namespace: 'ns', name: 'busy', controller: 'minicluster' });
    log.info({ applied: ['Job/busy'] }, 'applied');
    log.warn({ reason: 'R' }, 'waiting');
    assert.equal(children.count, 1);
    const [first, second] = [at(out.records(), 0), at(out.records(), 1)];
    assert.deepEqual(
      [first.msg, first.level, first.name, first.controller, second.msg, second.level],
      ['applied', 'info', 'busy', 'minicluster', 'waiting', 'warn'],
    );
    assert.deepEqual(first.applied, ['Job/busy']);
    assert.match(String(first[RECONCILE_ID_KEY]), /^[0-9a-f]{8}$/);
    assert.equal(second[RECONCILE_ID_KEY], first[RECONCILE_ID_KEY]);
  });
});

describe('lazyReconcileLogger debug lines', () => {
  it('makes no child logger for debug lines the level drops, and writes them at level debug', () => {
    const quiet = memoryDestination();
    const base = createLogger({ destination: quiet });
    const children = countChildren(base);
    lazyReconcileLogger(base, { namespace: 'ns', name: 'quiet' }).debug?.({ step: 'apply' }, 'step done');
    assert.equal(children.count, 0);
    assert.equal(quiet.records().length, 0);

    const out = memoryDestination();
    const verbose = createLogger({ destination: out, level: 'debug' });
    lazyReconcileLogger(verbose, { namespace: 'ns', name: 'busy' }).debug?.({ step: 'apply' }, 'step done');
    const record = at(out.records(), 0);
    assert.deepEqual(
      [record.msg, record.level, record.name, record.step],
      ['step done', 'debug', 'busy', 'apply'],
    );
  });
});

describe('logger redaction', () => {
  it('never writes the data of a logged Secret, as a field or merged into the line', () => {
    const material = secretMaterial();
    const out = memoryDestination();
    const log = createLogger({ destination: out });
    log.info({ secret: material.mungeSecret }, 'created secret');
    log.info(material.curveSecret, 'merged secret');
    log.info({ event: { type: 'ADDED', object: material.mungeSecret } }, 'watch event');
    log.info({ objects: [material.curveSecret, material.mungeSecret] }, 'rendered');
    assert.deepEqual(leaked(material, out.text()), []);
    const [field, merged, event, list] = [0, 1, 2, 3].map((i) => at(out.records(), i));
    assert.equal(dig(field, 'secret', 'data'), '[REDACTED]');
    assert.deepEqual(dig(field, 'secret', 'metadata'), {
      name: 'demo-munge-key',
      namespace: 'flux',
      labels: { 'app.kubernetes.io/name': 'demo' },
    });
    assert.equal(dig(merged, 'data'), '[REDACTED]');
    assert.equal(dig(merged, 'kind'), 'Secret');
    assert.equal(dig(event, 'event', 'object', 'data'), '[REDACTED]');
    assert.equal(dig(list, 'objects', 1, 'data'), '[REDACTED]');
  });

  it('never writes generated keys logged by their field names', () => {
    const material = secretMaterial();
    const out = memoryDestination();
    const log = createLogger({ destination: out });
    log.info({ keys: material.keys }, 'generated keys');
    log.info({ spec: { flux: { curveCert: material.keys.curveCertificate } } }, 'inline certificate');
    log.info({ certificate: material.keys.curveCertificate }, 'certificate under another name');
    log.info({ key: material.keys.mungeKey }, 'raw bytes');
    const text = out.text();
    assert.deepEqual(leaked(material, text), []);
    const records = out.records();
    assert.deepEqual(dig(records, 0, 'keys'), {
      curveCertificate: '[REDACTED]',
      mungeKey: '[REDACTED]',
      restfulSeed: '[REDACTED]',
    });
    assert.match(
      String(dig(records, 2, 'certificate')),
      /public-key = "/,
      'the rest of the certificate is kept',
    );
    assert.equal(dig(records, 3, 'key'), '[1024 bytes]');
  });

  it('never writes the Secret an ApiException carries, in err, msg or stack', () => {
    const material = secretMaterial();
    const out = memoryDestination();
    const log = createLogger({ destination: out });
    const error = new ApiException(409, 'AlreadyExists', material.mungeSecret, {
      'content-type': 'application/json',
    });
    assert.ok(error.message.includes(material.mungeKeyBase64), 'the raw message does echo the key');

    log.error(error);
    log.error({ err: error }, 'apply failed');
    log.error(`apply failed: ${error.message}`);
    log.warn({ error, attempt: 2 }, 'retrying');
    log.error(new Error('reconcile failed', { cause: error }));
    const text = out.text();
    assert.deepEqual(leaked(material, text), []);

    const [bare, withMsg, inMessage, underError, withCause] = [0, 1, 2, 3, 4].map((i) =>
      at(out.records(), i),
    );
    const err = dig(bare, 'err') as Record<string, unknown>;
    assert.equal(err.type, 'ApiException');
    assert.equal(err.code, 409);
    assert.match(
      err.message as string,
      /^HTTP-Code: 409\nMessage: AlreadyExists\n/,
      'the message stays useful',
    );
    assert.match(err.stack as string, /HTTP-Code: 409/);
    assert.equal((err.body as { data: unknown }).data, '[REDACTED]');
    assert.equal((err.body as { kind: unknown }).kind, 'Secret');
    assert.match(String(dig(bare, 'msg')), /^HTTP-Code: 409/);
    assert.equal(dig(withMsg, 'msg'), 'apply failed');
    assert.match(String(dig(inMessage, 'msg')), /"data":"\[REDACTED\]"/);
    assert.equal(dig(underError, 'error', 'body', 'data'), '[REDACTED]');
    assert.match(String(dig(withCause, 'err', 'message')), /reconcile failed: HTTP-Code: 409/);
  });

  it('never writes a Secret bound to a child logger', () => {
    const material = secretMaterial();
    const out = memoryDestination();
    createLogger({ destination: out }).child({ secret: material.curveSecret }).info('child');
    assert.deepEqual(leaked(material, out.text()), []);
    assert.equal(dig(out.records(), 0, 'secret', 'data'), '[REDACTED]');
  });

  it('leaves ordinary records untouched', () => {
    const out = memoryDestination();
    const record = {
      miniCluster: { metadata: { name: 'demo', namespace: 'flux' }, spec: { size: 4, tasks: 2 } },
      image: 'ghcr.io/flux-framework/flux-restful@sha256:' + 'a'.repeat(64),
      path: '/etc/munge/munge.key',
    };
    createLogger({ destination: out }).info(record, 'nothing secret here');
    const logged = at(out.records(), 0);
    assert.deepEqual(logged.miniCluster, record.miniCluster);
    assert.equal(logged.image, record.image);
    assert.equal(logged.path, record.path);
    assert.equal(logged.msg, 'nothing secret here');
  });
});
