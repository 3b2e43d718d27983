/**
 * A schema 400's details as a person fixes the request from them: where in the request
 * (`/items/0/price`), which keyword, the schema's rule (`minimum: 0`, from ajv's `params`)
 * and the value sent there, read from the request's own part without running its code.
 */
import type { SchemaViolation } from './error-hints.js';

/** What the request sent, by part (`body`, `querystring`, `params`, `headers`), and how a value is redacted before it is shown. */
export interface SentValues {
  part(context: string): unknown;
  /** The shown text of the value at `names` (the member names on its way), or a redaction mark. */
  redact(names: readonly string[], shown: string): string;
}

/** Violations shown at most: ajv stops at the first by default, `allErrors` may give hundreds. */
const MAX_VIOLATIONS = 10;
/** Names on a pointer followed at most. */
const MAX_POINTER_DEPTH = 32;
/** Characters of a rule or a value shown at most. */
const MAX_SHOWN = 200;

/** `params` members that hold a keyword's rule, by keyword (ajv's names). */
const RULE_PARAM: Record<string, string> = {
  type: 'type',
  required: 'missingProperty',
  additionalProperties: 'additionalProperty',
  enum: 'allowedValues',
  const: 'allowedValue',
  pattern: 'pattern',
  format: 'format',
  multipleOf: 'multipleOf',
};

/** The violations of Fastify's `validation` (ajv's errors) for the request part `context`. */
export function schemaViolations(
  validation: unknown,
  context: string | undefined,
  sent?: SentValues,
): SchemaViolation[] {
  if (!Array.isArray(validation)) return [];
  const part = context ?? 'body';
  const violations: SchemaViolation[] = [];
  for (const entry of validation.slice(0, MAX_VIOLATIONS)) {
    const error = plainFields(entry);
    const keyword = typeof error.keyword === 'string' ? error.keyword : 'unknown';
    const params = plainFields(error.params);
    let path = typeof error.instancePath === 'string' ? error.instancePath : '';
    // `required` and `additionalProperties` name the member inside the object the pointer reaches.
    const member =
      keyword === 'required'
        ? params.missingProperty
        : keyword === 'additionalProperties'
          ? params.additionalProperty
          : undefined;
    if (typeof member === 'string') path += `/${member.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    const violation: SchemaViolation = {
      in: part,
      path: cut(path || '/'),
      keyword,
      rule: cut(ruleOf(keyword, params)),
    };
    if (sent !== undefined && keyword !== 'required') {
      const names = pointerNames(path);
      const found = names && valueAt(sent.part(part), names);
      if (found) violation.value = sent.redact(names, cut(shownValue(found.value)));
    }
    violations.push(violation);
  }
  return violations;
}

/** `keyword: rule`, the rule from the keyword's own param, else `limit` (minimum, maxLength…), else the keyword alone. */
function ruleOf(keyword: string, params: Record<string, unknown>): string {
  const name = RULE_PARAM[keyword] ?? ('limit' in params ? 'limit' : undefined);
  if (keyword === 'additionalProperties') return 'additionalProperties: false';
  if (name === undefined || !(name in params)) return keyword;
  const rule = params[name];
  return `${keyword}: ${typeof rule === 'string' ? rule : schemaJson(rule)}`;
}

/** A rule's value (the application's schema, not the request) as JSON. */
function schemaJson(value: unknown): string {
  try {
    return String(JSON.stringify(value));
  } catch {
    return typeof value;
  }
}

/** An object's own data members, none of its getters run; anything else gives none. */
function plainFields(value: unknown): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (typeof value !== 'object' || value === null) return fields;
  for (const name of [
    'keyword',
    'instancePath',
    'params',
    'missingProperty',
    'additionalProperty',
    'limit',
    ...Object.values(RULE_PARAM),
  ]) {
    const descriptor = Object.getOwnPropertyDescriptor(value, name);
    if (descriptor !== undefined && 'value' in descriptor) fields[name] = descriptor.value;
  }
  return fields;
}

/** The member names of a JSON pointer, unescaped; undefined past {@link MAX_POINTER_DEPTH}. */
function pointerNames(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  const names = pointer.slice(1).split('/', MAX_POINTER_DEPTH + 1);
  if (names.length > MAX_POINTER_DEPTH) return undefined;
  return names.map((name) => name.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** The value under `names`, through own data members only; undefined when the way breaks. */
function valueAt(root: unknown, names: readonly string[]): { value: unknown } | undefined {
  let value = root;
  for (const name of names) {
    if (typeof value !== 'object' || value === null) return undefined;
    const descriptor = Object.getOwnPropertyDescriptor(value, name);
    if (descriptor === undefined || !('value' in descriptor)) return undefined;
    value = descriptor.value;
  }
  return value === undefined ? undefined : { value };
}

/** A value as JSON shows it, a structure by its size only (it may be large). */
function shownValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > MAX_SHOWN ? value.slice(0, MAX_SHOWN) : value);
  if (Array.isArray(value)) return `an array of ${value.length} items`;
  if (typeof value === 'object' && value !== null) return `an object of ${Object.keys(value).length} members`;
  return typeof value === 'bigint' ? `${value}` : String(JSON.stringify(value) ?? typeof value);
}

function cut(text: string): string {
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text;
}
