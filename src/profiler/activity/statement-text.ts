/**
 * Statement text as a report keeps it, sanitised as OpenTelemetry's conventions ask of
 * `db.query.text`: every string and numeric literal becomes `?`, so that no value written
 * into a statement (a password, a token, what a driver substituted) is stored, and
 * statements that differ only by their values read as one. One pass, linear in the text.
 *
 * Quoted identifiers (`` `token` `` in MySQL, `"users"` where double quotes can only be
 * identifiers) and placeholders (`$1`, `?`) are kept; comments are dropped, since they are
 * free text (and sqlcommenter's differ on every request). Whatever cannot be read for sure
 * (an unterminated literal, a string that a server setting could make go on) becomes `?`
 * up to the end: a statement may lose its tail, never leak a value.
 */

import { cutMarker } from '../model/report-bounds.js';
import { MAX_STATEMENT_LENGTH } from './request-activity.js';

/** How one database family quotes, as far as finding its literals needs. */
interface Dialect {
  /** `"…"` is always an identifier (PostgreSQL, Oracle); otherwise it may be a string, and becomes `?`. */
  doubleQuotedIdentifiers: boolean;
  /** `` `…` `` is an identifier (MySQL); otherwise a backquote is read as any other character. */
  backquotedIdentifiers: boolean;
  /** `$$…$$` and `$tag$…$tag$` are strings (PostgreSQL). */
  dollarQuotes: boolean;
  /** `E'…'` always reads backslash escapes (PostgreSQL). */
  escapeStrings: boolean;
  /** `q'[…]'`, with a delimiter of its choosing (Oracle). */
  alternativeQuotes: boolean;
  /** `#` starts a comment to the end of the line (MySQL). */
  hashComments: boolean;
}

const MYSQL: Dialect = {
  doubleQuotedIdentifiers: false,
  backquotedIdentifiers: true,
  dollarQuotes: false,
  escapeStrings: false,
  alternativeQuotes: false,
  hashComments: true,
};
const POSTGRESQL: Dialect = {
  doubleQuotedIdentifiers: true,
  backquotedIdentifiers: false,
  dollarQuotes: true,
  escapeStrings: true,
  alternativeQuotes: false,
  hashComments: false,
};
const ORACLE: Dialect = {
  doubleQuotedIdentifiers: true,
  backquotedIdentifiers: false,
  dollarQuotes: false,
  escapeStrings: false,
  alternativeQuotes: true,
  hashComments: false,
};
/**
 * Any other system (SQLite, SQL Server, a store that is no SQL at all), read so that every
 * quoting it may have hides what it quotes: a double-quoted token may be a string (SQLite
 * takes one as such, as SQL Server does with QUOTED_IDENTIFIER off), `#` may start a
 * comment, `$$` and `q'[` may open strings. Only identifiers known to be quoted as such are
 * kept whole: text between two backquotes where they quote nothing could be literals.
 */
export const OTHER_DIALECT: Dialect = {
  doubleQuotedIdentifiers: false,
  backquotedIdentifiers: false,
  dollarQuotes: true,
  escapeStrings: false,
  alternativeQuotes: true,
  hashComments: true,
};

/** By OpenTelemetry's `db.system.name` (and the older `db.system`). */
const DIALECTS: ReadonlyMap<string, Dialect> = new Map([
  ['mysql', MYSQL],
  ['mariadb', MYSQL],
  ['tidb', MYSQL],
  ['postgresql', POSTGRESQL],
  ['cockroachdb', POSTGRESQL],
  ['oracle', ORACLE],
  ['oracle.db', ORACLE],
  ['db2', ORACLE],
  ['ibm.db2', ORACLE],
]);

export function dialectOf(system: string | undefined): Dialect {
  return (system === undefined ? undefined : DIALECTS.get(system)) ?? OTHER_DIALECT;
}

/**
 * Characters of a statement read at most: a longer one is kept cut anyway, and the rest is
 * counted, not read (an unterminated literal at the cut is replaced as any other).
 */
const READ_AT_MOST = 64 * 1024;

/** The latest statement kept: a span's text is asked at its start and again at its end. */
let last: { text: string; system: string | undefined; kept: string } | undefined;

/**
 * `text` as a report keeps it: sanitised as the database of `system` reads it, and cut to
 * {@link MAX_STATEMENT_LENGTH}.
 */
