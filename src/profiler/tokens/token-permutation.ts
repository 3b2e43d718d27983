/**
 * The keyed permutation that turns the store's token counter into tokens, so that a plain
 * counter gives tokens that are distinct and yet look random.
 */
import { createCipheriv } from 'node:crypto';

/** Tokens are 24 bits: 6 hex digits. */
export const TOKEN_SPACE = 2 ** 24;
/** The bytes of a key: an AES-256 key. */
export const TOKEN_KEY_BYTES = 32;

const HALF_BITS = 12;
const HALF_SIZE = 2 ** HALF_BITS;
const HALF_MASK = HALF_SIZE - 1;
const ROUNDS = 4;

/**
 * A balanced Feistel network over 24 bits (two 12-bit halves, four rounds) whose round
 * functions are tables drawn from the store's key. Every Feistel network is a bijection,
 * whatever its round functions: distinct counter values give distinct tokens, and
 * consecutive ones give tokens that look random.
 *
 * @example
 *   const permutation = new TokenPermutation(key); // key: 32 random bytes, kept with the store
 *   permutation.token(0); // -> e.g. '3f3902'; token(2 ** 24) is token(0) again
 */
export class TokenPermutation {
  /** Round r maps a 12-bit half `h` to `tables[r * HALF_SIZE + h]`, a 12-bit value. */
  private readonly tables = new Uint16Array(ROUNDS * HALF_SIZE);

  constructor(key: Uint8Array) {
    if (key.length !== TOKEN_KEY_BYTES)
      throw new RangeError(`a token key is ${TOKEN_KEY_BYTES} bytes, not ${key.length}`);
    // AES-256 in counter mode is a keyed stream that no one can tell from random without the key.
    const stream = createCipheriv('aes-256-ctr', key, Buffer.alloc(16)).update(Buffer.alloc(this.tables.length * 2));
    for (let i = 0; i < this.tables.length; i++) this.tables[i] = stream.readUInt16LE(i * 2) & HALF_MASK;
  }

  /** The image of `value`, from 0 to 2^24 - 1. */
  apply(value: number): number {
    const tables = this.tables;
    let left = value >>> HALF_BITS;
    let right = value & HALF_MASK;
    for (let offset = 0; offset < tables.length; offset += HALF_SIZE) {
      const next = left ^ tables[offset + right]!;
      left = right;
      right = next;
    }
    return (left << HALF_BITS) | right;
  }

  /** The value whose image is `image`: the rounds undone in reverse order. */
  invert(image: number): number {
    const tables = this.tables;
    let left = image >>> HALF_BITS;
    let right = image & HALF_MASK;
    for (let offset = tables.length - HALF_SIZE; offset >= 0; offset -= HALF_SIZE) {
      const previous = right ^ tables[offset + left]!;
      right = left;
      left = previous;
    }
    return (left << HALF_BITS) | right;
  }

  /** The token of a counter value: 6 lower-case hex digits; the counter is taken modulo 2^24. */
  token(counter: number): string {
    return this.apply(counter % TOKEN_SPACE)
      .toString(16)
      .padStart(6, '0');
  }
}
