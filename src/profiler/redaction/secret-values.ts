/**
 * Finds secrets by their shape, whatever name they go under, so that a secret under an
 * innocent name is not stored either: JWTs, `Bearer` and `Basic` credentials, card numbers
 * that pass the Luhn check, private keys in PEM, keys with a well-known prefix (Google's
 * AIza, AWS's AKIA, GitHub's ghp_, Stripe's sk_live_, Slack's xoxb-, ...), and the tokens
 * that webhook and bot URLs carry in their path (Telegram's `/bot<token>/`, Slack's
 * `hooks.slack.com/services/…`, Discord's `/webhooks/<id>/<token>`).
 */

/** A stretch of text to replace. */
interface Stretch {
  start: number;
  end: number;
}

/**
 * Where a prefixed key, a credential scheme or a JWT may start. Each is found with
 * `indexOf`, far cheaper than one expression of alternatives over the whole text.
 */
const ANCHORS = [
  'eyJ',
  'Bearer ',
  'bearer ',
  'Bearer%20',
  'bearer%20',
  'Basic ',
  'basic ',
  'Basic%20',
  'basic%20',
  'AIza',
  'AKIA',
  'ASIA',
  'ghp_',
  'gho_',
  'ghu_',
  'ghs_',
  'ghr_',
  'github_pat_',
  'sk_live_',
  'sk_test_',
  'rk_live_',
  'rk_test_',
  'whsec_',
  'xoxa-',
  'xoxb-',
  'xoxe-',
  'xoxo-',
  'xoxp-',
  'xoxr-',
  'xoxs-',
  'glpat-',
  'npm_',
  'SG.',
  'sk-proj-',
  'sk-ant-',
  '-----BEGIN ',
  '/bot',
  'hooks.slack',
  '/services/T',
  '/workflows/T',
  '/triggers/T',
  '/webhooks/',
];

/**
 * The anchors grouped by a part they share (`Bearer ` and `bearer%20` by `earer`, every
 * `xoxb-` and `glpat-` by `-`), so that the text is searched once per group: a hit is an
 * anchor when the text around it spells one. Eleven searches stand for the 42 anchors.
 */
interface Needle {
  needle: string;
  anchors: ReadonlyArray<{ anchor: string; offset: number; first: number }>;
  /** Per anchor, where its search may go on; reset for each text (the scan is never re-entered). */
  resume: Int32Array;
}

const NEEDLES: readonly Needle[] = (() => {
  const shared = ['earer', 'asic', 'IA', '_', '-', 'hooks', 's/T'];
  const groups = new Map<string, Array<{ anchor: string; offset: number; first: number }>>();
  for (const anchor of ANCHORS) {
    const needle = shared.find((part) => anchor.includes(part)) ?? anchor;
    const group = groups.get(needle) ?? [];
    group.push({ anchor, offset: anchor.indexOf(needle), first: anchor.charCodeAt(0) });
    groups.set(needle, group);
  }
  return [...groups].map(([needle, anchors]) => ({ needle, anchors, resume: new Int32Array(anchors.length) }));
})();

/** Where a card number may start: a digit 2 to 6 (the networks' prefixes) and 12 to 18 more, spaced or not. */
const CARD = /[2-6](?:[ -]?[0-9]){12,18}/g;

