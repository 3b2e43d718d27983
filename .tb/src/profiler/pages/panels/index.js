import { exceptionPanel } from "./exception-panel.js";
import { genericPanel } from "./generic-panel.js";
import { logsPanel } from "./logs-panel.js";
import { memoryPanel } from "./memory-panel.js";
import { performancePanel } from "./performance-panel.js";
import { requestPanel } from "./request-panel.js";
import { responsePanel } from "./response-panel.js";
import { routingPanel } from "./routing-panel.js";
const BUILT_IN_PANELS = [requestPanel, responsePanel, exceptionPanel, routingPanel, performancePanel, memoryPanel, logsPanel];
function panelsOf(sections) {
  const known = new Set(BUILT_IN_PANELS.map((panel) => panel.name));
  return [...BUILT_IN_PANELS, ...Object.keys(sections).filter((name) => !known.has(name)).map(genericPanel)];
}
export {
  BUILT_IN_PANELS,
  panelsOf
};
//# sourceMappingURL=index.js.map
