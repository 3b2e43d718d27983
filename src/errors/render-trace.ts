/**
 * The HTML of a stack trace and of an error's causes and members, shared by the debug page
 * and the profiler's exception panel. The application's frames stay in view; each run of the
 * kernel's, dependencies' and Node's frames folds into one `<details>`, opened by one click
 * without any script (the pages allow none).
 */
import type { FrameOrigin } from '../debug/stack-trace.js';
import { MAX_CHAIN_DEPTH, MAX_RELATED_ERRORS } from './error-chain.js';
import { html, raw, type SafeHtml } from '../utils/html.js';
import type { RelatedErrorsView, RelatedErrorView, TraceLine } from './trace-lines.js';

/** A frame as stored by older reports too, which had no origin or link. */
type ShownFrame = Pick<TraceLine, 'function' | 'file' | 'line' | 'excerpt'> &
  Partial<Pick<TraceLine, 'origin' | 'own' | 'link'>>;

const FOLDED_LABELS: Record<Exclude<FrameOrigin, 'app'>, (count: number) => string> = {
  kernel: (count) => `${count} vigil frame${count === 1 ? '' : 's'}`,
  vendor: (count) => `${count} node_modules frame${count === 1 ? '' : 's'}`,
  external: (count) => `${count} frame${count === 1 ? '' : 's'} outside the project`,
};

const originOf = (frame: ShownFrame): FrameOrigin => frame.origin ?? (frame.own ? 'app' : 'vendor');

/** A file and line, as a link to the editor when there is one. */
export function fileLine(file: string, line: number | null, link: string | null | undefined): SafeHtml {
  const where = line === null ? file : `${file}:${line}`;
  return link ? html`<a class="file" href="${link}">${where}</a>` : html`<span class="file">${where}</span>`;
}

function renderFrame(frame: ShownFrame, open: boolean): SafeHtml {
  const lines = frame.excerpt?.map(
    (line) => html`<span class="${line.number === frame.line ? 'hl' : ''}"><i>${line.number}</i>${line.text}</span>`,
  );
  return html`<li class="${originOf(frame)}"><details${raw(open ? ' open' : '')}><summary><code>${frame.function}</code> ${fileLine(frame.file, frame.line, frame.link)}</summary>${
    lines ? html`<pre><code>${lines}</code></pre>` : ''
  }</details></li>`;
}

function renderFold(frames: ShownFrame[]): SafeHtml {
  const counts = new Map<Exclude<FrameOrigin, 'app'>, number>();
  for (const frame of frames) {
    const origin = originOf(frame) as Exclude<FrameOrigin, 'app'>;
    counts.set(origin, (counts.get(origin) ?? 0) + 1);
  }
  const label = [...counts].map(([origin, count]) => FOLDED_LABELS[origin](count)).join(', ');
  return html`<li class="folded"><details><summary>${label}</summary><ol class="trace">${frames.map((frame) => renderFrame(frame, false))}</ol></details></li>`;
}

/** The frames, innermost first: the first `openFrames` of the application's open with their source. */
export function renderTrace(frames: readonly ShownFrame[], openFrames: number): SafeHtml {
  const items: SafeHtml[] = [];
  let fold: ShownFrame[] = [];
  let opened = 0;
  for (const frame of frames) {
    if (originOf(frame) !== 'app') {
      fold.push(frame);
      continue;
    }
    if (fold.length > 0) items.push(renderFold(fold));
    fold = [];
    items.push(renderFrame(frame, opened++ < openFrames));
  }
  if (fold.length > 0) items.push(renderFold(fold));
  return html`<ol class="trace">${items}</ol>`;
}

const REPEATED = raw('<p class="muted">Shown above already: not followed again.</p>');
const TRUNCATED = raw(
  `<p class="muted">vigil follows causes ${MAX_CHAIN_DEPTH} levels deep and ${MAX_RELATED_ERRORS} related errors at most: the rest is not shown.</p>`,
);

/** The members of an error (numbered, nested one level deeper) and then its chain of causes. */
export function renderRelated(related: RelatedErrorsView, level: number): SafeHtml {
  const members = related.errors ?? [];
  const total = members.length + (related.errorsOmitted ?? 0);
  const omitted = related.errorsOmitted
    ? html`<p class="muted">${related.errorsOmitted} more error${related.errorsOmitted === 1 ? '' : 's'} not shown.</p>`
    : '';
  return html`${members.map((member, index) => renderRelatedError(member, `Error ${index + 1} of ${total}`, level))}${omitted}${
    related.cause ? renderRelatedError(related.cause, 'Caused by', level) : ''
  }${related.truncated ? TRUNCATED : ''}`;
}

function renderRelatedError(error: RelatedErrorView, heading: string, level: number): SafeHtml {
  const rank = Math.min(level, 6);
  const site = error.file ? html`<p class="site">Raised at ${fileLine(error.file, error.line, error.link)}</p>` : '';
  const common =
    error.framesInCommon > 0
      ? html`<p class="common">${error.framesInCommon} more frame${error.framesInCommon === 1 ? '' : 's'}, in common with the error above</p>`
      : '';
  const body = error.repeated
    ? REPEATED
    : html`${error.trace.length > 0 ? renderTrace(error.trace, 1) : ''}${common}${renderRelated({ errors: error.errors, errorsOmitted: error.errorsOmitted, truncated: error.truncated }, level + 1)}`;
  // A cause follows its error as a sibling: a long chain reads down the page, not ever deeper.
  return html`<section class="related">${raw(`<h${rank}>`)}${heading} <code>${error.class}</code>${raw(`</h${rank}>`)}<p class="message">${error.message}</p>${site}${body}</section>${
    error.cause && !error.repeated ? renderRelatedError(error.cause, 'Caused by', level) : ''
  }`;
}
