import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_STATEMENT_LENGTH } from './request-activity.js';
import { dialectOf, keptStatementText, OTHER_DIALECT, sanitizeStatement } from './statement-text.js';

const mysql = (text: string) => sanitizeStatement(text, dialectOf('mysql'));
const postgres = (text: string) => sanitizeStatement(text, dialectOf('postgresql'));
const other = (text: string) => sanitizeStatement(text, OTHER_DIALECT);
const oracle = (text: string) => sanitizeStatement(text, dialectOf('oracle'));

describe('every literal of a statement becomes ? (issue 41, item 4)', () => {
  it('replaces the secrets the review found in clear', () => {
    assert.equal(postgres("CREATE ROLE app LOGIN PASSWORD 's3cret'"), 'CREATE ROLE app LOGIN PASSWORD ?');
    assert.equal(mysql("ALTER USER 'app'@'%' IDENTIFIED BY 's3cret'"), 'ALTER USER ?@? IDENTIFIED BY ?');
    assert.equal(mysql("SELECT * FROM users WHERE password = 's3cret'"), 'SELECT * FROM users WHERE password = ?');
    assert.equal(mysql("SELECT `id` FROM `users` WHERE `token` = 'tok'"), 'SELECT `id` FROM `users` WHERE `token` = ?');
    assert.equal(
      mysql("INSERT INTO users (id, name, key) VALUES (7, 'ann', 'k3y')"),
      'INSERT INTO users (id, name, key) VALUES (?, ?, ?)',
    );
  });

  it('replaces numbers of every form, but no digit of an identifier or a placeholder', () => {
    assert.equal(
      postgres('SELECT 42, -7, 3.14, .5, 1e10, 1.5E-3, 0x1F, 0b101, 1_000 FROM t1'),
      'SELECT ?, -?, ?, ?, ?, ?, ?, ?, ? FROM t1',
    );
    assert.equal(
      postgres('SELECT col_2, t1.c3 FROM t1 WHERE id = $1 AND n = $12'),
      'SELECT col_2, t1.c3 FROM t1 WHERE id = $1 AND n = $12',
    );
    assert.equal(other('SELECT a FROM t WHERE id = ?1 AND b = ?'), 'SELECT a FROM t WHERE id = ?1 AND b = ?');
    assert.equal(mysql('SELECT a$1, x1y FROM t2 WHERE n = 1-2'), 'SELECT a$1, x1y FROM t2 WHERE n = ?-?');
  });

  it('groups statements that differ only by their values', () => {
    assert.equal(
      mysql("SELECT * FROM t WHERE id = 1 AND name = 'a'"),
      mysql("SELECT * FROM t WHERE id = 22 AND name = 'bb'"),
    );
  });

  it('returns a text without literals as it is', () => {
    const text = 'SELECT "id", `name` FROM users WHERE id = $1';
    assert.equal(postgres(text), text);
    assert.equal(postgres(''), '');
  });
});

