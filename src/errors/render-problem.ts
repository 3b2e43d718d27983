/**
 * RFC 9457 problem details, as JSON and as XML (root `<problem xmlns="urn:ietf:rfc:7807">`).
 * Debug mode adds `exception` {class, message, file, line, trace[]} and `debugToken`; an
 * error's causes nest under `cause` and an AggregateError's members under `errors`, each
 * {class, message, file, line}; what would fix the request under `nearRoutes` and
 * `violations`, and what decided the answer under `raisedBy`.
 */
import type { ChainedError, RelatedErrors } from './error-chain.js';
import type { ErrorHints } from './error-hints.js';
import type { ErrorView } from './error-view.js';

/** A cause or member: where it was raised, and what it leads to in turn. */
interface RelatedProblem extends RelatedMembers {
  class: string;
  message: string;
  file: string | null;
  line: number | null;
  repeated?: true;
}

interface RelatedMembers {
  cause?: RelatedProblem;
  errors?: RelatedProblem[];
  errorsOmitted?: number;
  truncated?: true;
}

interface ProblemDetails {
  type: 'about:blank';
  title: string;
  status: number;
  detail: string;
  exception?: {
    class: string;
    message: string;
    file: string | null;
    line: number | null;
    trace: Array<{ function: string; file: string; line: number }>;
    raisedBy?: string;
  } & RelatedMembers &
    ErrorHints;
  debugToken?: string;
}

function problemDetails(view: ErrorView, debug: boolean): ProblemDetails {
  const problem: ProblemDetails = {
    type: 'about:blank',
    title: view.title,
    status: view.status,
    detail: debug ? view.message : view.title,
  };
  if (debug) {
    const site = view.site;
    problem.exception = {
      class: view.className,
      message: view.message,
      file: site?.file ?? null,
      line: site?.line ?? null,
      trace: view.frames.map((frame) => ({ function: frame.function, file: frame.file, line: frame.line })),
      ...(view.raisedBy ? { raisedBy: view.raisedBy } : {}),
      ...(view.hints?.nearRoutes?.length ? { nearRoutes: view.hints.nearRoutes } : {}),
      ...(view.hints?.violations?.length ? { violations: view.hints.violations } : {}),
      ...(view.related ? relatedMembers(view.related) : {}),
    };
    if (view.token) problem.debugToken = view.token;
  }
  return problem;
}

function relatedMembers(related: RelatedErrors): RelatedMembers {
  const members: RelatedMembers = {};
  if (related.cause) members.cause = relatedProblem(related.cause);
  if (related.members) members.errors = related.members.map(relatedProblem);
  if (related.membersOmitted) members.errorsOmitted = related.membersOmitted;
  if (related.truncated) members.truncated = true;
  return members;
}

function relatedProblem(error: ChainedError): RelatedProblem {
  return {
    class: error.className,
    message: error.message,
    file: error.site?.file ?? null,
    line: error.site?.line ?? null,
    ...relatedMembers(error),
    ...(error.repeated ? { repeated: true as const } : {}),
  };
}

export function renderProblemJson(view: ErrorView, debug: boolean): string {
  return JSON.stringify(problemDetails(view, debug));
}

const XML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Escapes markup and drops the control characters XML 1.0 cannot carry at all. */
export function escapeXml(value: string): string {
  return value
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '\uFFFD')
    .replace(/[&<>"']/g, (char) => XML_ENTITIES[char]!);
}

/** The element of each item of a list, by the list's name. */
const ITEM_NAMES: Record<string, string> = {
  trace: 'frame',
  errors: 'error',
  nearRoutes: 'route',
  violations: 'violation',
  methods: 'method',
};

function element(name: string, value: unknown): string {
  if (value === null || value === undefined) return `<${name}/>`;
  if (Array.isArray(value))
    return `<${name}>${value.map((item) => element(ITEM_NAMES[name] ?? 'item', item)).join('')}</${name}>`;
  if (typeof value === 'object') {
    return `<${name}>${Object.entries(value)
      .map(([key, item]) => element(key, item))
      .join('')}</${name}>`;
  }
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}

export function renderProblemXml(view: ErrorView, debug: boolean): string {
  const members = Object.entries(problemDetails(view, debug))
    .map(([key, value]) => element(key, value))
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<problem xmlns="urn:ietf:rfc:7807">${members}</problem>\n`;
}
