/**
 * The application's tracing set-up as docs/profiler.md shows it, for the tests and the bench: a
 * tracer provider with `vigilSpanProcessor()` and the pg instrumentation. Import it before
 * anything that loads pg (`support/postgres.ts` does): pg requires its pool when it loads,
 * and only a pool required after the instrumentation is instrumented.
 */
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { vigilPgResponseHook, vigilSpanProcessor } from '../../src/index.js';

export const provider = new NodeTracerProvider({ spanProcessors: [vigilSpanProcessor()] });
provider.register();
/** Removes the instrumentation; call before `provider.shutdown()`. */
export const stopInstrumenting = registerInstrumentations({
  tracerProvider: provider,
  instrumentations: [new PgInstrumentation({ responseHook: vigilPgResponseHook })],
});
