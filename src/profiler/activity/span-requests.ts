/**
 * Which request an OpenTelemetry span belongs to. A library may start a span from a callback
 * that runs in another request's code (pg's pool hands a waiting query its client from inside
 * another request's `release()`), where AsyncLocalStorage names the wrong request; the span's
 * parent names the right one. So vigil remembers the request of each span it files, and of the
 * span OpenTelemetry holds active when a request comes in (an HTTP instrumentation's server
 * span): a span whose parent is one of them is that request's, wherever it starts.
 *
 * Read by shape, importing nothing: OpenTelemetry's API keeps its context key and its global
 * registry under `Symbol.for` names so that several copies of the API agree, and vigil reads
 * them by those names.
 */
import type { RequestScope } from '../../http/request-scope.js';

/** `trace.getSpan(context)` reads this key. */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');
/** Where `@opentelemetry/api` 1.x registers its globals, the context manager among them. */
const API_KEY = Symbol.for('opentelemetry.js.api.1');

/**
 * Spans by the request they belong to, held no longer than the span: a closed request's scope
 * holds nothing. Null: a span active when two requests came in (one started around the
 * server), which is no single request's.
 */
const requests = new WeakMap<object, RequestScope | null>();

/** Set once a span processor is made: until then a request does not look for an active span. */
let tracing = false;

export function followSpans(): void {
  tracing = true;
}

/** The span an OpenTelemetry context holds (`trace.getSpan`), if any. */
function spanIn(context: unknown): object | undefined {
  if (typeof context !== 'object' || context === null) return undefined;
  const getValue = (context as { getValue?: unknown }).getValue;
  if (typeof getValue !== 'function') return undefined;
  const span: unknown = getValue.call(context, SPAN_KEY);
  return typeof span === 'object' && span !== null ? span : undefined;
}

/** The span OpenTelemetry holds active where this runs, through its global context manager. */
function activeSpan(): object | undefined {
  try {
    const api = (globalThis as { [API_KEY]?: { context?: { active?: unknown } } })[API_KEY];
    const manager = api?.context;
    return typeof manager?.active === 'function' ? spanIn(manager.active()) : undefined;
  } catch {
    // Another party's registry: what it does not hold, vigil does without.
    return undefined;
  }
}

/** Notes the span active as the request of `scope` comes in: its children are the request's. */
export function noteEntrySpan(scope: RequestScope): void {
  if (!tracing) return;
  const span = activeSpan();
  if (span !== undefined) requests.set(span, requests.has(span) ? null : scope);
}

/** Notes a span filed under the request of `scope`: its children are that request's too. */
export function noteSpan(span: object, scope: RequestScope): void {
  requests.set(span, scope);
}

/**
 * The request of the span an OpenTelemetry context holds, when vigil knows it (even once
 * reported); undefined when the context holds no span, or one vigil does not know or knows
 * to be no single request's.
 */
export function requestOfParent(parentContext: unknown): RequestScope | undefined {
  const parent = spanIn(parentContext);
  return parent === undefined ? undefined : (requests.get(parent) ?? undefined);
}
