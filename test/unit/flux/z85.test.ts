import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { z85Decode, z85Encode } from '../../../src/flux/z85.ts';

describe('z85', () => {
  it('passes the RFC 32 test vector', () => {
    const bytes = new Uint8Array([0x86, 0x4f, 0xd2, 0x6f, 0xb5, 0x59, 0xf7, 0x5b]);
    assert.equal(z85Encode(bytes), 'HelloWorld');
    assert.deepEqual(z85Decode('HelloWorld'), bytes);
  });

  it('encodes a 32-byte CURVE key as the 40 characters ZeroMQ uses', () => {
    // The server public key of ZeroMQ's CURVE examples, as raw bytes and as Z85.
    const key = new Uint8Array([
      84, 252, 186, 36, 233, 50, 73, 150, 147, 22, 251, 97, 124, 135, 43, 176, 193, 209, 255, 20, 128, 4, 39,
      197, 148, 203, 250, 207, 27, 194, 214, 82,
    ]);
    assert.equal(z85Encode(key), 'rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7');
    assert.deepEqual(z85Decode('rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7'), key);
  });

  it('encodes the extremes of a frame', () => {
    assert.equal(z85Encode(new Uint8Array([0, 0, 0, 0])), '00000');
    assert.equal(z85Encode(new Uint8Array([0xff, 0xff, 0xff, 0xff])), '%nSc0');
    assert.deepEqual(z85Decode('%nSc0'), new Uint8Array([0xff, 0xff, 0xff, 0xff]));
    assert.equal(z85Encode(new Uint8Array()), '');
    assert.deepEqual(z85Decode(''), new Uint8Array());
  });

  it('round-trips any whole number of frames', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 0, max: 16 })
          .chain((frames) => fc.uint8Array({ minLength: frames * 4, maxLength: frames * 4 })),
        (bytes) => {
          const text = z85Encode(bytes);
          assert.equal(text.length, (bytes.length / 4) * 5);
          assert.deepEqual(z85Decode(text), bytes);
        },
      ),
    );
  });

  it('rejects lengths that are not whole frames', () => {
    assert.throws(() => z85Encode(new Uint8Array(3)), /got 3 bytes, not a multiple of 4/);
    assert.throws(() => z85Decode('Hello1'), /got 6 characters, not a multiple of 5/);
  });

  it('rejects characters outside the alphabet and frames beyond 32 bits', () => {
    assert.throws(() => z85Decode('Hell"'), /invalid Z85 character "\\"" at position 4/);
    assert.throws(() => z85Decode('Hellé'), /invalid Z85 character/);
    assert.throws(() => z85Decode('#####'), /exceeds 32 bits/);
  });
});
