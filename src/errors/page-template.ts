/**
 * Debug HTML pages of one throw path as templates, so that an error raised again and again
 * at one place (the kernel's 404 and 405) costs no rendering per request: only the
 * request's own values are escaped into fixed parts.
 */
import { randomBytes } from 'node:crypto';
import type { StackFrame } from '../debug/stack-trace.js';
import { hasHints } from './error-hints.js';
import type { ErrorView } from './error-view.js';
import { escapeHtml } from '../utils/html.js';
import { hasRelated, renderDebugHtml, type DebugHtmlOptions } from './render-html.js';
import { ThrowView } from '../debug/throw-views.js';

/** The view's fields a template leaves open, in the order of their markers. */
const SLOTS = ['message', 'method', 'url', 'token', 'reportUrl'] as const;
type Slot = (typeof SLOTS)[number];

/** Values full of what escaping changes, for the check against the renderer. */
const CHECK_VALUES: Record<Slot, string> = {
  message: `No route for "<a href='x'>&amp;</a>" …`,
  method: 'GE<T>&',
  url: `https://h/"p'?<q>=&amp;`,
  token: 'a<b>"c',
  reportUrl: `https://h/_profiler/"x'&<y>`,
};

/** Kinds of page templated per throw path (a 404 and a 405 make two). */
const MAX_KINDS_PER_PATH = 8;

interface Template {
  /** Fixed parts; a slot's value goes between each two. */
  parts: readonly Buffer[];
  slots: readonly Slot[];
  /** Bytes of the fixed parts together. */
  fixedBytes: number;
}

/** A throw path's templates: none until its second page, then one per kind of page (null: cannot be templated). */
interface ThrowPathTemplates {
  seen: boolean;
  kinds: Map<string, Template | null> | null;
}

const newThrowPath = (): ThrowPathTemplates => ({ seen: false, kinds: null });

/**
 * The templates, per throw path. The page of an error raised at one place (the kernel's 404
 * and 405, whose frames are reused) differs from one request to the next only by its
 * message, request line, token and report link. Such a page is rendered once with markers
 * in those places, cut into fixed UTF-8 parts, and each later page is those parts with the
 * request's values escaped between them: no page string is built, flattened or encoded per
 * request.
 *
 * A template is checked once against the renderer: it is kept only if it gives the very
 * bytes `renderDebugHtml` gives for values full of markup.
 */
export class DebugPageTemplates {
  /** Per frames array: a template is made at the second page of a throw path, not the first. */
  private readonly byFrames = new ThrowView<readonly StackFrame[], ThrowPathTemplates>();
  private readonly marker = `v${randomBytes(6).toString('hex')}m`;

  constructor(private readonly options: DebugHtmlOptions = {}) {}

  /** The page as UTF-8, from a template when the view's throw path has one; else undefined (render it). */
  render(view: ErrorView): Buffer | undefined {
    // Hints differ from one request to the next (the routes near its path): such a page is rendered whole.
    if (view.frames.length === 0 || hasHints(view.hints) || (view.related !== undefined && hasRelated(view.related)))
      return undefined;
    const path = this.byFrames.of(view.frames, newThrowPath);
    if (!path.seen) {
      path.seen = true;
      return undefined;
    }
    const kinds = (path.kinds ??= new Map());
    const kind = `${view.status} ${view.title} ${view.className} ${view.code} ${view.raisedBy ?? ''} ${view.token === undefined ? 0 : 1}${view.reportUrl === undefined ? 0 : 1}`;
    let template = kinds.get(kind);
    if (template === undefined) {
      // A code made from request data would make new kinds without end: the first few are templated.
      if (kinds.size >= MAX_KINDS_PER_PATH) return undefined;
      template = this.build(view);
      kinds.set(kind, template);
    }
    return template ? fill(template, view) : undefined;
  }

  private build(view: ErrorView): Template | null {
    const markers = SLOTS.map((_slot, index) => `${this.marker}${index}x`);
    const marked = renderDebugHtml(
      withSlots(view, (slot) => markers[SLOTS.indexOf(slot)]!),
      this.options,
    );
    const parts: Buffer[] = [];
    const slots: Slot[] = [];
    const pattern = new RegExp(`${this.marker}(\\d)x`, 'g');
    let last = 0;
    for (const match of marked.matchAll(pattern)) {
      parts.push(Buffer.from(marked.slice(last, match.index)));
      slots.push(SLOTS[Number(match[1])]!);
      last = match.index + match[0].length;
    }
    parts.push(Buffer.from(marked.slice(last)));
    const template = { parts, slots, fixedBytes: parts.reduce((sum, part) => sum + part.length, 0) };
    const checkView = withSlots(view, (slot) => CHECK_VALUES[slot]);
    return fill(template, checkView).equals(Buffer.from(renderDebugHtml(checkView, this.options))) ? template : null;
  }
}

function withSlots(view: ErrorView, value: (slot: Slot) => string): ErrorView {
  const open: Partial<ErrorView> = {};
  for (const slot of SLOTS) if (view[slot] !== undefined) open[slot] = value(slot);
  return { ...view, ...open };
}

/** The page in one buffer: the fixed parts copied, the values escaped and written between them. */
function fill({ parts, slots, fixedBytes }: Template, view: ErrorView): Buffer {
  const values = slots.map((slot) => escapeHtml(view[slot] ?? ''));
  let length = fixedBytes;
  for (const value of values) length += Buffer.byteLength(value);
  const page = Buffer.allocUnsafe(length);
  let at = parts[0]!.copy(page, 0);
  for (let i = 0; i < values.length; i++) {
    at += page.write(values[i]!, at);
    at += parts[i + 1]!.copy(page, at);
  }
  return page;
}
