/**
 * The tracing set-up of `support/tracing.ts` with OpenTelemetry's HTTP instrumentation too:
 * each request the service takes is then a server span, the parent of the spans its code
 * starts. Import it first, before anything that loads pg or Fastify; a file that imports it
 * has a process of its own (`test/run.ts`), as one importing `support/tracing.ts` does.
 */
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
// Not from the package's entry, which loads Fastify and with it node:http before the
// instrumentation is in place to patch it.
import { vigilPgResponseHook, vigilSpanProcessor } from '../../src/profiler/activity/span-processor.js';

export const provider = new NodeTracerProvider({ spanProcessors: [vigilSpanProcessor()] });
provider.register();
/** Removes the instrumentations; call before `provider.shutdown()`. */
export const stopInstrumenting = registerInstrumentations({
  tracerProvider: provider,
  instrumentations: [new HttpInstrumentation(), new PgInstrumentation({ responseHook: vigilPgResponseHook })],
});