describe('strings are read as each database quotes them', () => {
  it('takes a doubled quote as one, inside the string', () => {
    assert.equal(postgres("SELECT 'it''s', 'x'"), 'SELECT ?, ?');
    assert.equal(postgres("SELECT '''', 1"), 'SELECT ?, ?');
  });

  it('reads a quote after a backslash both ways: the string then runs to the end', () => {
    // MySQL (and PostgreSQL with standard_conforming_strings off): escaped; the standard: closing.
    assert.equal(mysql("UPDATE t SET a = 'it\\'s secret' WHERE id = 7"), 'UPDATE t SET a = ?');
    assert.equal(postgres("SELECT 'C:\\', 'secret'"), 'SELECT ?');
    assert.equal(other("SELECT 'a\\'', 'secret'"), 'SELECT ?');
    // An even run is a backslash escaped, whichever the reading: the string closes.
    assert.equal(mysql("SELECT 'C:\\\\', 'secret'"), 'SELECT ?, ?');
    assert.equal(mysql("SELECT 'a\\nb', 2"), 'SELECT ?, ?');
  });

  it("reads PostgreSQL's E'…' with its escapes, and its dollar quotes", () => {
    assert.equal(postgres("SELECT E'it\\'s', e'\\\\', 'x'"), 'SELECT ?, ?, ?');
    assert.equal(postgres("SELECT $$it's$$, $body$ a $$ b $body$, 1"), 'SELECT ?, ?, ?');
    assert.equal(postgres('SELECT $a$ never closed'), 'SELECT ?');
    // A tag goes with its identifier: no dollar quote inside a word.
    assert.equal(postgres('SELECT a$b$c FROM t'), 'SELECT a$b$c FROM t');
  });

  it('keeps double-quoted identifiers where they can only be identifiers, and replaces them where they may be strings', () => {
    assert.equal(postgres('SELECT "user id" FROM "Users"'), 'SELECT "user id" FROM "Users"');
    assert.equal(oracle('SELECT "Name" FROM "T"'), 'SELECT "Name" FROM "T"');
    assert.equal(mysql('SELECT * FROM t WHERE password = "hunter2"'), 'SELECT * FROM t WHERE password = ?');
    assert.equal(other('SELECT * FROM t WHERE password = "hunter2"'), 'SELECT * FROM t WHERE password = ?');
    assert.equal(mysql('SELECT "it\\"s", 1'), 'SELECT ?');
  });

  it('keeps backquoted identifiers whole, quotes inside them included, where backquotes quote (MySQL)', () => {
    assert.equal(mysql("SELECT `it's` FROM `a``b` WHERE x = 'v'"), "SELECT `it's` FROM `a``b` WHERE x = ?");
    // Elsewhere a backquote quotes nothing: what stands between two is read as it is.
    assert.equal(postgres("SELECT `a 'secret' b`"), 'SELECT `a ? b`');
    assert.equal(other("SELECT `a 'secret' b`"), 'SELECT `a ? b`');
  });

  it('replaces prefixed strings with their prefix', () => {
    assert.equal(mysql("SELECT X'ff', N'name', _utf8mb4'text', B'0101', 0xFF"), 'SELECT ?, ?, ?, ?, ?');
    assert.equal(oracle("SELECT q'[it's]', nQ'{x}', 'y' FROM dual"), 'SELECT ?, ?, ? FROM dual');
    // Not a prefix: the word stays.
    assert.equal(mysql("SELECT hex'00'"), 'SELECT hex?');
  });

  it('replaces what never closes up to the end', () => {
    assert.equal(mysql("SELECT 'never closed, secret"), 'SELECT ?');
    assert.equal(mysql('SELECT `never closed, secret'), 'SELECT ?');
    assert.equal(postgres('SELECT "never closed, secret'), 'SELECT ?');
  });
});

describe('comments are dropped, and never taken for strings', () => {
  it('drops line and block comments, nested ones whole', () => {
    assert.equal(postgres("SELECT 1 -- it's a note\nFROM t"), 'SELECT ? \nFROM t');
    assert.equal(postgres("/* a /* nested */ it's */ SELECT a FROM t"), ' SELECT a FROM t');
    assert.equal(postgres("SELECT a/* x */FROM t /*traceparent='00-abc-01'*/"), 'SELECT a FROM t ');
    assert.equal(mysql("SELECT a FROM t # it's\nWHERE b = 2"), 'SELECT a FROM t \nWHERE b = ?');
    assert.equal(postgres('SELECT /* never closed, secret'), 'SELECT ');
  });

  it('keeps # where it is an operator (PostgreSQL)', () => {
    assert.equal(postgres('SELECT a # b FROM t'), 'SELECT a # b FROM t');
  });

  it('hides what a comment may hold where a database has no such comment', () => {
    assert.equal(other("SELECT a FROM t # it's\n, 'secret'"), 'SELECT a FROM t \n, ?');
  });
});

