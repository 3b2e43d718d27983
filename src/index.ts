/**
 * What an application imports from vigil: the plugin for its own Fastify instance and the
 * construction options it needs, the standalone kernel, the settings, and all of
 * `fastify-vigil/routes` (`routes-api.ts`): the routes API, the errors and their codes, and the
 * collector interface.
 */
export { vigil } from './plugin.js';
export type { VigilKernel, VigilOptions } from './plugin.js';
export type { ProfilerAccessCheck } from './profiler/access/production-access.js';
export type { ReportTarget, TestReport } from './profiler/test-report.js';
export { vigilFastifyOptions } from './fastify-options.js';
export type { VigilFastifyExtras } from './fastify-options.js';
export { createKernel } from './app.js';
export type { Kernel, KernelOptions } from './app.js';
export * from './routes-api.js';
/** Records a step of the running request in its report; native routes use it as routes API ones do. */
export { span } from './http/request-scope.js';
export { loadConfig, ConfigError } from './config/index.js';
export { vigilPgResponseHook, vigilSpanProcessor } from './profiler/activity/span-processor.js';
export type { TraceSpan, VigilSpanProcessor } from './profiler/activity/span-processor.js';
export type { Config, PostgresDsn, SqliteDsn, StoreDsn } from './config/index.js';
