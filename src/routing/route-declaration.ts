/**
 * Where the application declared a route, taken when Fastify adds it, and the validation
 * errors of its schema raised there: the schema is the route's declaration, so the debug
 * headers, the page and the report point at that line rather than at Fastify's validator
 * or whichever hook happened to be on the stack, and show the rules the request broke.
 */
import { dirname } from 'node:path';
import { adoptFrames, framesOf, isProjectFrame, type StackFrame } from '../debug/stack-trace.js';
import { SchemaValidationHttpError } from '../errors/http-errors.js';
import { schemaViolations, type SentValues } from '../errors/schema-violations.js';

/** Frames between Fastify's `onRoute` and the application's call: vigil's, Fastify's, avvio's. */
const CAPTURE_DEPTH = 40;

let ownSources: string | undefined;

/**
 * The call stack of the route being added, from the application's own frame on (innermost
 * first): the first frame of the project's source outside vigil's. Empty when no such
 * frame is on the stack (a route added by a dependency).
 */
export function captureDeclaration(): readonly StackFrame[] {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = CAPTURE_DEPTH;
  const probe = new Error('route declaration');
  Error.stackTraceLimit = limit;
  const frames = framesOf(probe);
  // This function's own file tells where vigil's sources are (src/, or its build).
  ownSources ??= frames[0] ? dirname(dirname(frames[0].file)) : '';
  const first = frames.findIndex((frame) => isProjectFrame(frame) && !isVigilFrame(frame));
  return first === -1 ? [] : frames.slice(first);
}

function isVigilFrame(frame: StackFrame): boolean {
  return ownSources !== undefined && ownSources !== '' && frame.file.startsWith(`${ownSources}/`);
}

/** Fastify's error for a request its route's schema refused. */
interface FastifyValidationError extends Error {
  code: 'FST_ERR_VALIDATION';
  validation: unknown;
  validationContext?: string;
}

function isValidationError(error: unknown): error is FastifyValidationError {
  return error instanceof Error && (error as { code?: unknown }).code === 'FST_ERR_VALIDATION';
}

/**
 * A schema's validation error as the pipeline's 400, raised where its route was declared
 * (`declaredAt`), with the rules broken and (`sent`) the values sent, for a debug answer;
 * any other error as it is.
 */
export function explainValidation(
  error: unknown,
  declaredAt: readonly StackFrame[] | undefined,
  sent?: SentValues,
): unknown {
  if (!isValidationError(error)) return error;
  const { validation, validationContext } = error;
  const explained = new SchemaValidationHttpError(error.message, validation, validationContext, {
    cause: error,
    hints: () => ({ violations: schemaViolations(validation, validationContext, sent) }),
  });
  adoptFrames(explained, declaredAt !== undefined && declaredAt.length > 0 ? declaredAt : framesOf(error));
  return explained;
}
