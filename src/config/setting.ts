/** What a setting is: how the table of `settings.ts` declares one, and the groups it lists them under. */
import type { Env } from './environment.js';

/** How a setting is read: `env` holds its value, or its default when the environment gives none. */
interface SettingContext {
  cwd: string;
  /** No value in the environment: the setting has its default (or none). */
  fromDefault: boolean;
}

/** One setting, as the table of `settings.ts` declares it for `loadConfig`, `--help` and `docs/configuration.md`. */
export interface Setting<T, Field extends string = string, Group extends SettingGroup = SettingGroup> {
  group: Group;
  /** The field of `Config` that holds the parsed value; none where `loadConfig` derives the field from several. */
  field?: Field;
  /** The default as it would be written in the environment; the parser reads it like a given value. */
  default?: string;
  /** The default in words where it is no value of its own (derived from other settings); otherwise none. */
  defaultText?: string;
  /** The value that lifts the limit, and what it then means (`0: no limit`). */
  off?: string;
  /** One line: what the setting does. */
  description: string;
  parse(env: Env, name: string, context: SettingContext): T;
}

/** Declares one setting, keeping its value's type, its field and its group for the `Config` type. */
export const setting = <T, Field extends string = never, Group extends SettingGroup = SettingGroup>(
  declared: Setting<T, Field, Group>,
) => declared;

export type SettingGroup = keyof typeof SETTING_GROUPS;

/** The headings settings are listed under, in order. */
export const SETTING_GROUPS = {
  service: 'The service',
  profiler: 'The profiler',
  cors: 'Cross-origin requests (CORS)',
  limits: 'Per-request limits (php.ini names and syntax: bytes, or a number with K, M or G)',
  connections: 'Connections (durations: seconds, or 90s, 30m, 2h)',
} as const;
