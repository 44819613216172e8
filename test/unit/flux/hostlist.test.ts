import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  HostlistError,
  MAX_DECODED_HOSTS,
  decodeHostlist,
  encodeHostlist,
  indexedHostNames,
} from '../../../src/flux/hostlist.ts';

describe('decodeHostlist', () => {
  it('expands the RFC 29 test vectors', () => {
    const vectors: [string, string][] = [
      ['', ''],
      ['foox,fooy,fooz', 'foox,fooy,fooz'],
      ['[1-3,5-6]', '1,2,3,5,6'],
      ['foo[1-5]', 'foo1,foo2,foo3,foo4,foo5'],
      ['foo[0-4]-eth2', 'foo0-eth2,foo1-eth2,foo2-eth2,foo3-eth2,foo4-eth2'],
      ['foo1,foo1,foo1', 'foo1,foo1,foo1'],
      ['[00-02]', '00,01,02'],
      ['[00-2]', '00,01,02'],
      ['foo[1,1,2,1]', 'foo1,foo1,foo2,foo1'],
    ];
    for (const [hostlist, expanded] of vectors) {
      assert.deepEqual(decodeHostlist(hostlist), expanded === '' ? [] : expanded.split(','), hostlist);
    }
  });

  it('keeps the order of ranges and terms (the order is the rank order)', () => {
    assert.deepEqual(decodeHostlist('foo[0-3,18,4,20]'), [
      'foo0',
      'foo1',
      'foo2',
      'foo3',
      'foo18',
      'foo4',
      'foo20',
    ]);
    assert.deepEqual(decodeHostlist('flux-sample-[0-1],burst-0-[0-1]'), [
      'flux-sample-0',
      'flux-sample-1',
      'burst-0-0',
      'burst-0-1',
    ]);
  });

  it('pads every id to the width of the first', () => {
    assert.deepEqual(decodeHostlist('n[008-10]'), ['n008', 'n009', 'n010']);
    assert.deepEqual(decodeHostlist('n[09,10,100]'), ['n09', 'n10', 'n100']);
  });

  it('rejects malformed hostlists with a message naming the problem', () => {
    const cases: [string, RegExp][] = [
      ['foo[1-3', /unclosed '\['/],
      ['foo1-3]', /unmatched '\]' at position 6/],
      ['foo[1-[2]]', /nested '\['/],
      ['foo[]', /empty brackets in "foo\[\]"/],
      ['foo[3-1]', /descending range "3-1"/],
      ['foo[1-2-3]', /invalid range "1-2-3"/],
      ['foo[a-b]', /invalid id "a"/],
      ['foo[1,]', /invalid range ""/],
      ['a,,b', /empty host .* doubled comma/],
      ['a,', /empty host/],
      ['foo[1]bar[2]', /more than one bracket/],
      ['foo [1-2]', /invalid characters/],
      ['foo bar', /invalid host name "foo bar"/],
      ['foo[1,05]', /ambiguous zero padding in "foo\[1,05\]"/],
      ['foo[001-05]', /ambiguous zero padding/],
      [`n[0-${MAX_DECODED_HOSTS}]`, /more than 100000 hosts/],
    ];
    for (const [hostlist, message] of cases) {
      assert.throws(
        () => decodeHostlist(hostlist),
        (error: unknown) => {
          assert.ok(error instanceof HostlistError, hostlist);
          assert.match(error.message, message, hostlist);
          return true;
        },
      );
    }
  });
});

