/**
 * The one line a start that failed prints: the setting to change and the cause, never a
 * stack. System errors are told apart by what failed: a listen, a name lookup, or a file
 * under VAR_DIR or named by TLS_CERT/TLS_KEY.
 */
import { relative, isAbsolute } from 'node:path';
import { ConfigError, type Config } from '../config/index.js';
import { ReportStoreError } from '../profiler/storage/report-store.js';
import { RouteDefinitionError } from '../routing/routes.js';

type Settings = Pick<Config, 'varDir' | 'tlsCert' | 'tlsKey' | 'host'>;

const VERBS: Record<string, string> = {
  mkdir: 'create',
  open: 'open',
  write: 'write',
  read: 'read',
  rename: 'rename',
  chmod: 'change the mode of',
  unlink: 'remove',
  scandir: 'read',
  stat: 'read',
  lstat: 'read',
  access: 'reach',
};

/** The line after "vigil: cannot start: ", for an error that stopped the start. */
export function startFailureLine(error: unknown, settings: Settings | undefined): string {
  if (error instanceof ConfigError || error instanceof RouteDefinitionError) return error.message;
  // A store under VAR_DIR (the default place) is that setting's; any other is PROFILER_DSN's.
  if (error instanceof ReportStoreError)
    return `${settingOf(error.location, settings) ?? 'PROFILER_DSN'}: ${error.message}`;
  const failure = error as NodeJS.ErrnoException & { hostname?: string };
  if (failure?.syscall === 'listen' || failure?.code === 'EADDRINUSE') return `${failure.message} (set HOST or PORT)`;
  if (failure?.syscall === 'getaddrinfo')
    return `HOST: ${failure.hostname ?? settings?.host} cannot be resolved (${failure.code})`;
  if (typeof failure?.path === 'string' && typeof failure.code === 'string') {
    const setting = settingOf(failure.path, settings);
    const what = `cannot ${VERBS[failure.syscall ?? ''] ?? `${failure.syscall ?? 'use'}`} ${failure.path}: ${failure.code} (${describe(failure)})`;
    return setting ? `${setting}: ${what}` : what;
  }
  // Not a failure the kernel foresaw: the message alone, on one line.
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return message.replace(/\s*\n\s*/g, ' ');
}

/** The setting a path comes from, if any. */
function settingOf(path: string, settings: Settings | undefined): string | undefined {
  if (!settings) return undefined;
  if (path === settings.tlsCert) return 'TLS_CERT';
  if (path === settings.tlsKey) return 'TLS_KEY';
  const inside = relative(settings.varDir, path);
  return !inside.startsWith('..') && !isAbsolute(inside) ? 'VAR_DIR' : undefined;
}

/** "permission denied" from "EACCES: permission denied, mkdir '/x'". */
function describe(error: NodeJS.ErrnoException): string {
  return /^[A-Z0-9_]+: ([^,]+)/.exec(error.message)?.[1] ?? error.message;
}