function isAlnum(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

function isBase64url(code: number): boolean {
  return isAlnum(code) || code === 0x5f || code === 0x2d;
}

/** Characters of an RFC 7235 token68 (a Bearer token), `=` padding included. */
function isToken68(code: number): boolean {
  return isBase64url(code) || code === 0x2e || code === 0x7e || code === 0x2b || code === 0x2f || code === 0x3d;
}

/** The end of the run of characters `accepts` takes, from `start`. */
function runEnd(text: string, start: number, accepts: (code: number) => boolean): number {
  let i = start;
  while (i < text.length && accepts(text.charCodeAt(i))) i++;
  return i;
}

/**
 * True when nothing word-like stands right before `at`: a percent escape (`%20` in the
 * percent-encoded x-debug-exception) and a JSON escape (`\n`) are separators.
 */
function startsWord(text: string, at: number, json: boolean): boolean {
  if (at === 0 || !isAlnum(text.charCodeAt(at - 1))) return true;
  if (at >= 3 && text.charCodeAt(at - 3) === 0x25) return true;
  return json && at >= 2 && text.charCodeAt(at - 2) === 0x5c;
}

/** Minimum length of the token after each prefix, and the characters it is made of. */
const PREFIXED: ReadonlyArray<{ test: (anchor: string) => boolean; min: number; accepts: (code: number) => boolean }> =
  [
    { test: (anchor) => anchor === 'AIza', min: 35, accepts: isBase64url },
    {
      test: (anchor) => anchor === 'AKIA' || anchor === 'ASIA',
      min: 16,
      accepts: (code) => (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a),
    },
    { test: (anchor) => anchor === 'github_pat_', min: 30, accepts: isBase64url },
    { test: (anchor) => anchor.startsWith('gh'), min: 30, accepts: isAlnum },
    { test: (anchor) => anchor === 'SG.', min: 40, accepts: (code) => isBase64url(code) || code === 0x2e },
    { test: (anchor) => anchor.startsWith('xox'), min: 10, accepts: isBase64url },
    { test: (anchor) => anchor === 'npm_', min: 30, accepts: isAlnum },
    { test: (anchor) => anchor === 'glpat-' || anchor.startsWith('sk-'), min: 20, accepts: isBase64url },
    // sk_live_, sk_test_, rk_live_, rk_test_, whsec_
    { test: () => true, min: 10, accepts: isAlnum },
  ];

/**
 * The stretches of `text` that hold a secret by its shape, in no particular order. It runs
 * on every string a report stores, so each detector starts from an anchor one regular
 * expression finds (a few literals, no repetition) and scans forward from it, never back
 * over what it passed: the cost stays linear in the text.
 *
 * In JSON text (`json`), a secret is only looked for inside strings, and an escape such
 * as `\n` before it counts as the separator it stands for.
 */
export function secretValueStretches(text: string, json: boolean): Stretch[] {
  const found: Stretch[] = [];
  const pemEnds = { from: -1, at: -1 };
  for (const { needle, anchors, resume } of NEEDLES) {
    // Each anchor's search goes on from the end of its last stretch, as if it were searched alone.
    let hit = text.indexOf(needle);
    if (hit === -1) continue;
    resume.fill(0);
    for (; hit !== -1; hit = text.indexOf(needle, hit + 1)) {
      for (let i = 0; i < anchors.length; i++) {
        const { anchor, offset, first } = anchors[i]!;
        const at = hit - offset;
        if (at < resume[i]! || text.charCodeAt(at) !== first || !text.startsWith(anchor, at)) continue;
        resume[i] = Math.max(anchoredStretch(text, at, anchor, json, found, pemEnds), at + 1);
      }
    }
  }
  cardStretches(text, json, found);
  return found;
}

/** The secret starting at the anchor at `at`, if any, pushed; returns where the scan may go on. */
function anchoredStretch(
  text: string,
  at: number,
  anchor: string,
  json: boolean,
  found: Stretch[],
  pemEnds: PemEnds,
): number {
  const after = at + anchor.length;
  const first = anchor.charCodeAt(0);
  if (first === 0x42 || first === 0x62) {
    // Bearer / Basic: the credential after the scheme, the scheme kept.
    if (!startsWord(text, at, json)) return after;
    const end = runEnd(text, after, isToken68);
    const basic = anchor[1] === 'a';
    if (end - after >= 8 && (!basic || decodesToPair(text.slice(after, end)))) found.push({ start: after, end });
    return end;
  }
  if (anchor === '-----BEGIN ') return pemStretch(text, at, found, pemEnds);
  if (PATH_ANCHORS.has(anchor)) return pathTokenStretch(text, at, anchor, found);
  if (!startsWord(text, at, json)) return after;
  if (anchor === 'eyJ') {
    // header.payload.signature (or the five parts of a JWE), each in base64url.
    let end = runEnd(text, at, (code) => isBase64url(code) || code === 0x2e);
    while (text.charCodeAt(end - 1) === 0x2e) end--;
    const token = text.slice(at, end);
    const parts = token.split('.');
    if (parts.length >= 3 && parts[0]!.length >= 10 && parts[1]!.length >= 2) found.push({ start: at, end });
    return Math.max(end, after);
  }
  const rule = PREFIXED.find((candidate) => candidate.test(anchor))!;
  const end = runEnd(text, after, rule.accepts);
  if (end - after >= rule.min) found.push({ start: at, end });
  return Math.max(end, after);
}

/** Anchors of the tokens that URLs carry in their path. */
const PATH_ANCHORS = new Set(['/bot', 'hooks.slack', '/services/T', '/workflows/T', '/triggers/T', '/webhooks/']);

/** Where a run of digits from `start` ends, or -1 when it holds fewer than `min`. */
function digitsEnd(text: string, start: number, min: number): number {
  const end = runEnd(text, start, (code) => code >= 0x30 && code <= 0x39);
  return end - start >= min ? end : -1;
}

function isUpperAlnum(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a);
}

