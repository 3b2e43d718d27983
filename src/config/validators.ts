/**
 * The parsers of the settings' values: numbers, flags, sizes, durations, lists, regular
 * expressions, hosts, paths, IPs and CIDRs. Each reads one variable and throws a
 * {@link ConfigError} naming it when the value cannot be used.
 */
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { formatBytes } from '../utils/bytes.js';
import { ConfigError } from './config-error.js';
import { given, raw, type Env } from './environment.js';

/** A php.ini quantity: the bytes it means and the text the operator wrote (for messages). */
export interface ByteSize {
  /** Infinity when the setting means "no limit". */
  bytes: number;
  text: string;
}

/** WORKERS' ceiling: far beyond any core count, low enough that a typo cannot fork a thousand processes. */
const MAX_WORKERS = 256;

/** A whole number of processes from 1, or `auto`: one per core the process may use. */
export function workerCount(env: Env, name: string): number {
  const value = given(env, name);
  if (value.toLowerCase() === 'auto') return Math.min(availableParallelism(), MAX_WORKERS);
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > MAX_WORKERS) {
    throw new ConfigError(name, `"${value}" is not a whole number from 1 to ${MAX_WORKERS}, or auto (one per core)`);
  }
  return Number(value);
}

const UNITS: Record<string, number> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 };

/**
 * php.ini's quantity syntax: a whole number of bytes with an optional `K`, `M` or `G`
 * (powers of 1024, either case), e.g. `100M`. `unlimited` is the value that disables the
 * limit where PHP has one (`0` for post_max_size, `-1` for memory_limit).
 */
export function byteSize(env: Env, name: string, rule: { unlimited?: string; min?: number }): ByteSize {
  const text = given(env, name);
  if (rule.unlimited !== undefined && text === rule.unlimited) return { bytes: Infinity, text };
  const match = /^(\d+)([KMG]?)$/i.exec(text);
  const bytes = match ? Number(match[1]) * UNITS[match[2]!.toUpperCase()]! : NaN;
  const allowed = rule.unlimited === undefined ? '' : `, or ${rule.unlimited} for no limit`;
  if (!Number.isSafeInteger(bytes)) {
    throw new ConfigError(name, `"${text}" is not a size: use bytes or a number with K, M or G, e.g. 100M${allowed}`);
  }
  const min = rule.min ?? 0;
  if (bytes < min) throw new ConfigError(name, `"${text}" is below the minimum of ${formatBytes(min)}${allowed}`);
  return { bytes, text };
}

export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[]): T {
  const value = given(env, name);
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new ConfigError(name, `"${value}" is not one of ${allowed.join(', ')}`);
}

export function flag(env: Env, name: string): boolean {
  const value = given(env, name).toLowerCase();
  if (['1', 'true', 'on', 'yes'].includes(value)) return true;
  if (['0', 'false', 'off', 'no'].includes(value)) return false;
  throw new ConfigError(name, `"${env[name]}" is not a boolean (use 1 or 0)`);
}

export function integer(env: Env, name: string, min: number, max: number): number {
  const value = given(env, name);
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(name, `"${value}" is not a whole number from ${min} to ${max}`);
  }
  return Number(value);
}

export function regex(env: Env, name: string, flags: string): RegExp {
  return compiled(name, given(env, name), flags);
}

function compiled(name: string, source: string, flags: string): RegExp {
  try {
    return new RegExp(source, flags);
  } catch (error) {
    throw new ConfigError(name, `"${source}" is not a valid regular expression: ${(error as Error).message}`);
  }
}

/** Comma-separated regular expressions, each anchored as written (Symfony's TRUSTED_HOSTS). */
export function regexList(env: Env, name: string, flags: string): RegExp[] {
  const value = raw(env, name);
  if (value === undefined) return [];
  return value.split(',').map((entry) => {
    const item = entry.trim();
    if (item === '') throw new ConfigError(name, `"${value}" has an empty item`);
    return compiled(name, item, flags);
  });
}

/** A comma-separated list whose every item matches `item`. */
export function list(env: Env, name: string, item: RegExp): string[] {
  const value = given(env, name);
  const items = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const bad = items.find((entry) => !item.test(entry));
  if (bad !== undefined) throw new ConfigError(name, `"${bad}" is not a valid list item`);
  return items;
}

export function path(env: Env, name: string, cwd: string): string | undefined {
  const value = raw(env, name);
  return value === undefined ? undefined : resolve(cwd, value);
}

export function hostName(env: Env, name: string): string {
  const value = given(env, name);
  if (isIP(value) || /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(value)) return value;
  throw new ConfigError(name, `"${value}" is not a host name or IP address`);
}

