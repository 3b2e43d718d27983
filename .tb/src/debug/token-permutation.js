import { createCipheriv } from "node:crypto";
const TOKEN_SPACE = 2 ** 24;
const TOKEN_KEY_BYTES = 32;
const HALF_BITS = 12;
const HALF_SIZE = 2 ** HALF_BITS;
const HALF_MASK = HALF_SIZE - 1;
const ROUNDS = 4;
class TokenPermutation {
  /** Round r maps a 12-bit half `h` to `tables[r * HALF_SIZE + h]`, a 12-bit value. */
  tables = new Uint16Array(ROUNDS * HALF_SIZE);
  constructor(key) {
    if (key.length !== TOKEN_KEY_BYTES) throw new RangeError(`a token key is ${TOKEN_KEY_BYTES} bytes, not ${key.length}`);
    const stream = createCipheriv("aes-256-ctr", key, Buffer.alloc(16)).update(Buffer.alloc(this.tables.length * 2));
    for (let i = 0; i < this.tables.length; i++) this.tables[i] = stream.readUInt16LE(i * 2) & HALF_MASK;
  }
  /** The image of `value`, from 0 to 2^24 - 1. */
  apply(value) {
    const tables = this.tables;
    let left = value >>> HALF_BITS;
    let right = value & HALF_MASK;
    for (let offset = 0; offset < tables.length; offset += HALF_SIZE) {
      const next = left ^ tables[offset + right];
      left = right;
      right = next;
    }
    return left << HALF_BITS | right;
  }
  /** The value whose image is `image`: the rounds undone in reverse order. */
  invert(image) {
    const tables = this.tables;
    let left = image >>> HALF_BITS;
    let right = image & HALF_MASK;
    for (let offset = tables.length - HALF_SIZE; offset >= 0; offset -= HALF_SIZE) {
      const previous = right ^ tables[offset + left];
      right = left;
      left = previous;
    }
    return left << HALF_BITS | right;
  }
  /** The token of a counter value: 6 lower-case hex digits; the counter is taken modulo 2^24. */
  token(counter) {
    return this.apply(counter % TOKEN_SPACE).toString(16).padStart(6, "0");
  }
}
export {
  TOKEN_KEY_BYTES,
  TOKEN_SPACE,
  TokenPermutation
};
//# sourceMappingURL=token-permutation.js.map