export function keptStatementText(text: string, system: string | undefined): string {
  if (last !== undefined && last.text === text && last.system === system) return last.kept;
  const unread = Math.max(0, text.length - READ_AT_MOST);
  const sanitised = sanitizeStatement(unread === 0 ? text : text.slice(0, READ_AT_MOST), dialectOf(system));
  let kept = sanitised;
  if (unread > 0 || sanitised.length > MAX_STATEMENT_LENGTH) {
    let end = Math.min(sanitised.length, MAX_STATEMENT_LENGTH);
    const lastKept = sanitised.charCodeAt(end - 1);
    if (lastKept >= 0xd800 && lastKept <= 0xdbff) end--;
    kept = sanitised.slice(0, end) + cutMarker(sanitised.length - end + unread);
  }
  // A long text is not held on to for a second ask.
  last = unread === 0 ? { text, system, kept } : undefined;
  return kept;
}

const SINGLE_QUOTE = 0x27;
const DOUBLE_QUOTE = 0x22;
const BACKQUOTE = 0x60;
const BACKSLASH = 0x5c;
const DOLLAR = 0x24;

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function isWordStart(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || code === 0x5f || code >= 0x80;
}

/** Letters, digits, `_`, `$` and any non-ASCII character: what an unquoted identifier is made of. */
function isWordChar(code: number): boolean {
  return isWordStart(code) || isDigit(code) || code === DOLLAR;
}

function isSpace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d);
}

/**
 * Prefixes that make the string right after them a literal of another kind: `E'…'`
 * (PostgreSQL's escapes), `N'…'`, `X'…'`, `B'…'`, Oracle's `q'[…]'` and `nq'[…]'`, and
 * MySQL's character set introducers (`_utf8mb4'…'`).
 */
function isLiteralPrefix(word: string): boolean {
  if (word.length === 1) return 'eEnNxXbBqQ'.includes(word);
  return word.charCodeAt(0) === 0x5f || word.toLowerCase() === 'nq';
}

type Replace = (start: number, end: number, by: string) => void;