describe('no planted value survives, in statements generated from every quoting', () => {
  /** Pieces a statement is made of, for a dialect; `@@` is where the secret goes. */
  const CODE = [
    'SELECT',
    ' ',
    'a1',
    ', ',
    '"id"',
    '`t`',
    '$1',
    '?',
    '(',
    ')',
    '=',
    '\n',
    "-- it's \n",
    '/* \' " $$ */',
    '7',
    '.5',
    "''",
    'x::text',
  ];
  const LITERALS: Record<string, string[]> = {
    mysql: [
      "'@@'",
      "'it''s @@'",
      "'it\\'s @@'",
      "'\\\\' , '@@'",
      '"@@"',
      '"it\\"s @@"',
      "X'@@'",
      "_utf8mb4'@@'",
      '# @@\n',
    ],
    postgresql: [
      "'@@'",
      "'it''s @@'",
      "E'it\\'s @@'",
      "'C:\\' , '@@'",
      '$$ @@ $$',
      '$q$ @@ $q$',
      "U&'@@'",
      '/* /* */ @@ */',
    ],
    other: ["'@@'", "'it''s @@'", "'it\\'s @@'", "'C:\\' , '@@'", '"@@"', '$$ @@ $$', "q'[@@]'", "N'@@'", '# @@\n'],
  };
  let seed = 41;
  const next = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed;
  };

  for (const [system, literals] of Object.entries(LITERALS)) {
    it(system, () => {
      const dialect = dialectOf(system === 'other' ? 'sqlite' : system);
      for (let round = 0; round < 2000; round++) {
        const secret = `planted${round}x`;
        const pieces = [];
        for (let i = 0; i < 10; i++)
          pieces.push(
            next() % 3 === 0 ? literals[next() % literals.length]!.replace('@@', secret) : CODE[next() % CODE.length],
          );
        // Apart, as a statement's tokens are: `a1$q$` would be one identifier.
        const text = pieces.join(' ');
        assert.doesNotMatch(sanitizeStatement(text, dialect), new RegExp(secret), JSON.stringify(text));
      }
    });
  }
});

describe('the scan is linear, whatever the text', () => {
  it('reads hostile texts of a million characters in one pass each', () => {
    const million = 1_000_000;
    const kept = (text: string, read: (text: string) => string) => read(text).slice(0, 12);
    assert.equal(kept(`SELECT ${"'".repeat(million)}`, postgres), 'SELECT ?');
    assert.equal(kept(`SELECT ${'$a'.repeat(million / 2)}`, postgres), 'SELECT ?a$a$');
    assert.equal(kept(`SELECT ${'$a$$b'.repeat(million / 5)}`, postgres), 'SELECT ??a$$');
    assert.equal(kept(`SELECT ${'/*'.repeat(million / 2)}`, postgres), 'SELECT ');
    assert.equal(kept(`SELECT ${'`'.repeat(million)}`, mysql), 'SELECT `````');
    assert.equal(kept(`SELECT '${'\\'.repeat(million)}`, mysql), 'SELECT ?');
    assert.equal(kept(`SELECT ${"q'[".repeat(million / 3)}`, oracle), 'SELECT ?');
    assert.equal(kept(`SELECT ${'-'.repeat(million)}`, mysql), 'SELECT ');
  });
});

describe('keptStatementText: sanitised for its system, then cut to the bound', () => {
  it('reads the text as its system does', () => {
    assert.equal(keptStatementText('SELECT "a" FROM t', 'postgresql'), 'SELECT "a" FROM t');
    assert.equal(keptStatementText('SELECT "a" FROM t', 'mysql'), 'SELECT ? FROM t');
    assert.equal(keptStatementText('SELECT "a" FROM t', undefined), 'SELECT ? FROM t');
  });

  it('cuts a long statement, counting what was not read', () => {
    const long = `SELECT ${'a, '.repeat(200_000)}b FROM t WHERE c = 'secret'`;
    const kept = keptStatementText(long, 'mysql');
    assert.ok(kept.startsWith('SELECT a, a, '));
    assert.match(kept, /…\[cut [\d,]+ characters\]$/);
    assert.equal(kept.indexOf('…'), MAX_STATEMENT_LENGTH);
    const cut = Number(/cut ([\d,]+)/.exec(kept)![1]!.replace(/,/g, ''));
    assert.equal(cut, long.length - MAX_STATEMENT_LENGTH);
    assert.doesNotMatch(kept, /secret/);
  });

  it('replaces a literal cut by the bound', () => {
    const kept = keptStatementText(`SELECT '${'s'.repeat(200_000)}' AS a`, 'postgresql');
    assert.match(kept, /^SELECT \?…\[cut/);
  });
});
