/**
 * Frames made ready to show, on the debug page and in the stored report alike: whose code
 * each runs, a source excerpt of the project's own frames, and an editor link. A throw path
 * has one frames array, so its lines are built once per editor format and shared.
 */
import { frameOrigin, isProjectFrame, type FrameOrigin, type StackFrame } from '../debug/stack-trace.js';
import { editorLink, type EditorLinkFormat } from './editor-link.js';
import type { ChainedError, RelatedErrors } from './error-chain.js';
import { sourceExcerpt, type SourceLine } from './source-excerpt.js';
import { ThrowView } from '../debug/throw-views.js';

export interface TraceLine extends StackFrame {
  origin: FrameOrigin;
  /** A frame of this project's source, the kernel's included. */
  own: boolean;
  excerpt: SourceLine[] | null;
  /** The editor link of a project frame when VIGIL_IDE is set. */
  link: string | null;
}

/** Which of the project's frames get a source excerpt: all of them, or the first only (a related error's). */
type Excerpts = 'all' | 'first';

interface LinkedLines {
  editor: EditorLinkFormat | undefined;
  lines: readonly TraceLine[];
}

const views: Record<Excerpts, ThrowView<readonly StackFrame[], LinkedLines>> = {
  all: new ThrowView(),
  first: new ThrowView(),
};

export function traceLines(
  frames: readonly StackFrame[],
  editor: EditorLinkFormat | undefined,
  excerpts: Excerpts = 'all',
): readonly TraceLine[] {
  const view = views[excerpts];
  const kept = view.get(frames);
  if (kept !== undefined && kept.editor === editor) return kept.lines;
  return view.set(frames, { editor, lines: linesOf(frames, editor, excerpts) }).lines;
}

function linesOf(
  frames: readonly StackFrame[],
  editor: EditorLinkFormat | undefined,
  excerpts: Excerpts,
): readonly TraceLine[] {
  let excerpted = false;
  const lines = frames.map((frame): TraceLine => {
    const own = isProjectFrame(frame);
    const excerpt =
      own && !(excerpts === 'first' && excerpted) ? (sourceExcerpt(frame.file, frame.line) ?? null) : null;
    if (own) excerpted = true;
    return {
      ...frame,
      origin: frameOrigin(frame),
      own,
      excerpt,
      link: own ? editorLink(editor, frame.file, frame.line) : null,
    };
  });
  return lines;
}

/** The editor link of a raise site, for a frame of the project only. */
export function siteLink(site: StackFrame | undefined, editor: EditorLinkFormat | undefined): string | null {
  return site && isProjectFrame(site) ? editorLink(editor, site.file, site.line) : null;
}

/** A cause or member as the renderers and the report show it (the names of problem details). */
export interface RelatedErrorView extends RelatedErrorsView {
  class: string;
  message: string;
  file: string | null;
  line: number | null;
  link: string | null;
  trace: readonly TraceLine[];
  framesInCommon: number;
  repeated?: true | undefined;
}

export interface RelatedErrorsView {
  cause?: RelatedErrorView | undefined;
  errors?: RelatedErrorView[] | undefined;
  errorsOmitted?: number | undefined;
  truncated?: true | undefined;
}

export function relatedView(related: RelatedErrors, editor: EditorLinkFormat | undefined): RelatedErrorsView {
  const view: RelatedErrorsView = {};
  if (related.cause) view.cause = errorView(related.cause, editor);
  if (related.members) view.errors = related.members.map((member) => errorView(member, editor));
  if (related.membersOmitted) view.errorsOmitted = related.membersOmitted;
  if (related.truncated) view.truncated = true;
  return view;
}

function errorView(error: ChainedError, editor: EditorLinkFormat | undefined): RelatedErrorView {
  return {
    class: error.className,
    message: error.message,
    file: error.site?.file ?? null,
    line: error.site?.line ?? null,
    link: siteLink(error.site, editor),
    trace: traceLines(error.frames, editor, 'first'),
    framesInCommon: error.framesInCommon,
    ...(error.repeated ? { repeated: true as const } : {}),
    ...relatedView(error, editor),
  };
}
