import { exceptionCollector } from "./exception.js";
import { logsCollector } from "./logs.js";
import { memoryCollector } from "./memory.js";
import { performanceCollector } from "./performance.js";
import { requestCollector } from "./request.js";
import { responseCollector } from "./response.js";
import { routingCollector } from "./routing.js";
function defaultCollectors({ matcher, logTap }) {
  return [
    requestCollector,
    responseCollector,
    exceptionCollector,
    routingCollector(matcher),
    performanceCollector(),
    memoryCollector,
    ...logTap ? [logsCollector(logTap)] : []
  ];
}
export {
  defaultCollectors
};
//# sourceMappingURL=index.js.map
