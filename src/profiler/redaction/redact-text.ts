/**
 * Finds secrets inside text and replaces them, so that a report stores no password that a
 * URL, a header or a message carried: the values of `name=value` pairs whose name is a
 * secret, the password of a URL's userinfo, and values that are secrets by their shape,
 * whatever their name (`secret-values.ts`). Which names are secrets is the caller's rule.
 */
import { safeDecode } from '../../utils/safe-decode.js';
import { secretValueStretches } from './secret-values.js';

/** `parameter`: the name is a request parameter's, after `?` or `&` in a URL. */
export type SecretRule = (name: string, parameter?: boolean) => boolean;

/** Longest name looked at before an `=`; a longer run is judged by its end. */
const MAX_NAME = 256;

/** Characters a field name is made of (`user[password]`, `x-api-key`, `%5B` escapes). */
function isNameChar(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x5f ||
    code === 0x2d ||
    code === 0x2e ||
    code === 0x5b ||
    code === 0x5d ||
    code === 0x25 ||
    code === 0x7e
  );
}

/**
 * Characters that end a value, as they stand: a control character, a space, `"`, `&`, `#`,
 * `<`, `>` or `…` (a cut marker). A URL cannot hold them unencoded, so a secret's value is
 * never cut short by a character it may hold.
 */
function endsValue(code: number): boolean {
  return (
    code <= 0x20 || code === 0x26 || code === 0x23 || code === 0x22 || code === 0x3c || code === 0x3e || code === 0x2026
  );
}

/** The same, percent-encoded (`%26`, `%22`, ...): they end values only after an encoded `=`. */
const ENCODED_ENDS = new Set(['26', '23', '22', '3C', '3E', '20', '09', '0A', '0D']);
/** Percent-encoded characters a name may hold (`%5B` is `[`); after an encoded `=`, any other ends the name before it. */
const ENCODED_NAME_CHARS = new Set(['5B', '5D', '5F', '2D', '2E', '7E']);

/**
 * `text` with the values of secret `name=value` pairs (`?password=x` in a URL, `password%3Dx`
 * in a percent-encoded header) and userinfo passwords (`https://ann:x@host`) replaced.
 * Which names are secrets is `isSecret`'s say (see `Redactor`).
 */
export function redactText(text: string, isSecret: SecretRule, replacement: string): string {
  return redact(text, isSecret, replacement, false);
}

/**
 * JSON text with the secrets inside its strings replaced, as {@link redactText} would in each.
 * The text is scanned as it stands, escapes respected, so that a whole report is redacted in
 * one pass over its JSON: `redactJson(JSON.stringify(v))` stores what redacting every string
 * of `v` with `redactText` would.
 */
export function redactJson(json: string, isSecret: SecretRule, replacement: string): string {
  return redact(json, isSecret, replacement, true);
}

/** A stretch of the text to replace with `with`. */
interface Cut {
  start: number;
  end: number;
  with: string;
}

function redact(text: string, isSecret: SecretRule, replacement: string, json: boolean): string {
  const cuts: Cut[] = [];
  pairCuts(text, isSecret, replacement, json, cuts);
  if (text.includes('@')) userinfoCuts(text, replacement, json, cuts);
  for (const { start, end } of secretValueStretches(text, json)) {
    if (text.slice(start, end) !== replacement) cuts.push({ start, end, with: replacement });
  }
  if (cuts.length === 0) return text;
  cuts.sort((a, b) => a.start - b.start);
  let out = '';
  let copied = 0;
  for (const cut of cuts) {
    if (cut.start < copied) {
      // Overlapping stretches (a userinfo inside a pair's value) go as one.
      copied = Math.max(copied, cut.end);
      continue;
    }
    out += text.slice(copied, cut.start) + cut.with;
    copied = cut.end;
  }
  return out + text.slice(copied);
}

/** True when the character at `at` is escaped by an odd run of backslashes before it. */
function escaped(text: string, at: number): boolean {
  let backslashes = 0;
  for (let i = at - 1; i >= 0 && text.charCodeAt(i) === 0x5c; i--) backslashes++;
  return backslashes % 2 === 1;
}

/**
 * `name=value` and `name%3Dvalue` pairs with a secret name and a value. The search goes on
 * after a redacted value, never inside it: `token=token=token=...` costs one scan, not one
 * per `=`.
 */
