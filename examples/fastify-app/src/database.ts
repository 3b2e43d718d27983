/**
 * The example's PostgreSQL, when DATABASE_URL names one, with the OpenTelemetry set-up of
 * "Seeing the application" in docs/profiler.md: each statement lands in the report of the request
 * that ran it (the Database panel). It needs `npm install pg @opentelemetry/sdk-trace-node
 * @opentelemetry/instrumentation @opentelemetry/instrumentation-pg`; without DATABASE_URL
 * none of them is loaded, and the example runs as it is.
 */
import { createRequire } from 'node:module';
import { vigilPgResponseHook, vigilSpanProcessor } from 'fastify-vigil';

/** What the example uses of pg's `Pool`. */
export interface Database {
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
  end(): Promise<void>;
}

// Optional packages, loaded by name; through require, which the instrumentation patches.
const requireOptional = createRequire(import.meta.url);

export function openDatabase(url: string | undefined): Database | undefined {
  if (!url) return undefined;
  // Before pg is loaded: an instrumentation patches a module as it is loaded.
  const { NodeTracerProvider } = requireOptional('@opentelemetry/sdk-trace-node');
  const { registerInstrumentations } = requireOptional('@opentelemetry/instrumentation');
  const { PgInstrumentation } = requireOptional('@opentelemetry/instrumentation-pg');
  const provider = new NodeTracerProvider({ spanProcessors: [vigilSpanProcessor()] });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [new PgInstrumentation({ responseHook: vigilPgResponseHook })],
  });
  const { Pool } = requireOptional('pg');
  return new Pool({ connectionString: url }) as Database;
}
