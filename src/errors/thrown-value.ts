/**
 * Values thrown that are not Errors (`throw 'boom'`, `throw { code: 42 }`): described in one
 * bounded line that no getter, Proxy or custom inspect of the value can break, and wrapped
 * in a {@link ThrownValueError} raised where the handler that threw it was declared.
 */
import { inspect } from 'node:util';
import { adoptFrames, type StackFrame } from '../debug/stack-trace.js';

/** Characters of a description at most; a longer one is cut with `…`. */
export const MAX_VALUE_DESCRIPTION = 500;

interface ValueDescription {
  /** `typeof`, with `null` for null. */
  type: string;
  text: string;
}

const INSPECT_OPTIONS = {
  depth: 1,
  // Neither the value's own inspect nor its getters run: they are the application's code.
  customInspect: false,
  getters: false,
  showProxy: false,
  maxArrayLength: 10,
  maxStringLength: MAX_VALUE_DESCRIPTION,
  breakLength: Infinity,
  compact: true,
} as const;

/** Cuts `text` at `max` characters (a surrogate pair is never split), marking the cut with `…`. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = text.charCodeAt(max - 1) >= 0xd800 && text.charCodeAt(max - 1) <= 0xdbff ? max - 1 : max;
  return `${text.slice(0, end)}…`;
}

export function describeValue(value: unknown): ValueDescription {
  const type = value === null ? 'null' : typeof value;
  let text: string;
  try {
    text = typeof value === 'string' ? value : inspect(value, INSPECT_OPTIONS);
  } catch {
    text = `<a ${type} that cannot be shown>`;
  }
  return { type, text: cutText(text, MAX_VALUE_DESCRIPTION) };
}

/** `the string "boom"`, `an object { code: 42 }`, `undefined`. */
function phrase({ type, text }: ValueDescription): string {
  switch (type) {
    case 'string':
      return `the string ${JSON.stringify(text)}`;
    case 'undefined':
    case 'null':
      return text;
    case 'object':
      return `an object ${text}`;
    default:
      return `a ${type} ${text}`;
  }
}

/** `value instanceof Error`, false where asking throws (a Proxy's trap). */
export function isError(value: unknown): value is Error {
  try {
    return value instanceof Error;
  } catch {
    return false;
  }
}

/** A handler threw `value`, which is no Error: raised at `site` (its route's declaration) when known. */
export class ThrownValueError extends Error {
  constructor(
    readonly value: unknown,
    site?: StackFrame,
  ) {
    super(`Non-error thrown: ${phrase(describeValue(value))}`);
    this.name = 'ThrownValueError';
    if (site) adoptFrames(this, [site]);
    else Error.captureStackTrace(this, ThrownValueError);
  }
}