/** `text` with its literals replaced by `?` and its comments dropped, read as `dialect` reads it. */
export function sanitizeStatement(text: string, dialect: Dialect = OTHER_DIALECT): string {
  const length = text.length;
  let out = '';
  /** Where the text not yet copied to `out` starts. */
  let copied = 0;
  const replace: Replace = (start, end, by) => {
    out += text.slice(copied, start) + by;
    copied = end;
  };
  let at = 0;
  while (at < length) {
    const code = text.charCodeAt(at);
    if (isWordStart(code)) {
      const start = at;
      while (at < length && isWordChar(text.charCodeAt(at))) at++;
      if (text.charCodeAt(at) === SINGLE_QUOTE && isLiteralPrefix(text.slice(start, at))) {
        const end = prefixedEnd(text, start, at, dialect);
        replace(start, end, '?');
        at = end;
      }
    } else if (isDigit(code) || (code === 0x2e && isDigit(text.charCodeAt(at + 1)))) {
      const end = numberEnd(text, at);
      replace(at, end, '?');
      at = end;
    } else if (code === SINGLE_QUOTE || (code === DOUBLE_QUOTE && !dialect.doubleQuotedIdentifiers)) {
      const end = stringEnd(text, at, code, false);
      replace(at, end, '?');
      at = end;
    } else if (code === DOUBLE_QUOTE || (code === BACKQUOTE && dialect.backquotedIdentifiers)) {
      const end = identifierEnd(text, at, code);
      if (end === -1) replace(at, length, '?');
      at = end === -1 ? length : end;
    } else if (code === DOLLAR) {
      at = dollar(text, at, dialect, replace);
    } else if (code === 0x3f) {
      // `?1`: a numbered placeholder, kept whole.
      at++;
      while (isDigit(text.charCodeAt(at))) at++;
    } else if (code !== 0x2d && code !== 0x2f && code !== 0x23) at++;
    else {
      const end = commentEnd(text, at, dialect);
      if (end === at) at++;
      else {
        // Dropped; a space keeps the words on either side apart.
        const apart =
          out.length + at - copied > 0 &&
          end < length &&
          !isSpace(text.charCodeAt(at - 1)) &&
          !isSpace(text.charCodeAt(end));
        replace(at, end, apart ? ' ' : '');
        at = end;
      }
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** The end of the string whose prefix is `text[start, quote)`, its quote at `quote`. */
function prefixedEnd(text: string, start: number, quote: number, dialect: Dialect): number {
  const first = text.charCodeAt(start) | 0x20;
  const alternative = dialect.alternativeQuotes && (first === 0x71 || (first === 0x6e && quote - start === 2));
  if (alternative) return alternativeEnd(text, quote);
  return stringEnd(text, quote, SINGLE_QUOTE, dialect.escapeStrings && first === 0x65 && quote - start === 1);
}

/**
 * The end of the string whose quote is at `start`: after its closing quote, a doubled
 * quote standing for one. `escapes`: backslashes escape (PostgreSQL's `E'…'`). Otherwise
 * a quote right after an odd run of backslashes is read both ways: closing, as the SQL
 * standard reads it, or escaped, as MySQL (and PostgreSQL with `standard_conforming_strings`
 * off) reads it; whichever reading is the server's, the string is taken to go on to the end.
 */
function stringEnd(text: string, start: number, quote: number, escapes: boolean): number {
  const length = text.length;
  let at = start + 1;
  let backslashes = 0;
  while (at < length) {
    const code = text.charCodeAt(at);
    if (code === BACKSLASH) {
      if (escapes) at += 2;
      else {
        backslashes++;
        at++;
      }
      continue;
    }
    if (code === quote) {
      if (backslashes % 2 === 1) return length;
      if (text.charCodeAt(at + 1) !== quote) return at + 1;
      at++;
    }
    backslashes = 0;
    at++;
  }
  return length;
}

/** Oracle's `q'<…>'`, its quote at `quote`: it ends at its delimiter's match and a quote. */
function alternativeEnd(text: string, quote: number): number {
  const open = text[quote + 1];
  if (open === undefined) return text.length;
  const close = { '[': ']', '{': '}', '(': ')', '<': '>' }[open] ?? open;
  const end = text.indexOf(`${close}'`, quote + 2);
  return end === -1 ? text.length : end + 2;
}

/** The end of the quoted identifier at `start` (a doubled quote stands for one); -1 when it never closes. */
function identifierEnd(text: string, start: number, quote: number): number {
  const mark = quote === BACKQUOTE ? '`' : '"';
  for (let at = text.indexOf(mark, start + 1); at !== -1; at = text.indexOf(mark, at + 2))
    if (text.charCodeAt(at + 1) !== quote) return at + 1;
  return -1;
}

/**
 * The end of the number at `start`: digits, a fraction, an exponent with its sign, a `0x`,
 * `0b` or `0o` prefix, `_` separators; letters run on into it (`1e10`, `0xFF`), and so does
 * what a number cannot hold but an identifier can (`2abc` is taken whole).
 */
function numberEnd(text: string, start: number): number {
  const hex = text.charCodeAt(start) === 0x30 && (text.charCodeAt(start + 1) | 0x20) === 0x78;
  let at = start;
  while (at < text.length) {
    const code = text.charCodeAt(at);
    const exponentSign =
      (code === 0x2b || code === 0x2d) &&
      !hex &&
      (text.charCodeAt(at - 1) | 0x20) === 0x65 &&
      isDigit(text.charCodeAt(at + 1));
    if (isWordChar(code) || code === 0x2e || exponentSign) at++;
    else break;
  }
  return at;
}

/**
 * At a `$`: a placeholder (`$1`, kept), a dollar-quoted string (`$$…$$`, `$tag$…$tag$`,
 * replaced) where the dialect has them, or a lone `$`. Returns where to go on.
 */
function dollar(text: string, start: number, dialect: Dialect, replace: Replace): number {
  let at = start + 1;
  if (isDigit(text.charCodeAt(at))) {
    while (isDigit(text.charCodeAt(at))) at++;
    return at;
  }
  if (!dialect.dollarQuotes) return at;
  if (isWordStart(text.charCodeAt(at)))
    while (at < text.length && isWordChar(text.charCodeAt(at)) && text.charCodeAt(at) !== DOLLAR) at++;
  if (text.charCodeAt(at) !== DOLLAR) return start + 1;
  const tag = text.slice(start, at + 1);
  const close = text.indexOf(tag, at + 1);
  const end = close === -1 ? text.length : close + tag.length;
  replace(start, end, '?');
  return end;
}

/**
 * The end of the comment at `start` (`--` and, in MySQL, `#` to the end of the line, which
 * stays; `/* … *\/` nested, as PostgreSQL nests them: read nested everywhere, a comment can
 * only hide more); `start` when none starts there.
 */
function commentEnd(text: string, start: number, dialect: Dialect): number {
  const code = text.charCodeAt(start);
  const next = text.charCodeAt(start + 1);
  if ((code === 0x2d && next === 0x2d) || (code === 0x23 && dialect.hashComments)) {
    let end = start + 1;
    while (end < text.length && text.charCodeAt(end) !== 0x0a && text.charCodeAt(end) !== 0x0d) end++;
    return end;
  }
  if (code !== 0x2f || next !== 0x2a) return start;
  let depth = 1;
  let at = start + 2;
  while (at < text.length) {
    const here = text.charCodeAt(at);
    const after = text.charCodeAt(at + 1);
    if (here === 0x2a && after === 0x2f) {
      at += 2;
      if (--depth === 0) return at;
    } else if (here === 0x2f && after === 0x2a) {
      depth++;
      at += 2;
    } else at++;
  }
  return text.length;
}
