/** What an application imports from the kernel. */
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
export { HttpError, NotFoundHttpError, MethodNotAllowedHttpError, BadRequestHttpError, UriTooLongHttpError } from './errors/http-errors.js';
export {
  ExecutionTimeExceededError,
  HeapGuardHttpError,
  MemoryExhaustedError,
  PayloadTooLargeHttpError,
  UploadTooLargeHttpError,
} from './limits/limit-errors.js';
export { defineCollector } from './profiler/request-profile.js';
export type { Collector, CollectorContext } from './profiler/request-profile.js';
export type { CollectorPanel, PanelBadge, PanelView } from './profiler/pages/panels/panel.js';
export { renderValue } from './profiler/pages/panels/generic-panel.js';
export { html, type SafeHtml } from './errors/html.js';
export { createKernel } from './app.js';
export type { Kernel, KernelOptions } from './app.js';
export { loadConfig, ConfigError } from './config.js';
export type { Config } from './config.js';
