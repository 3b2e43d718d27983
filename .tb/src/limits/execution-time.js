import { ExecutionTimeExceededError } from "./limit-errors.js";
function runInProcess(invocation, seconds, guard) {
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = () => {
      if (settled) return false;
      settled = true;
      if (timer !== void 0) clearTimeout(timer);
      unwatch();
      return true;
    };
    const stop = (reason) => {
      if (!finish()) return;
      invocation.abort(reason);
      reject(reason);
    };
    const timer = seconds > 0 ? setTimeout(() => stop(new ExecutionTimeExceededError(seconds)), seconds * 1e3) : void 0;
    const unwatch = guard.watch(stop);
    invocation.runHere().then(
      (value) => finish() && resolve(value),
      (error) => finish() && reject(error)
    );
  });
}
export {
  runInProcess
};
//# sourceMappingURL=execution-time.js.map
