/**
 * What a debug answer shows, besides the message, to help fix the request: the routes a
 * few letters from a 404's path, the schema rules a 400's request broke. Computed only
 * when a debug answer or a report asks, never in production.
 */

/** A declared route near the requested path. */
export interface RouteHint {
  methods: readonly string[];
  /** As declared: `/api/products/{id}`, or Fastify's `/api/products/:id`. */
  path: string;
}

/** One rule of a route's JSON schema that the request broke. */
export interface SchemaViolation {
  /** The part of the request: `body`, `querystring`, `params` or `headers`. */
  in: string;
  /** JSON pointer to the failing value inside that part (`/items/0/price`), `/` for the whole. */
  path: string;
  keyword: string;
  /** The schema's rule as written: `type: integer`, `minimum: 0`. */
  rule: string;
  /** The value sent there, redacted as request bodies are, shortened; absent when nothing was sent there. */
  value?: string;
}

export interface ErrorHints {
  nearRoutes?: readonly RouteHint[];
  violations?: readonly SchemaViolation[];
}

/** True when the hints hold something to show. */
export const hasHints = (hints: ErrorHints | undefined): hints is ErrorHints =>
  hints !== undefined && (Boolean(hints.nearRoutes?.length) || Boolean(hints.violations?.length));
