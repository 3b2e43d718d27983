/**
 * Removes secrets before a report is stored, so that a profiler page never shows a
 * credential: the value of every name that looks like one or that an operator adds
 * (`PROFILER_REDACT`), as a header, as a query or form field, and as a `name=value` pair
 * inside any text (a URL, a Referer, a Location, a message built from them).
 */
import { ownCopy } from '../../utils/own-copy.js';
import { safeDecode } from '../../utils/safe-decode.js';
import { redactJson, redactText, type SecretRule } from './redact-text.js';
import { isCardNumber } from './secret-values.js';

export const REDACTED = '[redacted]';

type HeaderValues = Record<string, string | string[]>;

/** Names that look like credentials but are the kernel's own public values. */
const NOT_SECRET = new Set(['x-debug-token', 'x-debug-token-link']);

/**
 * Tested on a name in lower case with camelCase split by `_` (`apiKey` is `api_key`):
 * whole words (`auth`, `pw`, `sig`, `sid`), words that end in a credential word
 * (`access_token`, `phpsessid`, `x-hub-signature`) and two-word keys (`api-key`).
 */
const CREDENTIAL_NAME = new RegExp(
  [
    '(?:^|[^a-z0-9])(?:auth|authn|authz|pass|pw|pwd|sig|sid|csrf|xsrf|otp|credentials?|jwt|assertion|passcode|pin|cvv2?|cvc2?|sess|[0-9]?p?sid(?:ts|cc)?|[hs]sid|s?apisid)(?=$|[^a-z0-9])',
    '(?:password|passwd|passphrase|secret|token|sessid|sessionid|session|signature|cookie|apikey|accesskey|privatekey|authori[sz]ation|authentication)(?=$|[^a-z0-9])',
    '(?:^|[^a-z0-9])(?:api|private|access|secret)[^a-z0-9]?key(?=$|[^a-z0-9])',
    // Cards: card_number, cc_number, credit-card-no, cardNumber.
    '(?:^|[^a-z0-9])(?:cc|card|credit[^a-z0-9]?card)[^a-z0-9]?(?:number|num|no)(?=$|[^a-z0-9])',
    // Session cookies by their framework's prefix: WordPress, Laravel's remember-me, Drupal's SSESS<hash>.
    '^(?:wordpress_|remember_web_)',
    '^s?sess[0-9a-f]{4,}$',
    // Cookies only a secure origin may set are a site's own credentials (__Secure-3PSID).
    '^__(?:secure|host)-',
    // An AWS load balancer's OIDC claims, signed as a JWT.
    'oidc[^a-z0-9]data$',
  ].join('|'),
);

/**
 * Names redacted only as request parameters (a query or form field, a `?name=` or `&name=`
 * pair in a URL): `code` there is OAuth's authorization code, elsewhere often an error's;
 * `key` there is an API key (`?key=` of Google's APIs), elsewhere often a cache's or a map's.
 */
const PARAMETER_SECRETS = new Set(['code', 'key']);
/** Their lengths: most names are told apart without a lower-case copy. */
const PARAMETER_SECRET_LENGTHS = new Set([...PARAMETER_SECRETS].map((name) => name.length));

/** True for a request parameter's name whose value is a secret. */
function isParameterSecretName(name: string): boolean {
  return PARAMETER_SECRET_LENGTHS.has(name.length) && PARAMETER_SECRETS.has(name.toLowerCase());
}

/**
 * True for a name that looks like a credential's (header, query or form field, JSON member):
 * password, passwd, secret, token, api key, auth, session, cookie, signature and their kin,
 * in any case, with `-`, `_`, `.` or camelCase between words.
 */
export function isCredentialName(name: string): boolean {
  const lower = name.toLowerCase();
  if (NOT_SECRET.has(lower)) return false;
  const words = /[a-z0-9][A-Z]/.test(name) ? name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase() : lower;
  return CREDENTIAL_NAME.test(words);
}

