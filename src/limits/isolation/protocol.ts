/**
 * The messages between the kernel and its isolated worker processes, and how a handler's
 * error crosses over: as data, revived in the kernel as an HttpError that keeps the
 * worker's class name, message, status and (source-mapped) frames for the error pipeline.
 * The frames travel as structured data, taken from the worker's call sites: the text of a
 * stack holds the message, which may hold anything a client sent.
 */
import { adoptFrames, type StackFrame } from '../../debug/stack-trace.js';
import {
  adoptRelated,
  classNameOf,
  framesOrNone,
  MAX_CHAIN_DEPTH,
  MAX_MEMBERS,
  messageOf,
  relatedErrors,
  type ChainedError,
  type RelatedErrors,
} from '../../errors/error-chain.js';
import { HttpError, httpDetailsOf } from '../../errors/http-errors.js';
import { isError, ThrownValueError } from '../../errors/thrown-value.js';
import type { IsolatedRouteContext } from '../../routing/routes.js';

/** The context minus `log`, which the worker rebuilds around the IPC channel. */
export type IsolatedInput = Omit<IsolatedRouteContext, 'log'>;

export type ToWorker = { type: 'run'; id: number; route: string; input: IsolatedInput };

export type FromWorker =
  | { type: 'ready'; routes: string[] }
  | { type: 'result'; id: number; value: unknown }
  | { type: 'error'; id: number; error: SerializedError }
  | { type: 'memory'; id: number; bytes: number }
  /** After a job's answer: the worker collected its garbage and can be measured and reused. */
  | { type: 'settled'; id: number }
  | {
      type: 'log';
      id: number;
      level: 'debug' | 'info' | 'warn' | 'error';
      message: string;
      details?: Record<string, unknown>;
    };

interface SerializedError {
  name: string;
  message: string;
  frames: StackFrame[];
  status: number | undefined;
  code: string | undefined;
  headers: Record<string, string> | undefined;
  /** Its causes and members, as the error pipeline shows them. */
  related?: RelatedErrors | undefined;
}

/** `site`: where the handler was declared, the raise site of a thrown value that is no Error. */
export function serializeError(thrown: unknown, site?: StackFrame): SerializedError {
  const error = isError(thrown) ? thrown : new ThrownValueError(thrown, site);
  return {
    // As the kernel names an error it raised itself: the constructor's name first.
    name: classNameOf(error),
    message: messageOf(error),
    frames: framesOrNone(error).map(({ function: name, file, line, column }) => ({
      function: name,
      file,
      line,
      column,
    })),
    // As the error pipeline would read them off this error in the kernel's process.
    ...httpDetailsOf(error),
    related: relatedErrors(error),
  };
}

export function reviveError(data: SerializedError): HttpError {
  const error = new HttpError(
    data.status ?? 500,
    data.message,
    data.code ?? 'VIGIL_ERR_INTERNAL',
    data.headers ? { headers: data.headers } : {},
  );
  error.name = data.name;
  // The worker's frames point at the handler's source, where the error was raised.
  adoptFrames(error, Array.isArray(data.frames) ? data.frames.filter(isFrame) : []);
  adoptRelated(error, checkedRelated(data.related, 0));
  return error;
}

/** The related errors a worker sent, kept only as far as they have the expected shape and bounds. */
function checkedRelated(data: unknown, depth: number): RelatedErrors {
  const related: RelatedErrors = {};
  if (typeof data !== 'object' || data === null || depth >= MAX_CHAIN_DEPTH) return related;
  const { cause, members, membersOmitted, truncated } = data as Record<string, unknown>;
  const checkedCause = checkedError(cause, depth + 1);
  if (checkedCause) related.cause = checkedCause;
  if (Array.isArray(members))
    related.members = members.slice(0, MAX_MEMBERS).flatMap((member) => checkedError(member, depth + 1) ?? []);
  if (Number.isSafeInteger(membersOmitted) && (membersOmitted as number) > 0)
    related.membersOmitted = membersOmitted as number;
  if (truncated === true) related.truncated = true;
  return related;
}

function checkedError(data: unknown, depth: number): ChainedError | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const { className, message, frames, framesInCommon, site, repeated } = data as Record<string, unknown>;
  if (typeof className !== 'string' || typeof message !== 'string') return undefined;
  return {
    className,
    message,
    frames: Array.isArray(frames) ? frames.filter(isFrame) : [],
    framesInCommon: Number.isSafeInteger(framesInCommon) ? (framesInCommon as number) : 0,
    site: isFrame(site) ? site : undefined,
    ...(repeated === true ? { repeated: true as const } : {}),
    ...checkedRelated(data, depth),
  };
}

function isFrame(frame: unknown): frame is StackFrame {
  const { function: name, file, line, column } = (frame ?? {}) as Partial<StackFrame>;
  return typeof name === 'string' && typeof file === 'string' && Number.isInteger(line) && Number.isInteger(column);
}
