/**
 * What an application imports from vigil: the plugin for its own Fastify instance and the
 * construction options it needs, the standalone kernel, the routes API, the errors and
 * their codes, the settings, and the collector interface.
 */
export { vigil } from './plugin.js';
export type { VigilKernel, VigilOptions } from './plugin.js';
export { vigilFastifyOptions } from './fastify-options.js';
export type { VigilFastifyExtras } from './fastify-options.js';
export { createKernel } from './app.js';
export type { Kernel, KernelOptions } from './app.js';
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
export { HttpError, NotFoundHttpError, MethodNotAllowedHttpError, BadRequestHttpError, UriTooLongHttpError, SchemaValidationHttpError } from './errors/http-errors.js';
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
export { defineCollector } from './profiler/request-profile.js';
export type { Collector, CollectorContext } from './profiler/request-profile.js';
export type { Profiler } from './profiler/profiler.js';
export type { RequestState } from './http/request-state.js';
export type { CollectorPanel, PanelBadge, PanelView } from './profiler/pages/panels/panel.js';
export { renderValue } from './profiler/pages/panels/generic-panel.js';
export { html, type SafeHtml } from './errors/html.js';
export { loadConfig, ConfigError } from './config.js';
export type { Config } from './config.js';
