/**
 * Z85 (ZeroMQ RFC 32): the text encoding ZeroMQ and CZMQ use for CURVE keys in certificates.
 * Every 4 bytes (a big-endian 32-bit number) become 5 base-85 digits, so a 32-byte Curve25519 key
 * becomes 40 characters. The RFC defines no padding: inputs must be whole frames.
 */

const Z85_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#';

const BYTES_PER_FRAME = 4;
const CHARS_PER_FRAME = 5;
const BASE = 85;

/** Character code -> digit value, -1 where the character is not in the alphabet. */
const DIGIT_OF_CHAR_CODE: readonly number[] = (() => {
  const table = new Array<number>(128).fill(-1);
  for (let digit = 0; digit < Z85_ALPHABET.length; digit++) {
    table[Z85_ALPHABET.charCodeAt(digit)] = digit;
  }
  return table;
})();

export function z85Encode(bytes: Uint8Array): string {
  if (bytes.length % BYTES_PER_FRAME !== 0) {
    throw new Error(`Z85 encodes whole 4-byte frames: got ${bytes.length} bytes, not a multiple of 4`);
  }
  let text = '';
  for (let offset = 0; offset < bytes.length; offset += BYTES_PER_FRAME) {
    // Multiplication instead of shifts: `<<` would turn values >= 2^31 negative.
    let value =
      (bytes[offset] as number) * 0x1000000 +
      (bytes[offset + 1] as number) * 0x10000 +
      (bytes[offset + 2] as number) * 0x100 +
      (bytes[offset + 3] as number);
    const frame = new Array<string>(CHARS_PER_FRAME);
    for (let position = CHARS_PER_FRAME - 1; position >= 0; position--) {
      frame[position] = Z85_ALPHABET[value % BASE] as string;
      value = Math.floor(value / BASE);
    }
    text += frame.join('');
  }
  return text;
}

export function z85Decode(text: string): Uint8Array {
  if (text.length % CHARS_PER_FRAME !== 0) {
    throw new Error(
      `Z85 decodes whole 5-character frames: got ${text.length} characters, not a multiple of 5`,
    );
  }
  const bytes = new Uint8Array((text.length / CHARS_PER_FRAME) * BYTES_PER_FRAME);
  for (let frameStart = 0; frameStart < text.length; frameStart += CHARS_PER_FRAME) {
    let value = 0;
    for (let position = frameStart; position < frameStart + CHARS_PER_FRAME; position++) {
      const code = text.charCodeAt(position);
      const digit = code < 128 ? (DIGIT_OF_CHAR_CODE[code] as number) : -1;
      if (digit < 0) {
        throw new Error(`invalid Z85 character ${JSON.stringify(text[position])} at position ${position}`);
      }
      value = value * BASE + digit;
    }
    // Five base-85 digits reach 85^5 - 1 > 2^32 - 1: such frames encode no 4 bytes.
    if (value > 0xffffffff) {
      throw new Error(
        `invalid Z85 frame ${JSON.stringify(text.slice(frameStart, frameStart + 5))}: exceeds 32 bits`,
      );
    }
    const byteOffset = (frameStart / CHARS_PER_FRAME) * BYTES_PER_FRAME;
    bytes[byteOffset] = Math.floor(value / 0x1000000) & 0xff;
    bytes[byteOffset + 1] = Math.floor(value / 0x10000) & 0xff;
    bytes[byteOffset + 2] = Math.floor(value / 0x100) & 0xff;
    bytes[byteOffset + 3] = value & 0xff;
  }
  return bytes;
}
