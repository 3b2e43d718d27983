/**
 * The request's parsed body and uploaded files as a report keeps them: a copy of the body
 * bounded in depth, entries and string length (so that one large body cannot crowd the
 * rest of the request section out of its report), with credential-like members redacted
 * as the rest of the report is, in text that reads as JSON too (sent as `text/plain`). Files are listed by name, never by path or contents.
 */
import type { UploadedFile } from '../../routing/routes.js';
import { DEEPER_LEFT_OUT, MAX_DEPTH, type Redactor } from '../redaction/redact.js';
import { cutString, MAX_STRING_LENGTH } from '../model/report-bounds.js';
import { looksLikeJson, redactJsonMembers } from './response-preview.js';

/** Entries (members and items, all levels together) kept of one body. */
export const MAX_BODY_ENTRIES = 500;

export interface BodyView {
  /** How it was parsed: `json`, `form`, `multipart` (its text fields) or `text`. */
  type: 'json' | 'form' | 'multipart' | 'text';
  value: unknown;
}

export interface FileView {
  field: string;
  filename: string;
  type: string;
  size: number;
}

/** The parsed body as the report keeps it; null when there is none, or it is bytes or a stream. */
export function bodyView(body: unknown, contentType: string | undefined, redactor: Redactor): BodyView | null {
  if (body === undefined || body === null || Buffer.isBuffer(body) || ArrayBuffer.isView(body) || isStream(body))
    return null;
  const type = bodyType(contentType ?? '', body);
  if (typeof body === 'string') return { type, value: redactedText(body, redactor) };
  const budget = { left: MAX_BODY_ENTRIES };
  return { type, value: redactor.fields(bounded(body, 0, budget), type === 'form' || type === 'multipart') };
}

export function uploadedFilesView(files: readonly UploadedFile[] | null | undefined): FileView[] {
  return (files ?? []).map(({ field, filename, mimetype, size }) => ({ field, filename, type: mimetype, size }));
}

function bodyType(contentType: string, body: unknown): BodyView['type'] {
  const media = contentType.split(';', 1)[0]!.trim().toLowerCase();
  if (media === 'multipart/form-data') return 'multipart';
  if (media === 'application/x-www-form-urlencoded') return 'form';
  if (media === 'application/json' || media.endsWith('+json')) return 'json';
  return typeof body === 'string' ? 'text' : 'json';
}

/** A text body as kept: cut, and redacted as JSON when it reads as JSON, whatever its type said. */
function redactedText(body: string, redactor: Redactor): string {
  const kept = cutString(body);
  if (!looksLikeJson(body)) return kept;
  const head = kept.length === body.length ? body : body.slice(0, MAX_STRING_LENGTH);
  return redactJsonMembers(head, redactor.isSecret) + kept.slice(head.length);
}

function isStream(value: unknown): boolean {
  return typeof value === 'object' && value !== null && typeof (value as { pipe?: unknown }).pipe === 'function';
}

/** A plain copy of `value` within the budget: what is left out is said in its place. */
function bounded(value: unknown, depth: number, budget: { left: number }): unknown {
  if (typeof value === 'string') return cutString(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return DEEPER_LEFT_OUT;
  if (Array.isArray(value)) {
    const kept = Math.min(value.length, budget.left);
    budget.left -= kept;
    const items = value.slice(0, kept).map((item: unknown) => bounded(item, depth + 1, budget));
    if (kept < value.length) items.push(`…[${value.length - kept} more entries]`);
    return items;
  }
  const out: Record<string, unknown> = {};
  // The names only: a form of thousands of fields has the values of the kept ones read.
  const names = Object.keys(value);
  const kept = Math.min(names.length, budget.left);
  budget.left -= kept;
  // Defined, not assigned: a form field named `__proto__` is a field like any other.
  for (const name of names.slice(0, kept))
    Object.defineProperty(out, name, {
      value: bounded((value as Record<string, unknown>)[name], depth + 1, budget),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  if (kept < names.length) out['…'] = `[${names.length - kept} more entries]`;
  return out;
}
