import { existsSync, readFileSync } from "node:fs";
import { isIP } from "node:net";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { parse as parseDotenv } from "dotenv";
const DEFAULT_CORS_ALLOW_ORIGIN = "^https?://(localhost|127\\.0\\.0\\.1)(:[0-9]+)?$";
class ConfigError extends Error {
  constructor(variable, problem) {
    super(`${variable}: ${problem}`);
    this.variable = variable;
  }
  variable;
  name = "ConfigError";
}
function environment(cwd = process.cwd(), env = process.env) {
  const file = resolve(cwd, ".env");
  const fromFile = existsSync(file) ? parseDotenv(readFileSync(file)) : {};
  return { ...fromFile, ...env };
}
function loadConfig(env = environment(), cwd = process.cwd()) {
  const appEnv = oneOf(env, "APP_ENV", ["dev", "prod"], "dev");
  const debug = flag(env, "APP_DEBUG", appEnv === "dev");
  const tlsCert = path(env, "TLS_CERT", cwd);
  const tlsKey = path(env, "TLS_KEY", cwd);
  if (tlsCert === void 0 !== (tlsKey === void 0)) {
    throw new ConfigError(tlsCert ? "TLS_KEY" : "TLS_CERT", "TLS_CERT and TLS_KEY must be set together");
  }
  const varDir = path(env, "VAR_DIR", cwd) ?? resolve(cwd, "var");
  return {
    appEnv,
    debug,
    host: hostName(env, "HOST", "localhost"),
    port: integer(env, "PORT", 8443, 0, 65535),
    tls: flag(env, "TLS", true),
    varDir,
    routes: path(env, "ROUTES", cwd),
    tlsCert,
    tlsKey,
    trustedProxies: ipList(env, "TRUSTED_PROXIES"),
    trustedHosts: regexList(env, "TRUSTED_HOSTS", "i"),
    logLevel: oneOf(env, "LOG_LEVEL", ["fatal", "error", "warn", "info", "debug", "trace", "silent"], "info"),
    profilerStore: storeDsn(env, "PROFILER_DSN", cwd, `sqlite:${resolve(varDir, "profiler.sqlite")}`),
    // Tokens repeat only after 2^24 (16.7 million) are issued: retention must keep far fewer.
    profilerMaxReports: integer(env, "PROFILER_MAX_REPORTS", 1e4, 1, 5e6),
    profilerMaxAgeMs: duration(env, "PROFILER_MAX_AGE", 2 * DAY_MS),
    profilerAllow: ipList(env, "PROFILER_ALLOW"),
    profilerRedact: nameList(env, "PROFILER_REDACT"),
    cors: {
      allowOrigin: regex(env, "CORS_ALLOW_ORIGIN", DEFAULT_CORS_ALLOW_ORIGIN, "i"),
      allowMethods: list(env, "CORS_ALLOW_METHODS", "GET, OPTIONS, POST, PUT, PATCH, DELETE", /^[A-Za-z]+$/).map((m) => m.toUpperCase()),
      allowHeaders: list(env, "CORS_ALLOW_HEADERS", "content-type, authorization", HEADER_NAME).map((h) => h.toLowerCase()),
      exposeHeaders: list(env, "CORS_EXPOSE_HEADERS", "link", HEADER_NAME),
      maxAge: integer(env, "CORS_MAX_AGE", 3600, 0, 2147483647)
    },
    postMaxSize: byteSize(env, "POST_MAX_SIZE", "100M", { unlimited: "0" }),
    uploadMaxFilesize: byteSize(env, "UPLOAD_MAX_FILESIZE", "100M", { min: 1 }),
    maxExecutionTime: integer(env, "MAX_EXECUTION_TIME", 660, 0, MAX_TIMER_SECONDS),
    memoryLimit: byteSize(env, "MEMORY_LIMIT", "512M", { unlimited: "-1", min: 1024 * 1024 }),
    isolatedWorkers: integer(env, "ISOLATED_WORKERS", Math.min(availableParallelism(), 8), 1, 64),
    parsedBodyMaxSize: byteSize(env, "PARSED_BODY_MAX_SIZE", "512K", { unlimited: "0" }),
    bodyTimeoutMs: timeout(env, "BODY_TIMEOUT", 6e4, { none: true }),
    handshakeTimeoutMs: timeout(env, "HANDSHAKE_TIMEOUT", 1e4),
    maxConnections: integer(env, "MAX_CONNECTIONS", 1e4, 0, 1e6) || Infinity,
    shutdownTimeoutMs: timeout(env, "SHUTDOWN_TIMEOUT", 3e4)
  };
}
const MAX_TIMER_SECONDS = 2147483;
const UNITS = { "": 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 };
function byteSize(env, name, fallback, rule) {
  const text = raw(env, name) ?? fallback;
  if (rule.unlimited !== void 0 && text === rule.unlimited) return { bytes: Infinity, text };
  const match = /^(\d+)([KMG]?)$/i.exec(text);
  const bytes = match ? Number(match[1]) * UNITS[match[2].toUpperCase()] : NaN;
  const allowed = rule.unlimited === void 0 ? "" : `, or ${rule.unlimited} for no limit`;
  if (!Number.isSafeInteger(bytes)) {
    throw new ConfigError(name, `"${text}" is not a size: use bytes or a number with K, M or G, e.g. 100M${allowed}`);
  }
  const min = rule.min ?? 0;
  if (bytes < min) throw new ConfigError(name, `"${text}" is below the minimum of ${formatBytes(min)}${allowed}`);
  return { bytes, text };
}
function formatBytes(bytes) {
  if (bytes >= 1024 ** 2 && bytes % 1024 ** 2 === 0) return `${bytes / 1024 ** 2}M`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024}K`;
  return `${bytes} byte${bytes === 1 ? "" : "s"}`;
}
function raw(env, name) {
  const value = env[name]?.trim();
  return value === "" ? void 0 : value;
}
function oneOf(env, name, allowed, fallback) {
  const value = raw(env, name);
  if (value === void 0) return fallback;
  if (allowed.includes(value)) return value;
  throw new ConfigError(name, `"${value}" is not one of ${allowed.join(", ")}`);
}
function flag(env, name, fallback) {
  const value = raw(env, name)?.toLowerCase();
  if (value === void 0) return fallback;
  if (["1", "true", "on", "yes"].includes(value)) return true;
  if (["0", "false", "off", "no"].includes(value)) return false;
  throw new ConfigError(name, `"${env[name]}" is not a boolean (use 1 or 0)`);
}
function integer(env, name, fallback, min, max) {
  const value = raw(env, name);
  if (value === void 0) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(name, `"${value}" is not a whole number from ${min} to ${max}`);
  }
  return Number(value);
}
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
function regex(env, name, fallback, flags) {
  const value = raw(env, name) ?? fallback;
  try {
    return new RegExp(value, flags);
  } catch (error) {
    throw new ConfigError(name, `"${value}" is not a valid regular expression: ${error.message}`);
  }
}
function regexList(env, name, flags) {
  const value = raw(env, name);
  if (value === void 0) return [];
  return value.split(",").map((entry) => {
    const item = entry.trim();
    if (item === "") throw new ConfigError(name, `"${value}" has an empty item`);
    try {
      return new RegExp(item, flags);
    } catch (error) {
      throw new ConfigError(name, `"${item}" is not a valid regular expression: ${error.message}`);
    }
  });
}
function list(env, name, fallback, item) {
  const value = raw(env, name) ?? fallback;
  const items = value.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "");
  const bad = items.find((entry) => !item.test(entry));
  if (bad !== void 0) throw new ConfigError(name, `"${bad}" is not a valid list item`);
  return items;
}
function path(env, name, cwd) {
  const value = raw(env, name);
  return value === void 0 ? void 0 : resolve(cwd, value);
}
function hostName(env, name, fallback) {
  const value = raw(env, name) ?? fallback;
  if (isIP(value) || /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(value)) return value;
  throw new ConfigError(name, `"${value}" is not a host name or IP address`);
}
const DURATION_UNITS_MS = { s: 1e3, m: 6e4, h: 36e5, d: 864e5 };
const DAY_MS = DURATION_UNITS_MS.d;
const MAX_DURATION_MS = 3650 * DAY_MS;
const MAX_TIMEOUT_MS = 24 * DAY_MS;
const DURATION_SYNTAX = "(a number of seconds, or with a unit: 90s, 30m, 48h, 2d)";
function durationMs(value) {
  const match = /^(\d+)\s*([smhd]?)$/i.exec(value);
  return match ? Number(match[1]) * DURATION_UNITS_MS[(match[2] || "s").toLowerCase()] : Number.NaN;
}
function duration(env, name, fallbackMs) {
  const value = raw(env, name);
  if (value === void 0) return fallbackMs;
  const ms = durationMs(value);
  if (!(ms >= 1e3 && ms <= MAX_DURATION_MS)) {
    throw new ConfigError(name, `"${value}" is not a duration from 1s to 3650d ${DURATION_SYNTAX}`);
  }
  return ms;
}
function timeout(env, name, fallbackMs, rule = {}) {
  const value = raw(env, name);
  if (value === void 0) return fallbackMs;
  if (rule.none && value === "0") return 0;
  const ms = durationMs(value);
  if (!(ms >= 1e3 && ms <= MAX_TIMEOUT_MS)) {
    throw new ConfigError(name, `"${value}" is not a duration from 1s to 24d ${DURATION_SYNTAX}${rule.none ? ", or 0 for none" : ""}`);
  }
  return ms;
}
const SUPPORTED_STORES = "the supported scheme is sqlite:<path> (a SQLite file, e.g. sqlite:var/profiler.sqlite)";
function storeDsn(env, name, cwd, fallback) {
  const value = raw(env, name) ?? fallback;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1];
  if (scheme === void 0) throw new ConfigError(name, `"${value}" has no scheme; ${SUPPORTED_STORES}`);
  if (scheme.toLowerCase() !== "sqlite") throw new ConfigError(name, `the scheme "${scheme}:" is not supported; ${SUPPORTED_STORES}`);
  const file = value.slice(scheme.length + 1);
  if (file.trim() === "") throw new ConfigError(name, "sqlite: needs the path of the SQLite file, e.g. sqlite:var/profiler.sqlite");
  return { scheme: "sqlite", file: resolve(cwd, file) };
}
function nameList(env, name) {
  const value = raw(env, name);
  if (value === void 0) return [];
  return value.split(",").map((entry) => {
    const item = entry.trim();
    if (!/^[^\s=&,]+$/.test(item)) throw new ConfigError(name, `"${item}" is not a header or query parameter name`);
    return item.toLowerCase();
  });
}
function ipList(env, name) {
  const value = raw(env, name);
  if (value === void 0) return [];
  return value.split(",").map((entry) => {
    const item = entry.trim();
    const [address = "", bits, extra] = item.split("/");
    const family = isIP(address);
    const maxBits = family === 6 ? 128 : 32;
    const bitsOk = bits === void 0 || /^\d+$/.test(bits) && Number(bits) <= maxBits;
    if (family === 0 || !bitsOk || extra !== void 0) {
      throw new ConfigError(name, `"${item}" is not an IP address or CIDR range`);
    }
    return item;
  });
}
export {
  ConfigError,
  DEFAULT_CORS_ALLOW_ORIGIN,
  byteSize,
  duration,
  environment,
  flag,
  integer,
  ipList,
  loadConfig,
  timeout
};
//# sourceMappingURL=config.js.map
