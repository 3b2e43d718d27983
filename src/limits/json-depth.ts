/**
 * How deep a JSON text nests, told by one linear pass before it is parsed: a body nested
 * thousands of levels deep parses, but every later walk of it (a copy to an isolated
 * worker, a handler's recursion, the answer's serialization) may run out of stack.
 */

/** The deepest nesting of arrays and objects a parsed JSON body may have. */
export const MAX_JSON_DEPTH = 1000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/** True when `text` opens more than `limit` arrays or objects inside one another; brackets in strings do not count. */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH)
        i++; // the escaped character, a quote included, is part of the string
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      if (++depth > limit) return true;
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}
