/**
 * RFC 9457 problem details, as JSON and as XML (root `<problem xmlns="urn:ietf:rfc:7807">`).
 * Debug mode adds `exception` {class, message, file, line, trace[]} and `debugToken`.
 */
import type { ErrorView } from './error-view.js';

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
  };
  debugToken?: string;
}

function problemDetails(view: ErrorView, debug: boolean): ProblemDetails {
  const problem: ProblemDetails = { type: 'about:blank', title: view.title, status: view.status, detail: debug ? view.message : view.title };
  if (debug) {
    const site = view.site;
    problem.exception = {
      class: view.className,
      message: view.message,
      file: site?.file ?? null,
      line: site?.line ?? null,
      trace: view.frames.map((frame) => ({ function: frame.function, file: frame.file, line: frame.line })),
    };
    if (view.token) problem.debugToken = view.token;
  }
  return problem;
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

function element(name: string, value: unknown): string {
  if (value === null || value === undefined) return `<${name}/>`;
  if (Array.isArray(value)) return `<${name}>${value.map((item) => element('frame', item)).join('')}</${name}>`;
  if (typeof value === 'object') {
    return `<${name}>${Object.entries(value).map(([key, item]) => element(key, item)).join('')}</${name}>`;
  }
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}

export function renderProblemXml(view: ErrorView, debug: boolean): string {
  const members = Object.entries(problemDetails(view, debug)).map(([key, value]) => element(key, value)).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<problem xmlns="urn:ietf:rfc:7807">${members}</problem>\n`;
}
