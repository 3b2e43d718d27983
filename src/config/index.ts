/** The settings' floor: what the rest of the kernel and the package's users import. */
export { ConfigError } from './config-error.js';
export type { EditorLinkFormat } from './editor-link-format.js';
export { environment, PLATFORM_VARIABLES, type Env } from './environment.js';
export { describeMode, loadConfig, profilerRuns, type Config } from './load-config.js';
export { SETTING_GROUPS, type Setting } from './setting.js';
export { MAX_PARTS, SETTINGS, STANDALONE_PARSED_BODY_MAX_SIZE } from './settings.js';
export type { PostgresDsn, SqliteDsn, StoreDsn } from './store-dsn.js';
export type { ByteSize } from './validators.js';
