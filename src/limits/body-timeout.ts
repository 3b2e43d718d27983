/**
 * BODY_TIMEOUT, as nginx's client_body_timeout: a body whose next byte does not come for
 * that long is answered 408. The time counts between two pieces of the body, not for the
 * whole of it, so a slow but steady client is never cut.
 */
import { RequestTimeoutHttpError } from './limit-errors.js';

export interface StallWatch {
  /** A piece of the body came: the wait starts again. */
  refresh(): void;
  stop(): void;
}

const NO_WATCH: StallWatch = { refresh: () => undefined, stop: () => undefined };

/**
 * Calls `onStall` once the body has waited `timeoutMs` (0: never) for its next piece.
 * `waitingOnClient` is asked first: while the kernel is the one not reading (a file write
 * holds the stream paused), the wait starts again instead.
 */
export function watchBodyStall(timeoutMs: number, onStall: () => void, waitingOnClient: () => boolean = () => true): StallWatch {
  if (timeoutMs <= 0) return NO_WATCH;
  const timer = setTimeout(() => (waitingOnClient() ? onStall() : timer.refresh()), timeoutMs);
  return { refresh: () => timer.refresh(), stop: () => clearTimeout(timer) };
}

export function bodyStalledError(timeoutMs: number): RequestTimeoutHttpError {
  return new RequestTimeoutHttpError(`The request body stalled: no byte came for BODY_TIMEOUT (${timeoutMs / 1000}s)`);
}
