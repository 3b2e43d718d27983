/**
 * What a routes module imports: the routes API, the errors and their codes, and the
 * collector interface, without the kernel. The kernel's isolated workers import the
 * routes module: from `fastify-vigil/routes` it loads only this, where `vigil` brings Fastify
 * and the whole kernel with it, at many times the import cost. `vigil` exports all of it too.
 */
export { defineRoutes, Routes, RouteDefinitionError } from './routing/routes.js';
export type {
  HttpMethod,
  IsolatedLog,
  IsolatedRouteContext,
  IsolatedRouteHandler,
  RouteContext,
  RouteHandler,
  RouteOptions,
  RouteParams,
  RoutesDeclaration,
  UploadedFile,
} from './routing/routes.js';
export type { KnownRoute, RouteTable } from './routing/route-table.js';
export {
  HttpError,
  NotFoundHttpError,
  MethodNotAllowedHttpError,
  BadRequestHttpError,
  UriTooLongHttpError,
  SchemaValidationHttpError,
} from './errors/http-errors.js';
export type { HttpErrorOptions } from './errors/http-errors.js';
export { ERROR_CODES } from './errors/error-codes.js';
export type { VigilErrorCode } from './errors/error-codes.js';
export {
  ExecutionTimeExceededError,
  HeapGuardHttpError,
  MemoryExhaustedError,
  PayloadTooLargeHttpError,
  RequestTimeoutHttpError,
  UploadTooLargeHttpError,
} from './limits/limit-errors.js';
export { defineCollector } from './profiler/model/collector-unit.js';
export type { Collector, CollectorContext } from './profiler/model/request-profile.js';
export type { Profiler } from './profiler/profiler.js';
export type { RequestState } from './http/request-state.js';
export type { CollectorPanel, PanelBadge, PanelView } from './profiler/model/panel.js';
export { renderValue } from './profiler/views/generic-panel.js';
export { html, type SafeHtml } from './utils/html.js';
