/**
 * The cross-origin policy, NelmioCorsBundle's semantics: decides a preflight's answer and
 * the CORS headers of an actual request. Pure decisions; the kernel turns refusals into
 * errors for its pipeline. (@fastify/cors reflects whatever is asked and never answers
 * 405 or 400 to a preflight, which the contract requires, hence this small module.)
 */
interface CorsPolicySettings {
  allowOrigin: RegExp;
  allowMethods: readonly string[];
  allowHeaders: readonly string[];
  exposeHeaders: readonly string[];
  maxAge: number;
}

type PreflightAnswer =
  | { verdict: 'answer'; headers: Record<string, string> }
  | { verdict: 'method-refused'; method: string; headers: Record<string, string> }
  | { verdict: 'header-refused'; header: string; headers: Record<string, string> };

/** Request headers a browser may send without asking (Nelmio's list). */
const SIMPLE_HEADERS = new Set(['accept', 'accept-language', 'content-language', 'origin']);

export class CorsPolicy {
  private readonly allowMethodsValue: string;
  private readonly allowHeadersValue: string;
  private readonly exposeHeadersValue: string;
  private readonly allowedHeaders: ReadonlySet<string>;

  constructor(private readonly settings: CorsPolicySettings) {
    this.allowMethodsValue = settings.allowMethods.join(', ');
    this.allowHeadersValue = settings.allowHeaders.join(', ');
    this.exposeHeadersValue = settings.exposeHeaders.join(', ');
    this.allowedHeaders = new Set(settings.allowHeaders.map((name) => name.toLowerCase()));
  }

  get allowMethods(): readonly string[] {
    return this.settings.allowMethods;
  }

  get allowHeaders(): readonly string[] {
    return this.settings.allowHeaders;
  }

  allows(origin: string): boolean {
    return this.settings.allowOrigin.test(origin);
  }

  /**
   * A preflight (OPTIONS with Origin and Access-Control-Request-Method), on any path:
   * a disallowed origin gets the policy without Access-Control-Allow-Origin; then an
   * unlisted method is refused (405), then an unlisted header (400).
   */
  preflight(origin: string, requestedMethod: string, requestedHeaders: string | undefined): PreflightAnswer {
    const headers: Record<string, string> = {
      vary: 'Origin',
      'access-control-allow-methods': this.allowMethodsValue,
      'access-control-allow-headers': this.allowHeadersValue,
      'access-control-max-age': String(this.settings.maxAge),
    };
    if (!this.allows(origin)) return { verdict: 'answer', headers };
    headers['access-control-allow-origin'] = origin;
    const method = requestedMethod.trim().toUpperCase();
    if (!this.settings.allowMethods.includes(method)) return { verdict: 'method-refused', method, headers };
    for (const header of (requestedHeaders ?? '').toLowerCase().split(',')) {
      const name = header.trim();
      if (name !== '' && !SIMPLE_HEADERS.has(name) && !this.allowedHeaders.has(name)) {
        return { verdict: 'header-refused', header: name, headers };
      }
    }
    return { verdict: 'answer', headers };
  }

  /** Headers for an actual request from `origin`, errors included; undefined for a disallowed origin. */
  actualRequestHeaders(origin: string): Record<string, string> | undefined {
    if (!this.allows(origin)) return undefined;
    const headers: Record<string, string> = { 'access-control-allow-origin': origin, vary: 'Origin' };
    if (this.exposeHeadersValue !== '') headers['access-control-expose-headers'] = this.exposeHeadersValue;
    return headers;
  }
}
