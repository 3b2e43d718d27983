import { defineRoutes, Routes, RouteDefinitionError } from "./routing/routes.js";
import { HttpError, NotFoundHttpError, MethodNotAllowedHttpError, BadRequestHttpError, UriTooLongHttpError } from "./errors/http-errors.js";
import {
  ExecutionTimeExceededError,
  HeapGuardHttpError,
  MemoryExhaustedError,
  PayloadTooLargeHttpError,
  UploadTooLargeHttpError
} from "./limits/limit-errors.js";
import { createKernel } from "./app.js";
import { loadConfig, ConfigError } from "./config.js";
export {
  BadRequestHttpError,
  ConfigError,
  ExecutionTimeExceededError,
  HeapGuardHttpError,
  HttpError,
  MemoryExhaustedError,
  MethodNotAllowedHttpError,
  NotFoundHttpError,
  PayloadTooLargeHttpError,
  RouteDefinitionError,
  Routes,
  UploadTooLargeHttpError,
  UriTooLongHttpError,
  createKernel,
  defineRoutes,
  loadConfig
};
//# sourceMappingURL=index.js.map
