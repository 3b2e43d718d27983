/** What an application imports from the kernel. */
export { defineRoutes, Routes, RouteDefinitionError } from './routing/routes.js';
export type { HttpMethod, RouteContext, RouteHandler, RouteOptions, RouteParams, RoutesDeclaration } from './routing/routes.js';
export { HttpError, NotFoundHttpError, MethodNotAllowedHttpError, BadRequestHttpError } from './errors/http-errors.js';
export type { Collector, CollectorContext } from './profiler/request-profile.js';
export { createKernel } from './app.js';
export type { Kernel, KernelOptions } from './app.js';
export { loadConfig, ConfigError } from './config.js';
export type { Config } from './config.js';
