import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sqlMarkup } from './sql-markup.js';

/** The text a reader copies: the markup without its tags, unescaped. */
function textOf(markup: string): string {
  return markup
    .replace(/<[^>]*>/g, '')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&');
}

/** The clauses that start a line, in order. */
const clauses = (markup: string) => [...markup.matchAll(/<b class="kw clause">([^<]*)<\/b>/g)].map((match) => match[1]);

describe('a statement is marked up without a character added or lost', () => {
  const statements = [
    'SELECT id, name FROM products p LEFT JOIN stock s ON s.product_id = p.id WHERE p.price > $1 ORDER BY name LIMIT ?',
    "SELECT 'it''s FROM here' AS \"WHERE\" FROM t",
    'UPDATE users SET name = $1 WHERE id = $2 RETURNING id',
    'INSERT INTO t (a, b) VALUES ($1, $2) ON CONFLICT (a) DO NOTHING',
    'SELECT <script>alert(1)</script> & "x" FROM t',
    "SELECT 'unterminated FROM t WHERE",
    'SELECT "unterminated FROM t WHERE',
    'SELECT a FROM (SELECT b FROM c WHERE d) AS e WHERE f))) AND ((g',
    'select lower(name) from t\n  where x = ? group   by y',
    '',
    'GET ?',
  ];
  for (const statement of statements)
    it(`keeps ${JSON.stringify(statement.slice(0, 40))}`, () => {
      assert.equal(textOf(sqlMarkup(statement).value), statement);
    });

  it('escapes what it shows', () => {
    assert.doesNotMatch(sqlMarkup('SELECT <script>alert(1)</script> FROM t').value, /<script>/);
  });
});

describe("the outer query's main clauses start a line; keywords are marked", () => {
  it('breaks before FROM, JOIN, WHERE, ORDER BY, LIMIT of the outer query only', () => {
    const markup = sqlMarkup(
      'SELECT id FROM products p LEFT JOIN stock s ON s.id = p.id WHERE p.id IN (SELECT id FROM t WHERE x) ORDER BY name LIMIT ?',
    ).value;
    assert.deepEqual(clauses(markup), ['FROM', 'LEFT JOIN', 'WHERE', 'ORDER BY', 'LIMIT']);
    assert.match(markup, /^<b class="kw">SELECT<\/b>/);
    assert.match(markup, /<b class="kw">ON<\/b>/);
    assert.match(markup, /<b class="kw">IN<\/b>/);
  });

  it('reads LEFT OUTER JOIN as one clause', () => {
    const markup = sqlMarkup('SELECT a FROM t LEFT OUTER JOIN u ON u.id = t.id FULL OUTER JOIN v ON true').value;
    assert.deepEqual(clauses(markup), ['FROM', 'LEFT OUTER JOIN', 'FULL OUTER JOIN']);
  });

  it('reads keywords in any case, and a function named as one (LEFT(name, 1)) as a function', () => {
    const markup = sqlMarkup('select left(name, 1) from t group by 1').value;
    assert.deepEqual(clauses(markup), ['from', 'group by']);
    assert.match(markup, /<b class="kw">left<\/b>/);
  });

  it('breaks before VALUES, SET and RETURNING, and before each statement after a ;', () => {
    assert.deepEqual(clauses(sqlMarkup('INSERT INTO t (a) VALUES ($1) RETURNING a').value), ['VALUES', 'RETURNING']);
    assert.deepEqual(clauses(sqlMarkup('UPDATE t SET a = 1 WHERE b; DELETE FROM t').value), [
      'SET',
      'WHERE',
      'DELETE',
      'FROM',
    ]);
  });

  it('reads a qualified name as a name, keyword or not (o.values, t.order)', () => {
    const markup = sqlMarkup('SELECT o.values, t.order FROM o').value;
    assert.deepEqual(clauses(markup), ['FROM']);
    assert.doesNotMatch(markup, /<b class="kw">(values|order)<\/b>/);
  });

  it('adds no break where the text already has one', () => {
    assert.deepEqual(clauses(sqlMarkup('SELECT a\n       FROM t\n WHERE b').value), []);
  });

  it('marks nothing inside quotes, nor in a command of a store that speaks no SQL', () => {
    assert.deepEqual(clauses(sqlMarkup("SELECT 'x FROM y' FROM t").value), ['FROM']);
    assert.equal(sqlMarkup('SET ? ?', 'redis').value, 'SET ? ?');
  });
});

describe('hostile text is read in one pass, without throwing', () => {
  const huge = 1_000_000;
  for (const [name, text] of [
    ['quotes', "'".repeat(huge)],
    ['doubled quotes', `'${"''".repeat(huge / 2)}`],
    ['parentheses', '('.repeat(huge)],
    ['closing parentheses', ')'.repeat(huge)],
    ['ORDER without BY', 'ORDER '.repeat(huge / 6)],
    ['LEFT before spaces', `LEFT${' '.repeat(huge)}x`],
    ['spaces before keywords', `${' '.repeat(huge)}FROM`.repeat(2)],
    ['keywords', 'SELECT FROM '.repeat(huge / 12)],
    ['semicolons', '; SELECT'.repeat(huge / 8)],
    ['lone surrogates', '\ud800FROM\udfff'.repeat(huge / 6)],
  ] as const)
    it(`marks up a megabyte of ${name}`, () => {
      assert.equal(textOf(sqlMarkup(text).value), text);
    });
});
