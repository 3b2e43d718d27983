import { BadRequestHttpError } from "../errors/http-errors.js";
const SEARCH_FIELDS = ["ip", "method", "status_code", "url", "token", "start", "end", "limit"];
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1e3;
const CODE = "VIGIL_ERR_PROFILER_SEARCH";
const queryNaming = (field) => `Search filter "${field}"`;
function parseSearchFilters(input, nameOf = queryNaming) {
  const invalid = (field, value, expected) => new BadRequestHttpError(`${nameOf(field)} must be ${expected}; got "${value}".`, CODE);
  const values = {};
  for (const [name, value] of Object.entries(input)) {
    if (value === void 0) continue;
    if (!SEARCH_FIELDS.includes(name)) {
      throw new BadRequestHttpError(`Unknown search filter "${name}"; the filters are ${SEARCH_FIELDS.join(", ")}.`, CODE);
    }
    if (Array.isArray(value)) throw new BadRequestHttpError(`Search filter "${name}" is given more than once.`, CODE);
    if (value.trim() !== "") values[name] = value.trim();
  }
  const { ip, method, status_code: status, url, token, start, end, limit } = values;
  if (ip !== void 0 && !/^[0-9a-f:.]{1,45}$/i.test(ip)) throw invalid("ip", ip, "an IP address or part of one");
  if (method !== void 0 && !/^[a-z]{1,20}$/i.test(method)) throw invalid("method", method, "an HTTP method such as GET");
  if (status !== void 0 && !(/^\d{3}$/.test(status) && Number(status) >= 100 && Number(status) <= 599)) {
    throw invalid("status_code", status, "a status code from 100 to 599");
  }
  if (url !== void 0 && url.length > 2048) throw invalid("url", `${url.slice(0, 40)}...`, "at most 2048 characters");
  if (token !== void 0 && !/^[0-9a-f]{1,6}$/i.test(token)) throw invalid("token", token, "1 to 6 hexadecimal characters");
  if (limit !== void 0 && !(/^\d{1,4}$/.test(limit) && Number(limit) >= 1 && Number(limit) <= MAX_LIMIT)) {
    throw invalid("limit", limit, `a whole number from 1 to ${MAX_LIMIT}`);
  }
  const timeOf = (field, value) => {
    const time = parseTime(value, field === "end");
    if (time === void 0) throw invalid(field, value, "epoch milliseconds or an ISO 8601 date such as 2026-01-02 or 2026-01-02T10:30");
    return time;
  };
  const from = start === void 0 ? void 0 : timeOf("start", start);
  const to = end === void 0 ? void 0 : timeOf("end", end);
  if (from !== void 0 && to !== void 0 && from > to) {
    throw new BadRequestHttpError(`${nameOf("start")} (${start}) is after ${nameOf("end")} (${end}).`, CODE);
  }
  return {
    ip: ip?.toLowerCase(),
    method: method?.toUpperCase(),
    statusCode: status === void 0 ? void 0 : Number(status),
    url,
    token: token?.toLowerCase(),
    start: from,
    end: to,
    limit: limit === void 0 ? DEFAULT_LIMIT : Number(limit)
  };
}
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?(Z|[+-]\d{2}:\d{2})?$/i;
function parseTime(value, endOfDay) {
  if (/^\d{1,15}$/.test(value)) return Number(value);
  const match = ISO_TIME.exec(value);
  if (!match) return void 0;
  const [, y, mo, d, h, mi, s, frac, zone] = match;
  const parts = [Number(y), Number(mo) - 1, Number(d), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0), Number((frac ?? "0").padEnd(3, "0"))];
  const utc = new Date(Date.UTC(...parts));
  const fields = [utc.getUTCFullYear(), utc.getUTCMonth(), utc.getUTCDate(), utc.getUTCHours(), utc.getUTCMinutes(), utc.getUTCSeconds()];
  if (fields.some((field, i) => field !== parts[i])) return void 0;
  let time = utc.getTime();
  if (zone && zone.toUpperCase() !== "Z") {
    const [zh, zm] = zone.slice(1).split(":").map(Number);
    if (zh > 23 || zm > 59) return void 0;
    time -= (zone.startsWith("-") ? -1 : 1) * (zh * 60 + zm) * 6e4;
  }
  return h === void 0 && endOfDay ? time + 864e5 - 1 : time;
}
export {
  DEFAULT_LIMIT,
  MAX_LIMIT,
  SEARCH_FIELDS,
  parseSearchFilters,
  parseTime
};
//# sourceMappingURL=search-filters.js.map