const DURATION_UNITS_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DAY_MS = DURATION_UNITS_MS.d!;
const MAX_DURATION_MS = 3650 * DAY_MS;
/** Below setTimeout's ceiling (about 24.8 days), which would otherwise fire at once. */
const MAX_TIMEOUT_MS = 24 * DAY_MS;
const DURATION_SYNTAX = '(a number of seconds, or with a unit: 90s, 30m, 48h, 2d)';

/** `90`, `90s`, `30m`, `48h`, `2d` in milliseconds; NaN for anything else. */
function durationMs(value: string): number {
  const match = /^(\d+)\s*([smhd]?)$/i.exec(value);
  return match ? Number(match[1]) * DURATION_UNITS_MS[(match[2] || 's').toLowerCase()]! : Number.NaN;
}

/** A whole number of seconds, or a whole number with a unit: `90s`, `30m`, `48h`, `2d`. Returns milliseconds. */
export function duration(env: Env, name: string): number {
  const value = given(env, name);
  const ms = durationMs(value);
  if (!(ms >= 1000 && ms <= MAX_DURATION_MS)) {
    throw new ConfigError(name, `"${value}" is not a duration from 1s to 3650d ${DURATION_SYNTAX}`);
  }
  return ms;
}

/** A duration that may be short: `250ms`, or seconds as {@link duration} reads them, from 1ms to 24h. Returns milliseconds. */
export function shortDuration(env: Env, name: string): number {
  const value = given(env, name);
  const match = /^(\d+)\s*ms$/i.exec(value);
  const ms = match ? Number(match[1]) : durationMs(value);
  if (!(ms >= 1 && ms <= DAY_MS)) {
    throw new ConfigError(name, `"${value}" is not a duration from 1ms to 24h (250ms, 1s, 2m, 1h)`);
  }
  return ms;
}

/** A share from 0 to 1: `0`, `0.05`, `1`. */
export function fraction(env: Env, name: string): number {
  const value = given(env, name);
  const share = /^(\d+(\.\d*)?|\.\d+)$/.test(value) ? Number(value) : Number.NaN;
  if (!(share >= 0 && share <= 1)) throw new ConfigError(name, `"${value}" is not a share from 0 to 1, such as 0.05`);
  return share;
}

/**
 * A comma-separated list of `allowed` items, or `none` alone (an empty list). Repeats are
 * kept once.
 */
export function keepList<T extends string>(env: Env, name: string, allowed: readonly T[]): T[] {
  const value = given(env, name);
  const items = value.split(',').map((entry) => entry.trim().toLowerCase());
  if (items.length === 1 && items[0] === 'none') return [];
  const bad = items.find((item) => !(allowed as readonly string[]).includes(item));
  if (bad !== undefined)
    throw new ConfigError(name, `"${bad}" is not one of ${allowed.join(', ')} (comma-separated), or none alone`);
  return [...new Set(items as T[])];
}

/** A duration a timer waits, from 1s to 24d, in milliseconds; with `none`, `0` turns the timer off. */
export function timeout(env: Env, name: string, rule: { none?: boolean } = {}): number {
  const value = given(env, name);
  if (rule.none && value === '0') return 0;
  const ms = durationMs(value);
  if (!(ms >= 1000 && ms <= MAX_TIMEOUT_MS)) {
    throw new ConfigError(
      name,
      `"${value}" is not a duration from 1s to 24d ${DURATION_SYNTAX}${rule.none ? ', or 0 for none' : ''}`,
    );
  }
  return ms;
}

/** Comma-separated names (headers, query parameters): no spaces, `=`, `&` or `,` inside a name. */
export function nameList(env: Env, name: string): string[] {
  const value = raw(env, name);
  if (value === undefined) return [];
  return value.split(',').map((entry) => {
    const item = entry.trim();
    if (!/^[^\s=&,]+$/.test(item)) throw new ConfigError(name, `"${item}" is not a header or query parameter name`);
    return item.toLowerCase();
  });
}

/** Comma-separated IPs or CIDRs (`10.0.0.0/8`, `::1/128`). */
export function ipList(env: Env, name: string): string[] {
  const value = raw(env, name);
  if (value === undefined) return [];
  return value.split(',').map((entry) => {
    const item = entry.trim();
    const [address = '', bits, extra] = item.split('/');
    const family = isIP(address);
    const maxBits = family === 6 ? 128 : 32;
    const bitsOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= maxBits);
    if (family === 0 || !bitsOk || extra !== undefined) {
      throw new ConfigError(name, `"${item}" is not an IP address or CIDR range`);
    }
    return item;
  });
}

/** A secret of `minLength` characters or more; the message never repeats the value. */
export function secret(env: Env, name: string, minLength: number): string | undefined {
  const value = raw(env, name);
  if (value === undefined) return undefined;
  if (value.length < minLength) {
    throw new ConfigError(name, `is ${value.length} characters long; it must have at least ${minLength}`);
  }
  return value;
}
