/**
 * A statement as the database panel shows it: its keywords marked and each main clause
 * (FROM, WHERE, JOIN, ORDER BY...) of the outer query starting a line, with no character
 * added to the text: the line breaks are drawn by the page's style, so that what a reader
 * copies is the statement as it was kept. One pass, linear in the text; any text (an
 * unterminated quote, a cut statement, no SQL at all) is read without throwing.
 */
import { escapeHtml, raw, type SafeHtml } from '../../utils/html.js';

const KEYWORDS = new Set(
  (
    'ADD ALL ALTER AND ANY AS ASC BEGIN BETWEEN BY CALL CASE CAST COLLATE COMMIT CONFLICT CONSTRAINT CREATE CROSS ' +
    'CURRENT DEFAULT DELETE DESC DISTINCT DO DROP ELSE END ESCAPE EXCEPT EXISTS EXPLAIN FALSE FETCH FILTER FIRST ' +
    'FOR FROM FULL GRANT GROUP HAVING IF ILIKE IN INDEX INNER INSERT INTERSECT INTO IS JOIN KEY LATERAL LEFT LIKE ' +
    'LIMIT LOCK NATURAL NEXT NOT NOTHING NULL NULLS OF OFFSET ON ONLY OR ORDER OUTER OVER PARTITION PRIMARY ' +
    'RECURSIVE REFERENCES RETURNING RIGHT ROLLBACK ROW ROWS SELECT SET SHARE SHOW SKIP TABLE THEN TO TRUE TRUNCATE ' +
    'UNION UNIQUE UPDATE USING VALUES VIEW WHEN WHERE WINDOW WITH'
  ).split(' '),
);

/** Keywords that open a clause of their own: a line starts before them. */
const CLAUSES = new Set(
  'SELECT FROM WHERE GROUP ORDER HAVING LIMIT OFFSET VALUES SET RETURNING UNION INTERSECT EXCEPT JOIN WINDOW FETCH'.split(
    ' ',
  ),
);
/** Words that open a clause only with the word after them: `LEFT JOIN` (not `LEFT(name, 3)`), `ORDER BY`. */
const JOINED: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['LEFT', new Set(['JOIN', 'OUTER'])],
  ['RIGHT', new Set(['JOIN', 'OUTER'])],
  ['FULL', new Set(['JOIN', 'OUTER'])],
  ['INNER', new Set(['JOIN'])],
  ['CROSS', new Set(['JOIN'])],
  ['NATURAL', new Set(['JOIN'])],
  ['ORDER', new Set(['BY'])],
  ['GROUP', new Set(['BY'])],
]);

/** Database systems whose commands are not SQL: shown as they are. */
const NOT_SQL = new Set(['redis', 'mongodb', 'memcached', 'elasticsearch', 'opensearch', 'dynamodb']);

function isWordChar(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x5f ||
    code === 0x24 ||
    code >= 0x80
  );
}

function isSpace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d);
}

/** Where the run of characters of one kind that starts at `at` ends. */
function runEnd(text: string, at: number, of: (code: number) => boolean): number {
  while (at < text.length && of(text.charCodeAt(at))) at++;
  return at;
}

/** After the quoted part opening at `at` (a doubled quote stands for one); the text's end when it never closes. */
function quotedEnd(text: string, at: number): number {
  const quote = text[at]!;
  let from = at + 1;
  for (;;) {
    const close = text.indexOf(quote, from);
    if (close === -1) return text.length;
    if (text[close + 1] !== quote) return close + 1;
    from = close + 2;
  }
}

/** The word after `at` once spaces are passed, in upper case, and where it ends; `at` when none. */
function nextWord(text: string, at: number): { word: string; end: number } {
  const start = runEnd(text, at, isSpace);
  const end = runEnd(text, start, isWordChar);
  return { word: text.slice(start, end).toUpperCase(), end: end === start ? at : end };
}

/**
 * The statement's markup for a `<pre class="sql">`: `<b class="kw">` around keywords,
 * `<b class="kw clause">` around those that start a clause of the outer query (the style
 * breaks the line before them). `system`: OpenTelemetry's name of the database; a command
 * of a store that speaks no SQL (Redis) is shown as it is.
 */
export function sqlMarkup(text: string, system?: string): SafeHtml {
  if (system !== undefined && NOT_SQL.has(system)) return raw(escapeHtml(text));
  const parts: string[] = [];
  let depth = 0;
  let copied = 0;
  /** No word yet since the start (0), since a `;` (1), or words seen (2). */
  let statement: 0 | 1 | 2 = 0;
  let at = 0;
  const mark = (start: number, end: number, clause: boolean) => {
    parts.push(escapeHtml(text.slice(copied, start)), clause ? '<b class="kw clause">' : '<b class="kw">');
    parts.push(escapeHtml(text.slice(start, end)), '</b>');
    copied = end;
  };
  while (at < text.length) {
    const code = text.charCodeAt(at);
    if (isWordChar(code)) {
      const start = at;
      at = runEnd(text, at, isWordChar);
      const word = text.slice(start, at).toUpperCase();
      const first = statement;
      statement = 2;
      // `o.values`: a column named as a keyword.
      if (!KEYWORDS.has(word) || text.charCodeAt(start - 1) === 0x2e) continue;
      const follows = JOINED.get(word);
      let clause = CLAUSES.has(word);
      if (follows !== undefined) {
        const next = nextWord(text, at);
        clause = follows.has(next.word);
        if (clause) at = next.end;
        // `LEFT OUTER JOIN` is one clause.
        const join = next.word === 'OUTER' ? nextWord(text, at) : undefined;
        if (clause && join?.word === 'JOIN') at = join.end;
      }
      // The outer query's clauses and each statement after a `;` start a line, unless the text already breaks one there.
      const opens = first === 1 || (first === 2 && clause && depth === 0);
      mark(start, at, opens && !lineBrokenBefore(text, start));
    } else if (code === 0x27 || code === 0x22 || code === 0x60) {
      at = quotedEnd(text, at);
      statement = 2;
    } else {
      if (code === 0x28) depth++;
      else if (code === 0x29) depth = Math.max(0, depth - 1);
      else if (code === 0x3b) {
        depth = 0;
        statement = 1;
      }
      at++;
    }
  }
  if (copied === 0) return raw(escapeHtml(text));
  parts.push(escapeHtml(text.slice(copied)));
  return raw(parts.join(''));
}

/** True when the spaces before `at` hold a line break. */
function lineBrokenBefore(text: string, at: number): boolean {
  for (let back = at - 1; back >= 0 && isSpace(text.charCodeAt(back)); back--) {
    const code = text.charCodeAt(back);
    if (code === 0x0a || code === 0x0d) return true;
  }
  return false;
}
