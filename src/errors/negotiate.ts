/**
 * Chooses the error format from the `Accept` header: q-values first, then the order in
 * the header, then HTML. No `Accept`, `*\/*` or only unknown types give HTML, or the
 * `fallback` given (JSON for an API in plugin mode): it also wins where `*\/*` alone
 * would choose among the formats.
 */
export type ErrorFormat = 'html' | 'json' | 'xml' | 'text';

const FORMATS: ReadonlyArray<[ErrorFormat, readonly string[]]> = [
  ['html', ['text/html', 'application/xhtml+xml']],
  ['json', ['application/problem+json', 'application/json']],
  ['xml', ['application/problem+xml', 'application/xml', 'text/xml']],
  ['text', ['text/plain']],
];

const cache = new Map<string, ErrorFormat>();
const CACHE_SIZE = 256;

export function negotiateErrorFormat(accept: string | undefined, fallback: ErrorFormat = 'html'): ErrorFormat {
  if (accept === undefined || accept === '' || accept === '*/*') return fallback;
  const key = fallback === 'html' ? accept : `${fallback} ${accept}`;
  let format = cache.get(key);
  if (format === undefined) {
    format = choose(accept, fallback);
    if (cache.size >= CACHE_SIZE) cache.clear();
    cache.set(key, format);
  }
  return format;
}

interface Range {
  type: string;
  subtype: string;
  q: number;
  index: number;
}

function parse(accept: string): Range[] {
  const ranges: Range[] = [];
  accept.split(',').forEach((part, index) => {
    const [mediaType = '', ...params] = part.split(';');
    const [type, subtype] = mediaType.trim().toLowerCase().split('/');
    if (!type || !subtype) return;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=').map((s) => s.trim());
      if (name?.toLowerCase() === 'q') {
        const parsed = Number(value);
        q = Number.isFinite(parsed) ? Math.min(Math.max(parsed, 0), 1) : 0;
      }
    }
    ranges.push({ type, subtype, q, index });
  });
  return ranges;
}

/** How well `range` names `mediaType`: 3 exactly, 2 by `type/*`, 1 by `*\/*`, 0 not at all. */
function specificity(range: Range, mediaType: string): number {
  const [type, subtype] = mediaType.split('/');
  if (range.type === type && range.subtype === subtype) return 3;
  if (range.type === type && range.subtype === '*') return 2;
  if (range.type === '*' && range.subtype === '*') return 1;
  return 0;
}

function choose(accept: string, fallback: ErrorFormat): ErrorFormat {
  const ranges = parse(accept);
  let best: { format: ErrorFormat; q: number; index: number; wildcard: boolean } | undefined;
  let fallbackQ = 0;
  for (const [format, mediaTypes] of FORMATS) {
    // The most specific range naming one of the format's types decides its q (RFC 9110 12.5.1).
    let decisive: Range | undefined;
    let decisiveSpecificity = 0;
    for (const range of ranges) {
      for (const mediaType of mediaTypes) {
        const s = specificity(range, mediaType);
        if (s > decisiveSpecificity || (s === decisiveSpecificity && s > 0 && decisive && range.q > decisive.q)) {
          decisive = range;
          decisiveSpecificity = s;
        }
      }
    }
    if (!decisive || decisive.q === 0) continue;
    if (format === fallback) fallbackQ = decisive.q;
    if (!best || decisive.q > best.q || (decisive.q === best.q && decisive.index < best.index)) {
      best = { format, q: decisive.q, index: decisive.index, wildcard: decisiveSpecificity === 1 };
    }
  }
  // Chosen by `*/*` alone: the client named no format, and takes the fallback as well.
  if (best?.wildcard && fallbackQ === best.q) return fallback;
  return best?.format ?? fallback;
}
