/**
 * The secrets corpus (`test/fixtures/secret-corpus.ts`, issue 26, item 6) as a fuzz family:
 * each case sends one of its requests, its values made unique by the case's id, and one of
 * its secrets must not be in the stored report (debug mode; counted as a leak). A second
 * family (issue 41) plants a secret in a statement's literal, quoted every way each
 * database quotes, or in an outgoing URL's path or query.
 */
import { hidden, secretCorpus } from '../fixtures/secret-corpus.js';
import { secretValue, type Family } from './cases.js';
import type { Random } from './prng.js';
import { requestBytes } from './request.js';

/** The fuzz routes' one route made to fail here. */
const FAILING = '/secrets/fail';

export const secrets: Family = {
  name: 'secrets: corpus',
  make(random, id) {
    const corpus = secretCorpus(`f${id}z`);
    const chosen = random.pick(corpus);
    return {
      name: `${chosen.name}`,
      bytes: requestBytes({
        method: chosen.method,
        target: chosen.path,
        headers: chosen.headers,
        ...(chosen.body === undefined ? {} : { body: chosen.body }),
      }),
      secret: random.pick(chosen.secrets),
      serverErrors: chosen.path === FAILING ? [500] : [],
    };
  },
};

/** Literals of each system, `@@` where the secret goes: every quoting, escape and comment the sanitiser reads. */
const LITERALS: Readonly<Record<string, readonly string[]>> = {
  mysql: [
    "'@@'",
    "'it''s @@'",
    "'it\\'s @@'",
    "'\\\\' , '@@'",
    '"@@"',
    '"it\\"s @@"',
    "X'@@'",
    "_utf8mb4'@@'",
    "N'@@'",
    '# @@\n',
    '-- @@\n',
    '/*! @@ */',
  ],
  postgresql: [
    "'@@'",
    "'it''s @@'",
    "E'it\\'s @@'",
    "e'\\\\' , '@@'",
    "'C:\\' , '@@'",
    '$$ @@ $$',
    "$body$ it's @@ $body$",
    "U&'@@'",
    '/* /* */ @@ */',
    '-- @@\n',
  ],
  sqlite: ["'@@'", "'it''s @@'", "'it\\'s @@'", '"@@"', "q'[@@]'", '$$ @@ $$', '# @@\n', '/* @@'],
};
/** What may stand around a literal: identifiers with digits, placeholders, numbers, quoted identifiers, comments. */
const AROUND = [
  'SELECT',
  'a1',
  't_2.c3',
  '$1',
  '?',
  '?2',
  ':name',
  '=',
  ',',
  '(',
  ')',
  '7',
  '-0.5e-3',
  '0xFF',
  '`it``s`',
  '"Users"',
  "/* it's */",
  '-- note\n',
  'WHERE',
  'VALUES',
  'PASSWORD',
  'IDENTIFIED BY',
];

function statementWith(random: Random, system: string, secret: string): string {
  const pieces: string[] = [];
  const at = random.int(0, 5);
  for (let i = 0; i <= 6; i++) {
    if (i === at) pieces.push(random.pick(LITERALS[system]!).replace('@@', secret));
    else pieces.push(random.pick(AROUND));
  }
  // Apart, as a statement's tokens are: `a1'…'` or `a1$q$` read otherwise.
  return pieces.join(random.pick([' ', '\n', '  ']));
}

/** URLs with a token in their path or query: the secret is the token, shaped as each service shapes it. */
function urlWith(random: Random, id: number): { url: string; secret: string } {
  const value = secretValue(id);
  const alphanumeric = value.replace(/[^a-z0-9]/gi, '');
  const shapes = [
    {
      url: (secret: string) => `https://api.telegram.org/bot${random.int(1000, 9_999_999)}:${secret}/sendMessage`,
      secret: `AA${value}`.padEnd(35, 'x'),
    },
    {
      url: (secret: string) => `https://hooks.slack.com/services/T0123ABCD/B0456EFGH/${secret}`,
      secret: alphanumeric.padEnd(24, 'h'),
    },
    {
      url: (secret: string) => `https://hooks.slack.com/workflows/T0123ABCD/A0456EFGH/1234/${secret}`,
      secret: alphanumeric.padEnd(32, 'w'),
    },
    {
      url: (secret: string) =>
        `https://discord.com/api/webhooks/${random.int(100_000, 999_999_999)}/${secret}?wait=true`,
      secret: `${value}-`.padEnd(68, 'd'),
    },
    { url: (secret: string) => `https://maps.example.com/geocode?address=Main+St&key=${secret}&v=2`, secret: value },
  ];
  const shape = random.pick(shapes);
  return { url: shape.url(shape.secret), secret: shape.secret };
}

/** Statement text and outgoing URLs (issue 41, items 4 and 6): the planted secret must not be stored. */
export const statementsAndUrls: Family = {
  name: 'secrets: statements and outgoing URLs',
  make(random, id) {
    if (random.chance(0.5)) {
      const { url, secret } = urlWith(random, id);
      return {
        name: `outgoing ${url.slice(0, url.indexOf('/', 8))}`,
        bytes: requestBytes({
          method: 'POST',
          target: '/secrets/outgoing',
          headers: [['Content-Type', 'application/json']],
          body: JSON.stringify({ urls: hidden([url]) }),
        }),
        secret,
      };
    }
    const system = random.pick(Object.keys(LITERALS));
    const secret = secretValue(id);
    const statements = [statementWith(random, system, secret)];
    // Others around it, without the secret: a run, and statements that differ only by their values.
    for (let i = random.int(0, 2); i > 0; i--) statements.push(statementWith(random, system, `decoy${i}`));
    return {
      name: `statements, ${system}`,
      bytes: requestBytes({
        method: 'POST',
        target: '/secrets/statements',
        headers: [['Content-Type', 'application/json']],
        body: JSON.stringify({ system, statements: hidden(random.shuffle(statements)) }),
      }),
      secret,
    };
  },
};

export const SECRET_FAMILIES: readonly Family[] = [secrets, statementsAndUrls];