/** Verdicts remembered at most: a client sending endless new names costs no memory. */
const MAX_VERDICTS = 4096;
/** Longest name whose verdict is remembered: a longer one is judged each time, so what a verdict keeps is bounded. */
const MAX_REMEMBERED_NAME = 64;
/**
 * New names whose verdicts one text has remembered at most: the others are judged each time.
 * A text of thousands of names (a large form) would only churn the verdicts.
 */
const MAX_NEW_VERDICTS_PER_TEXT = 256;

/**
 * The redaction of one service: the credential-like names and the operator's own. Names are
 * known where a collector builds a section: it redacts headers, query and fields with
 * {@link Redactor.headers}, {@link queryParameters} and {@link Redactor.fields}. Text is
 * everywhere: the report encoder applies {@link Redactor.json} to each report's JSON as a
 * whole, so that no place a URL lands in is missed.
 */
export class Redactor {
  private readonly names: ReadonlySet<string>;
  private readonly verdicts = new Map<string, boolean>();
  readonly isSecret = (name: string, parameter = false): boolean =>
    this.redacts(name) || (parameter && isParameterSecretName(name));
  /** {@link isSecret} for the text being redacted, which remembers {@link MAX_NEW_VERDICTS_PER_TEXT} new names at most. */
  private readonly isSecretInText: SecretRule = (name, parameter = false) =>
    this.judge(name, true) || (parameter && isParameterSecretName(name));
  /** New verdicts the text being redacted may still remember. */
  private newInText = 0;

  /** `extraNames`: names redacted besides the credential-like ones, compared without case. */
  constructor(extraNames: readonly string[] = []) {
    this.names = new Set(extraNames.map((name) => name.toLowerCase()));
  }

  /** True when values under `name` (a header, a query or form field) are never stored. */
  redacts(name: string): boolean {
    return this.judge(name, false);
  }

  private judge(name: string, inText: boolean): boolean {
    let verdict = this.verdicts.get(name);
    if (verdict === undefined) {
      verdict = this.names.has(name.toLowerCase()) || isCredentialName(name);
      if (name.length > MAX_REMEMBERED_NAME || (inText && this.newInText-- <= 0)) return verdict;
      if (this.verdicts.size >= MAX_VERDICTS) this.verdicts.clear();
      // A name cut from a report's JSON would keep the whole JSON alive.
      this.verdicts.set(ownCopy(name), verdict);
    }
    return verdict;
  }

  /** Header values by lower-case name, secrets replaced (secrets inside the others' text are left to {@link json}). */
  headers(headers: Record<string, string | number | string[] | undefined>): HeaderValues {
    const out: HeaderValues = {};
    for (const name in headers) {
      // Own names only, as Object.entries gave them, without its array per header.
      if (!Object.hasOwn(headers, name)) continue;
      const value = headers[name];
      if (value === undefined) continue;
      const lower = name.toLowerCase();
      out[lower] = this.redacts(lower) ? REDACTED : Array.isArray(value) ? value : String(value);
    }
    return out;
  }

  /** Text (a URL, a header value, a message) with the values of secret pairs and userinfo passwords replaced. */
  text(text: string): string {
    this.newInText = MAX_NEW_VERDICTS_PER_TEXT;
    return redactText(text, this.isSecretInText, REDACTED);
  }

  /** A URL or query string with the values of secret parameters replaced. */
  url(url: string): string {
    return this.text(url);
  }

  /**
   * A structure (a body, a log line's context, a console argument) with the value of each
   * secret name replaced, whatever it holds, and numbers that are card numbers; levels
   * past {@link MAX_DEPTH} and entries past {@link MAX_ENTRIES} are left out, never kept
   * unredacted. Returns `value` itself when nothing is replaced. `parameters`: its names
   * are request parameters' (a form), so `code` is a secret too.
   */
  fields<T>(value: T, parameters = false): T {
    const isSecret = parameters ? (name: string) => this.isSecret(name, true) : this.isSecret;
    return redactStructure(value, isSecret, 0, { left: MAX_ENTRIES }, new Set()) as T;
  }