function pairCuts(text: string, isSecret: SecretRule, replacement: string, json: boolean, cuts: Cut[]): void {
  for (let at = text.indexOf('='); at !== -1; ) {
    const end = pairCut(text, at, 1, isSecret, replacement, json, cuts);
    at = text.indexOf('=', Math.max(at + 1, end));
  }
  for (let at = text.indexOf('%3'); at !== -1; ) {
    const next = text.charCodeAt(at + 2);
    const end = next === 0x44 || next === 0x64 ? pairCut(text, at, 3, isSecret, replacement, json, cuts) : -1; // %3D
    at = text.indexOf('%3', Math.max(at + 2, end));
  }
}

/**
 * The pair whose `=` (or `%3D`, `length` 3) is at `at`, when its name is a secret and it
 * has a value: cut, and where its value ends returned; -1 otherwise.
 */
function pairCut(
  text: string,
  at: number,
  length: number,
  isSecret: SecretRule,
  replacement: string,
  json: boolean,
  cuts: Cut[],
): number {
  const encoded = length === 3;
  const start = nameStart(text, at, encoded, json);
  const name = start >= at ? '' : safeDecode(text.slice(start, at));
  if (name === '' || !isSecret(name, isParameterStart(text, start))) return -1;
  const valueStart = at + length;
  const end = valueEnd(text, valueStart, encoded, json);
  if (end === valueStart) return -1;
  if (text.slice(valueStart, end) !== replacement) cuts.push({ start: valueStart, end, with: replacement });
  return end;
}

/** True when the name starting at `start` follows `?` or `&` (or their escapes `%3F`, `%26`). */
function isParameterStart(text: string, start: number): boolean {
  const before = text.charCodeAt(start - 1);
  if (before === 0x3f || before === 0x26) return true;
  const percentCode =
    start >= 3 && text.charCodeAt(start - 3) === 0x25 ? text.slice(start - 2, start).toUpperCase() : '';
  return percentCode === '3F' || percentCode === '26';
}

/** Where the field name right before the `=` at `at` starts; `at` when there is none. */
function nameStart(text: string, at: number, encoded: boolean, json: boolean): number {
  let start = at;
  while (start > 0 && at - start < MAX_NAME && isNameChar(text.charCodeAt(start - 1))) {
    start--;
    // After an encoded `=` the text is percent-encoded: `%3F` or `%26` ends the name before it.
    if (
      encoded &&
      text.charCodeAt(start) === 0x25 &&
      start + 3 <= at &&
      !ENCODED_NAME_CHARS.has(text.slice(start + 1, start + 3).toUpperCase())
    ) {
      start += 3;
      break;
    }
  }
  // In JSON, `\n` or `\u0001` before a name is an escape: its letters are not the name's.
  if (json && start > 0 && escaped(text, start) && text.charCodeAt(start - 1) === 0x5c)
    start += text[start] === 'u' ? 5 : 1;
  return Math.min(start, at);
}

/** Where the value starting at `start` ends. */
function valueEnd(text: string, start: number, encoded: boolean, json: boolean): number {
  let i = start;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (json && code === 0x5c) {
      // An escaped quote or control character ends the value; `\\` and `\uD83D` belong to it.
      const next = text[i + 1];
      if (next === '\\') i += 2;
      else if (next === 'u' && !text.startsWith('00', i + 2)) i += 6;
      else return i;
      continue;
    }
    if (endsValue(code)) return i;
    if (encoded && code === 0x25 && ENCODED_ENDS.has(text.slice(i + 1, i + 3).toUpperCase())) return i;
    i++;
  }
  return i;
}

/** The password of `scheme://user:password@host`. */
function userinfoCuts(text: string, replacement: string, json: boolean, cuts: Cut[]): void {
  for (let at = text.indexOf('://'); at !== -1; at = text.indexOf('://', at + 3)) {
    const start = at + 3;
    const end = userinfoEnd(text, start, json);
    if (end === -1) continue;
    const colon = text.indexOf(':', start);
    if (colon === -1 || colon >= end - 1 || text.slice(colon + 1, end) === replacement) continue;
    cuts.push({ start: colon + 1, end, with: replacement });
  }
}

/** The `@` ending the userinfo of an authority starting at `start`, or -1 when it has none. */
function userinfoEnd(text: string, start: number, json: boolean): number {
  for (let i = start; i < text.length && i - start < MAX_NAME; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x40) return i;
    // The path, query or fragment begins, or the URL ends: no userinfo.
    if (code === 0x2f || code === 0x3f || endsValue(code) || (json && code === 0x5c)) return -1;
  }
  return -1;
}
