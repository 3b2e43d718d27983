/**
 * The pace a request body must keep, answered 408 when it does not: BODY_TIMEOUT (nginx's
 * client_body_timeout) between two pieces, so a slow but steady client is not cut, and BODY_MIN_RATE
 * (Apache's mod_reqtimeout MinRate) on average, so a trickle of a byte every few seconds is.
 */
import { RequestTimeoutHttpError } from './limit-errors.js';

/** BODY_TIMEOUT in ms and BODY_MIN_RATE in bytes/s; 0 turns either off. */
export interface BodyPace {
  bodyTimeoutMs: number;
  bodyMinRate: number;
}

/** How long a body may take before its average rate counts, as mod_reqtimeout's `body=10`. */
const BODY_RATE_GRACE_MS = 10_000;

interface BodyWatch {
  /** `bytes` more of the body came: the wait starts again, and the average is checked. */
  received(bytes: number): void;
  stop(): void;
}

const NO_WATCH: BodyWatch = { received: () => undefined, stop: () => undefined };

/**
 * Calls `onCut` once with the 408 to answer: when the body has waited BODY_TIMEOUT for its
 * next piece, or averages under BODY_MIN_RATE after BODY_RATE_GRACE_MS. `waitingOnClient`
 * is asked when the timer fires: while the kernel is the one not reading (a file write
 * holds the stream paused), the wait starts again instead. Both share one timer per body; the rate is
 * also checked as bytes come.
 */
export function watchBody(
  pace: BodyPace,
  onCut: (error: RequestTimeoutHttpError) => void,
  waitingOnClient: () => boolean = () => true,
): BodyWatch {
  const { bodyTimeoutMs, bodyMinRate } = pace;
  if (bodyTimeoutMs <= 0 && bodyMinRate <= 0) return NO_WATCH;
  const start = performance.now();
  let total = 0;
  let cut = false;
  const tooSlow = () => {
    if (bodyMinRate <= 0) return false;
    const elapsedMs = performance.now() - start;
    return elapsedMs > BODY_RATE_GRACE_MS && total * 1000 < bodyMinRate * elapsedMs;
  };
  const stop = (error: RequestTimeoutHttpError) => {
    cut = true;
    clearTimeout(timer);
    onCut(error);
  };
  // Without BODY_TIMEOUT the timer only catches a body that stops altogether under the rate.
  const timer = setTimeout(
    () => {
      if (!waitingOnClient()) timer.refresh();
      else if (bodyTimeoutMs > 0) stop(bodyStalledError(bodyTimeoutMs));
      else if (tooSlow()) stop(bodyTooSlowError(bodyMinRate));
      else timer.refresh();
    },
    bodyTimeoutMs > 0 ? bodyTimeoutMs : BODY_RATE_GRACE_MS,
  );
  return {
    received(bytes) {
      if (cut) return;
      total += bytes;
      if (tooSlow()) stop(bodyTooSlowError(bodyMinRate));
      else timer.refresh();
    },
    stop: () => clearTimeout(timer),
  };
}

function bodyStalledError(timeoutMs: number): RequestTimeoutHttpError {
  return new RequestTimeoutHttpError(`The request body stalled: no byte came for BODY_TIMEOUT (${timeoutMs / 1000}s)`);
}

function bodyTooSlowError(minRate: number): RequestTimeoutHttpError {
  return new RequestTimeoutHttpError(
    `The request body came too slowly: under BODY_MIN_RATE (${minRate} bytes/s) on average after its first ${BODY_RATE_GRACE_MS / 1000}s`,
    undefined,
    'VIGIL_ERR_BODY_TOO_SLOW',
  );
}