  /** JSON text with every secret inside its strings replaced: a whole report in one pass. */
  json(json: string): string {
    this.newInText = MAX_NEW_VERDICTS_PER_TEXT;
    return redactJson(json, this.isSecretInText, REDACTED);
  }
}

/** Levels of nesting a report keeps of a structure, bodies included: deeper levels are left out. */
export const MAX_DEPTH = 32;
export const DEEPER_LEFT_OUT = '…[deeper levels left out]';
/** Entries (members and items, all levels together) {@link Redactor.fields} looks at in one structure. */
const MAX_ENTRIES = 2000;

function redactStructure(
  value: unknown,
  isSecret: (name: string) => boolean,
  depth: number,
  budget: { left: number },
  ancestors: Set<object>,
): unknown {
  if (typeof value === 'number') return isCardNumber(value) ? REDACTED : value;
  if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) return value;
  if (ancestors.has(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return DEEPER_LEFT_OUT;
  if (budget.left <= 0) return '…[more entries left out]';
  ancestors.add(value);
  try {
    const inner = (item: unknown) => redactStructure(item, isSecret, depth + 1, budget, ancestors);
    if (Array.isArray(value)) {
      const kept = Math.min(value.length, budget.left);
      budget.left -= kept;
      const items = value.slice(0, kept).map(inner);
      if (kept < value.length) return [...items, `…[${value.length - kept} more entries]`];
      return items.some((item, i) => item !== value[i]) ? items : value;
    }
    if (value instanceof Map) {
      if (value.size > budget.left) return `…[a Map of ${value.size} entries left out]`;
      budget.left -= value.size;
      let changed = false;
      const entries = [...value].map(([key, item]) => {
        const redacted = typeof key === 'string' && isSecret(key) ? REDACTED : inner(item);
        changed ||= redacted !== item;
        return [key, redacted] as const;
      });
      return changed ? new Map(entries) : value;
    }
    return redactMembers(value, isSecret, inner, budget);
  } finally {
    ancestors.delete(value);
  }
}

/** An object's own enumerable members redacted; accessors are left as they are, never called. */
function redactMembers(
  value: object,
  isSecret: (name: string) => boolean,
  inner: (item: unknown) => unknown,
  budget: { left: number },
): object {
  const names = Object.keys(value);
  const kept = Math.min(names.length, budget.left);
  budget.left -= kept;
  let out: object | undefined;
  if (kept < names.length) {
    // Past the budget: the members left are said, not kept, nor copied to be deleted.
    out = copyOf(value, names.slice(0, kept));
    Object.defineProperty(out, '…', {
      value: `[${names.length - kept} more entries]`,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  for (const name of names.slice(0, kept)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, name);
    if (descriptor === undefined || !('value' in descriptor)) continue;
    const member: unknown = descriptor.value;
    const redacted = isSecret(name) ? REDACTED : inner(member);
    if (redacted === member) continue;
    // A copy of the same kind: a class's instance is still printed under its name.
    out ??= copyOf(value);
    // Defined, not assigned: a member named `__proto__` is a member like any other.
    Object.defineProperty(out, name, { value: redacted, enumerable: true, writable: true, configurable: true });
  }
  return out ?? value;
}

/** The parameters of a query string (without its `?`), decoded, with redacted values replaced. */
export function queryParameters(query: string, redactor: Redactor): Array<{ name: string; value: string }> {
  if (query === '') return [];
  return query
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = safeDecode(eq === -1 ? pair : pair.slice(0, eq));
      const value = eq === -1 ? '' : safeDecode(pair.slice(eq + 1));
      return { name, value: redactor.isSecret(name, true) ? REDACTED : value };
    });
}

/**
 * A copy of `value` with the same prototype and members, each of them redefinable (`value` may be
 * frozen); with `names`, of those members and the symbol-keyed ones only.
 */
function copyOf(value: object, names?: readonly string[]): object {
  const out = Object.create(Object.getPrototypeOf(value) as object | null) as object;
  for (const key of names ? [...names, ...Object.getOwnPropertySymbols(value)] : Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor) Object.defineProperty(out, key, { ...descriptor, configurable: true });
  }
  return out;
}