/** Characters a URL path's segments are made of, as these tokens write them. */
function isSegment(code: number): boolean {
  return isBase64url(code) || code === 0x2f;
}

/**
 * A token in a URL path, after its anchor at `at`: Telegram's `/bot<id>:<secret>` (the
 * colon maybe percent-encoded), Slack's `hooks.slack.com/<kind>/<path>` (the whole path
 * after its kind) and `/services/T…/…/<secret>` (the same path, whatever the host; so
 * `/workflows/` and `/triggers/`), and `/webhooks/<id>/<token>` (Discord's, and those
 * shaped like it).
 */
function pathTokenStretch(text: string, at: number, anchor: string, found: Stretch[]): number {
  const after = at + anchor.length;
  if (anchor === '/bot') {
    const id = digitsEnd(text, after, 3);
    if (id === -1) return after;
    const colon = text.charCodeAt(id) === 0x3a ? 1 : /^%3a/i.test(text.slice(id, id + 3)) ? 3 : 0;
    const end = runEnd(text, id + colon, isBase64url);
    if (colon === 0 || end - (id + colon) < 20) return after;
    found.push({ start: after, end });
    return end;
  }
  if (anchor === '/webhooks/') {
    const id = digitsEnd(text, after, 5);
    if (id === -1 || text.charCodeAt(id) !== 0x2f) return after;
    const end = runEnd(text, id + 1, isBase64url);
    if (end - (id + 1) < 20) return after;
    found.push({ start: id + 1, end });
    return end;
  }
  if (anchor.endsWith('s/T')) {
    // T<team>/…/<secret>: Slack's upper-case team id, then segments, the last one the secret.
    const team = runEnd(text, after, isUpperAlnum);
    if (team - after < 6 || text.charCodeAt(team) !== 0x2f) return after;
    const end = runEnd(text, team + 1, isSegment);
    const secret = text.lastIndexOf('/', end - 1) + 1;
    // Not one: an anchor inside the run ends with the same segment, so the search goes on after it.
    if (end - secret < 16 || runEnd(text, secret, isAlnum) !== end) return end;
    found.push({ start: after - 1, end });
    return end;
  }
  // hooks.slack.com/ or hooks.slack-gov.com/, then services/, workflows/ or triggers/.
  const host = text.startsWith('.com/', after) ? 5 : text.startsWith('-gov.com/', after) ? 9 : -1;
  if (host === -1) return after;
  const kind = runEnd(text, after + host, (code) => (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a);
  if (text.charCodeAt(kind) !== 0x2f) return after;
  const end = runEnd(text, kind + 1, isSegment);
  if (end - (kind + 1) < 8) return after;
  found.push({ start: kind + 1, end });
  return end;
}

/** True when base64 `text` decodes to `user:password`. */
function decodesToPair(text: string): boolean {
  if (!/^[A-Za-z0-9+/]+=*$/.test(text)) return false;
  return Buffer.from(text, 'base64').toString('latin1').includes(':');
}

/** The first `-----END` at or after `from`, remembered: many BEGIN lines without an END cost one search. */
interface PemEnds {
  from: number;
  at: number;
}

/** The body of a PEM private key, its BEGIN and END lines kept. */
function pemStretch(text: string, at: number, found: Stretch[], pemEnds: PemEnds): number {
  const lineEnd = text.indexOf('-----', at + 11);
  if (lineEnd === -1 || lineEnd - at > 80 || !text.slice(at, lineEnd).endsWith('PRIVATE KEY')) return at + 11;
  const start = lineEnd + 5;
  if (pemEnds.from === -1 || (pemEnds.at !== -1 && pemEnds.at < start)) {
    pemEnds.from = start;
    pemEnds.at = text.indexOf('-----END', start);
  }
  const endMarker = pemEnds.at;
  // Cut short: the key runs on as far as base64, line breaks and their JSON escapes do.
  const end =
    endMarker !== -1
      ? endMarker
      : runEnd(
          text,
          start,
          (code) => isAlnum(code) || code === 0x2b || code === 0x2f || code === 0x3d || code <= 0x20 || code === 0x5c,
        );
  if (end > start) found.push({ start, end });
  return end;
}

/** Card numbers: 13 to 19 digits, spaced or not, that pass the Luhn check. */
function cardStretches(text: string, json: boolean, found: Stretch[]): void {
  const inString = json ? stringTracker(text) : undefined;
  CARD.lastIndex = 0;
  for (let match = CARD.exec(text); match !== null; match = CARD.exec(text)) {
    const start = match.index;
    const end = cardEnd(text, start, start + match[0].length, json);
    if (end === -1 || (inString && !inString(start))) {
      CARD.lastIndex = start + 1;
      continue;
    }
    found.push({ start, end });
    CARD.lastIndex = end;
  }
}

/**
 * Where the card number in `text[start, end)` (digits and single separators) ends, the
 * longest that stands alone and passes the Luhn check; -1 when none does.
 */
function cardEnd(text: string, start: number, end: number, json: boolean): number {
  if (!startsWord(text, start, json) || (start > 0 && isSeparatedDigit(text, start - 1))) return -1;
  // The ends to try, longest first: the match's own end, then each separator in it.
  for (let candidate = end; candidate > start; candidate--) {
    const next = text.charCodeAt(candidate);
    const standsAlone = candidate === text.length || !(isAlnum(next) || isSeparatedDigit(text, candidate));
    if (candidate !== end && next !== 0x20 && next !== 0x2d) continue;
    if (!standsAlone) continue;
    const digits = text.slice(start, candidate).replace(/[ -]/g, '');
    if (digits.length >= 13 && luhnValid(digits)) return candidate;
  }
  return -1;
}

/** A space or dash at `at` between two digits: the number goes on through it. */
function isSeparatedDigit(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  if (code !== 0x20 && code !== 0x2d) return false;
  const before = text.charCodeAt(at - 1);
  const after = text.charCodeAt(at + 1);
  return before >= 0x30 && before <= 0x39 && after >= 0x30 && after <= 0x39;
}

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 0x30;
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

/** A number an application keeps as one (a card in a JSON body), when it is a card number. */
export function isCardNumber(value: number): boolean {
  return (
    Number.isSafeInteger(value) &&
    value >= 2e12 &&
    value < 7e18 &&
    /^[2-6]/.test(String(value)) &&
    luhnValid(String(value))
  );
}

/**
 * For JSON text: whether a position (asked in increasing order) is inside a string. It
 * reads on from the last position asked, so all questions together cost one pass.
 */
function stringTracker(text: string): (at: number) => boolean {
  let scanned = 0;
  let inside = false;
  return (at) => {
    for (; scanned < at; scanned++) {
      const code = text.charCodeAt(scanned);
      if (code === 0x22) inside = !inside;
      else if (code === 0x5c && inside) scanned++;
    }
    return inside;
  };
}
