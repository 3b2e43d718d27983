/**
 * Bounds what one report stores, whatever a client sends or an application logs: every string is cut
 * at {@link MAX_STRING_LENGTH} characters, with a marker saying how many were cut, and a report's
 * sections take at most {@link MAX_SECTIONS_BYTES} of JSON. Secrets are redacted in the same pass
 * (`Redactor.json`), before anything is cut.
 */
import type { Redactor } from '../redaction/redact.js';

export const MAX_STRING_LENGTH = 8192;
export const MAX_SECTIONS_BYTES = 64 * 1024;

/** Shorter string limits tried in turn on the largest sections of a report over its bound. */
const SHRINK_STEPS = [512, 64] as const;

/** `text` cut at `max` characters, with `…[cut 52,001 characters]` after it; a surrogate pair is never split. */
export function cutString(text: string, max = MAX_STRING_LENGTH): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end) + cutMarker(text.length - end);
}

/** What stands where text was cut: `…[cut 52,001 characters]`. */
export function cutMarker(count: number, unit: 'characters' | 'bytes' = 'characters'): string {
  return `…[cut ${thousands(count)} ${unit}]`;
}

function thousands(count: number): string {
  return String(count).replace(/\B(?=(\d{3})+$)/g, ',');
}

/**
 * `value` as JSON, every string cut at `maxString`, secrets redacted first when a
 * `redactor` is given. Throws what `JSON.stringify` throws (a BigInt, a cycle).
 */
export function boundedJson(value: unknown, redactor: Redactor | undefined, maxString = MAX_STRING_LENGTH): string {
  const plain = JSON.stringify(value) ?? 'null';
  const json = redactor ? redactor.json(plain) : plain;
  // No string in it can be longer than the whole: the common report needs no walk.
  if (json.length <= maxString) return json;
  const cut = (_key: string, member: unknown): unknown =>
    typeof member === 'string' ? cutString(redactor ? redactor.text(member) : member, maxString) : member;
  return JSON.stringify(value, cut) ?? 'null';
}

interface Part {
  name: string;
  section: unknown;
  json: string;
  /** Bytes of `json` in UTF-8, once counted. */
  bytes: number | undefined;
  /** How far it was shrunk: 0 as encoded, then each of SHRINK_STEPS, then left out. */
  step: number;
  originalBytes: number | undefined;
}

/**
 * The sections as one JSON object of at most MAX_SECTIONS_BYTES. A section that cannot
 * be serialized becomes `{ collectorError }` (it costs its own section only). While the
 * whole is over the bound, the largest section is encoded again with shorter strings,
 * and at last replaced by a `{ collectorError }` saying how large it was.
 */
export function boundedSections(sections: Record<string, unknown>, redactor: Redactor): string {
  let redacted: Record<string, unknown> | undefined;
  try {
    const whole = redactor.json(JSON.stringify(sections));
    // The common report: short enough that no string in it needs cutting, nor the whole.
    if (whole.length <= MAX_STRING_LENGTH) return whole;
    // Every string is redacted now: the sections are cut, and shrunk, from this copy, never redacted again.
    redacted = JSON.parse(whole) as Record<string, unknown>;
  } catch {
    // A section that cannot be serialized: each is redacted and encoded on its own below.
  }
  const sectionRedactor = redacted === undefined ? redactor : undefined;
  const parts: Part[] = [];
  for (const [name, section] of Object.entries(redacted ?? sections)) {
    if (section === undefined) continue;
    parts.push({
      name,
      section,
      json: sectionJson(section, sectionRedactor, MAX_STRING_LENGTH),
      bytes: undefined,
      step: 0,
      originalBytes: undefined,
    });
  }
  while (objectBytes(parts) > MAX_SECTIONS_BYTES) {
    const largest = parts
      .filter((part) => part.step <= SHRINK_STEPS.length)
      .sort((a, b) => partBytes(b) - partBytes(a))[0];
    if (largest === undefined) return '{}'; // thousands of sections, each already a note
    largest.originalBytes ??= partBytes(largest);
    const limit = SHRINK_STEPS[largest.step];
    largest.json =
      limit === undefined
        ? JSON.stringify({
            collectorError: `the section was left out: its JSON took ${thousands(largest.originalBytes)} bytes, and a report keeps at most ${thousands(MAX_SECTIONS_BYTES)}`,
          })
        : sectionJson(largest.section, sectionRedactor, limit);
    largest.bytes = undefined;
    largest.step++;
  }
  return `{${parts.map((part) => `${JSON.stringify(part.name)}:${part.json}`).join(',')}}`;
}

function sectionJson(section: unknown, redactor: Redactor | undefined, maxString: number): string {
  try {
    return boundedJson(section, redactor, maxString);
  } catch (error) {
    return JSON.stringify({ collectorError: `the section cannot be serialized: ${(error as Error).message}` });
  }
}

function partBytes(part: Part): number {
  part.bytes ??= Buffer.byteLength(part.json);
  return part.bytes;
}

/** The size of the object the parts make, in UTF-8; counted exactly only when it may be over the bound. */
function objectBytes(parts: Part[]): number {
  let chars = 2 + Math.max(0, parts.length - 1);
  for (const part of parts) chars += part.name.length + 3 + part.json.length;
  // A UTF-16 unit takes at most 3 bytes in UTF-8.
  if (chars * 3 <= MAX_SECTIONS_BYTES) return chars;
  let bytes = 2 + Math.max(0, parts.length - 1);
  for (const part of parts) bytes += Buffer.byteLength(JSON.stringify(part.name)) + 1 + partBytes(part);
  return bytes;
}

/**
 * A stack trace as JSON of at most MAX_SECTIONS_BYTES: strings cut, then shorter, then
 * the outermost frames left out. Not redacted: it holds the project's own source.
 */
export function boundedTraceJson(trace: unknown): string {
  let json = boundedJson(trace, undefined);
  for (const limit of SHRINK_STEPS) {
    if (Buffer.byteLength(json) <= MAX_SECTIONS_BYTES) return json;
    json = boundedJson(trace, undefined, limit);
  }
  let frames = Array.isArray(trace) ? trace : [];
  while (Buffer.byteLength(json) > MAX_SECTIONS_BYTES && frames.length > 0) {
    frames = frames.slice(0, Math.floor(frames.length / 2));
    json = boundedJson(frames, undefined, SHRINK_STEPS[SHRINK_STEPS.length - 1]);
  }
  return Buffer.byteLength(json) <= MAX_SECTIONS_BYTES ? json : '[]';
}
