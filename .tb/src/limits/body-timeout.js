import { RequestTimeoutHttpError } from "./limit-errors.js";
const NO_WATCH = { refresh: () => void 0, stop: () => void 0 };
function watchBodyStall(timeoutMs, onStall, waitingOnClient = () => true) {
  if (timeoutMs <= 0) return NO_WATCH;
  const timer = setTimeout(() => waitingOnClient() ? onStall() : timer.refresh(), timeoutMs);
  return { refresh: () => timer.refresh(), stop: () => clearTimeout(timer) };
}
function bodyStalledError(timeoutMs) {
  return new RequestTimeoutHttpError(`The request body stalled: no byte came for BODY_TIMEOUT (${timeoutMs / 1e3}s)`);
}
export {
  bodyStalledError,
  watchBodyStall
};
//# sourceMappingURL=body-timeout.js.map
