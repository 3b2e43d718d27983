import { PROFILER_PATH } from "../debug/request-debug.js";
import { BadRequestHttpError, NotFoundHttpError } from "../errors/http-errors.js";
import { negotiateErrorFormat } from "../errors/negotiate.js";
import { renderListPage } from "./pages/list-page.js";
import { panelNames, renderReportPage } from "./pages/report-page.js";
import { parseSearchFilters } from "./search-filters.js";
const LATEST_COUNT = 50;
function wantsJson(accept) {
  return negotiateErrorFormat(accept) === "json";
}
function send(reply, json, body, page) {
  reply.header("cache-control", "no-cache, private").header("vary", "Accept");
  if (json) return reply.type("application/json; charset=utf-8").send(JSON.stringify(body()));
  return reply.type("text/html; charset=UTF-8").send(page());
}
function summaries(reports) {
  return reports.map(({ token, method, url, status, time, ip }) => ({ token, method, url, status, time, ip }));
}
function declareProfilerRoutes(routes, profiler) {
  const list = async (reply, accept, heading, filters) => {
    await profiler.writer.flush();
    const reports = await profiler.store.search(filters);
    const stats = await profiler.stats();
    return send(reply, wantsJson(accept), () => summaries(reports), () => renderListPage({ heading, reports, filters, stats }));
  };
  routes.get(PROFILER_PATH, ({ request, reply }) => list(reply, request.headers.accept, "Latest requests", { limit: LATEST_COUNT }), { name: "_profiler_home" });
  routes.get(
    `${PROFILER_PATH}/search`,
    ({ request, reply, query }) => {
      const filters = parseSearchFilters(query);
      return list(reply, request.headers.accept, "Search results", filters);
    },
    { name: "_profiler_search" }
  );
  routes.get(
    `${PROFILER_PATH}/{token}`,
    async ({ params, query, request, reply }) => {
      const report = await profiler.read(params.token);
      if (!report) throw new NotFoundHttpError(`Token "${params.token}" was not found in the database.`);
      const panel = query.panel;
      if (Array.isArray(panel)) throw new BadRequestHttpError('The "panel" parameter is given more than once.', "VIGIL_ERR_PROFILER_PANEL");
      if (panel !== void 0 && !panelNames(report).includes(panel)) {
        throw new BadRequestHttpError(`Unknown panel "${panel}"; this report has ${panelNames(report).join(", ")}.`, "VIGIL_ERR_PROFILER_PANEL");
      }
      return send(reply, wantsJson(request.headers.accept), () => report, () => renderReportPage(report, panel));
    },
    { name: "_profiler" }
  );
}
export {
  declareProfilerRoutes
};
//# sourceMappingURL=profiler-routes.js.map