describe('encodeHostlist', () => {
  it('compresses runs into ranges', () => {
    assert.equal(encodeHostlist(indexedHostNames('flux-sample', 4)), 'flux-sample-[0-3]');
    assert.equal(encodeHostlist(['foo0', 'foo1', 'foo2', 'foo3', 'foo7']), 'foo[0-3,7]');
    assert.equal(encodeHostlist(['foo0-eth2', 'foo1-eth2']), 'foo[0-1]-eth2');
    assert.equal(encodeHostlist(['flux-sample-0']), 'flux-sample-0');
    assert.equal(encodeHostlist([]), '');
  });

  it('only merges adjacent hosts, so the order is kept', () => {
    assert.equal(encodeHostlist(['a1', 'b1', 'a2']), 'a1,b1,a2');
    assert.equal(encodeHostlist(['foo3', 'foo1', 'foo2']), 'foo[3,1-2]');
    assert.equal(
      encodeHostlist(['flux-sample-0', 'flux-sample-1', 'burst-0-0', 'burst-0-1', 'login']),
      'flux-sample-[0-1],burst-0-[0-1],login',
    );
    assert.equal(encodeHostlist(['foo1', 'foo1']), 'foo[1,1]');
  });

  it('keeps zero-padded widths and never mixes widths in one bracket', () => {
    assert.equal(encodeHostlist(['n08', 'n09', 'n10', 'n11']), 'n[08-11]');
    assert.equal(encodeHostlist(['n008', 'n009', 'n010']), 'n[008-010]');
    assert.equal(encodeHostlist(['n9', 'n10']), 'n[9-10]');
    assert.equal(encodeHostlist(['n1', 'n02']), 'n1,n02');
    assert.equal(encodeHostlist(['n01', 'n2']), 'n01,n2');
    assert.equal(encodeHostlist(['n0', 'n00']), 'n0,n00');
  });

  it('numbers only the last digit run', () => {
    assert.equal(encodeHostlist(['burst-0-0', 'burst-0-1', 'burst-1-0']), 'burst-0-[0-1],burst-1-0');
  });

  it('rejects host names a hostlist cannot hold', () => {
    for (const host of ['', 'a b', 'a,b', 'a[1]', 'tab\there']) {
      assert.throws(() => encodeHostlist([host]), HostlistError, JSON.stringify(host));
    }
  });
});

describe('hostlist round trip', () => {
  const hostCharacters = fc.constantFrom('a', 'b', 'z', '-', '.', '_', '0', '1', '9');
  const freeFormHost = fc.string({ unit: hostCharacters, minLength: 1, maxLength: 8 });
  const numberedHost = fc
    .record({
      prefix: fc.constantFrom('node', 'flux-sample-', 'burst-0-', 'x', ''),
      id: fc.integer({ min: 0, max: 120 }),
      width: fc.integer({ min: 0, max: 4 }),
      suffix: fc.constantFrom('', '-eth0', '.local'),
    })
    .map(({ prefix, id, width, suffix }) => `${prefix}${String(id).padStart(width, '0')}${suffix}`);
  const host = fc.oneof(freeFormHost, numberedHost);

  it('decode(encode(hosts)) returns the hosts, in order', () => {
    fc.assert(
      fc.property(fc.array(host, { maxLength: 40 }), (hosts) => {
        assert.deepEqual(decodeHostlist(encodeHostlist(hosts)), hosts);
      }),
      { numRuns: 500 },
    );
  });

  it('round-trips runs of pod hostnames, with gaps and reorderings', () => {
    const run = fc
      .record({
        base: fc.constantFrom('flux-sample', 'burst-0', 'b'),
        start: fc.nat(30),
        count: fc.integer({ min: 1, max: 20 }),
      })
      .map(({ base, start, count }) => indexedHostNames(base, count, start));
    fc.assert(
      fc.property(fc.array(run, { maxLength: 6 }), (runs) => {
        const hosts = runs.flat();
        assert.deepEqual(decodeHostlist(encodeHostlist(hosts)), hosts);
      }),
    );
  });

  it('encoding is stable: encode(decode(encode(hosts))) == encode(hosts)', () => {
    fc.assert(
      fc.property(fc.array(host, { maxLength: 40 }), (hosts) => {
        const encoded = encodeHostlist(hosts);
        assert.equal(encodeHostlist(decodeHostlist(encoded)), encoded);
      }),
    );
  });
});

describe('indexedHostNames', () => {
  it('names indexed-Job pods', () => {
    assert.deepEqual(indexedHostNames('lead', 3, 1), ['lead-1', 'lead-2', 'lead-3']);
    assert.deepEqual(indexedHostNames('lead', 0), []);
    assert.throws(() => indexedHostNames('lead', -1), HostlistError);
  });
});
