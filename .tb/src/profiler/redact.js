import { redactJson, redactText } from "./redact-text.js";
const REDACTED = "[redacted]";
const NOT_SECRET = /* @__PURE__ */ new Set(["x-debug-token", "x-debug-token-link"]);
const CREDENTIAL_NAME = new RegExp(
  [
    "(?:^|[^a-z0-9])(?:auth|authn|authz|pass|pw|pwd|sig|sid|csrf|xsrf|otp|credentials?)(?=$|[^a-z0-9])",
    "(?:password|passwd|passphrase|secret|token|sessid|sessionid|session|signature|cookie|apikey|privatekey|authori[sz]ation|authentication)(?=$|[^a-z0-9])",
    "(?:^|[^a-z0-9])(?:api|private)[^a-z0-9]?key(?=$|[^a-z0-9])"
  ].join("|")
);
function isCredentialName(name) {
  const lower = name.toLowerCase();
  if (NOT_SECRET.has(lower)) return false;
  const words = /[a-z0-9][A-Z]/.test(name) ? name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase() : lower;
  return CREDENTIAL_NAME.test(words);
}
const MAX_VERDICTS = 4096;
class Redactor {
  names;
  verdicts = /* @__PURE__ */ new Map();
  isSecret = (name) => this.redacts(name);
  /** `extraNames`: names redacted besides the credential-like ones, compared without case. */
  constructor(extraNames = []) {
    this.names = new Set(extraNames.map((name) => name.toLowerCase()));
  }
  /** True when values under `name` (a header, a query or form field) are never stored. */
  redacts(name) {
    let verdict = this.verdicts.get(name);
    if (verdict === void 0) {
      verdict = this.names.has(name.toLowerCase()) || isCredentialName(name);
      if (this.verdicts.size >= MAX_VERDICTS) this.verdicts.clear();
      this.verdicts.set(name, verdict);
    }
    return verdict;
  }
  /** Header values by lower-case name, secrets replaced (secrets inside the others' text are left to {@link json}). */
  headers(headers) {
    const out = {};
    for (const [name, value] of Object.entries(headers)) {
      if (value === void 0) continue;
      const lower = name.toLowerCase();
      out[lower] = this.redacts(lower) ? REDACTED : Array.isArray(value) ? value : String(value);
    }
    return out;
  }
  /** Text (a URL, a header value, a message) with the values of secret pairs and userinfo passwords replaced. */
  text(text) {
    return redactText(text, this.isSecret, REDACTED);
  }
  /** A URL or query string with the values of secret parameters replaced. */
  url(url) {
    return this.text(url);
  }
  /**
   * Fields of plain data (a form body, a log line's context), at any depth: the value of
   * a secret name is replaced, whatever it holds. Returns `value` itself when nothing is.
   */
  fields(value, depth = 0) {
    if (typeof value !== "object" || value === null || depth > MAX_FIELD_DEPTH) return value;
    if (Array.isArray(value)) {
      const items = value.map((item) => this.fields(item, depth + 1));
      return items.some((item, i) => item !== value[i]) ? items : value;
    }
    let out;
    for (const [name, field] of Object.entries(value)) {
      const redacted = this.redacts(name) ? REDACTED : this.fields(field, depth + 1);
      if (redacted !== field) (out ??= { ...value })[name] = redacted;
    }
    return out ?? value;
  }
  /** JSON text with every secret inside its strings replaced: a whole report in one pass. */
  json(json) {
    return redactJson(json, this.isSecret, REDACTED);
  }
}
const MAX_FIELD_DEPTH = 16;
function queryParameters(query, redactor) {
  if (query === "") return [];
  return query.split("&").filter(Boolean).map((pair) => {
    const eq = pair.indexOf("=");
    const name = safeDecode(eq === -1 ? pair : pair.slice(0, eq));
    const value = eq === -1 ? "" : safeDecode(pair.slice(eq + 1));
    return { name, value: redactor.redacts(name) ? REDACTED : value };
  });
}
function safeDecode(text) {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return text;
  }
}
export {
  REDACTED,
  Redactor,
  isCredentialName,
  queryParameters
};
//# sourceMappingURL=redact.js.map
