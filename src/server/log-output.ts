/**
 * Where log lines go. For a person at a terminal in debug mode: pino-pretty, one readable
 * line per entry, and an access line per request. Anywhere else (a pipe, a file, a log
 * collector, production): pino's JSON lines, and no line per request.
 */
import { createRequire } from 'node:module';
import type { Config } from '../config/index.js';
import { isMissing } from '../optional-package.js';

export interface LogOutput {
  write(line: string): unknown;
}

/**
 * The pretty stream when `stdout` is a terminal and debug is on; undefined for pino's JSON on
 * stdout. pino-pretty is loaded only then: its start-up CPU is not paid by a service writing
 * to a pipe or a file.
 */
export async function prettyLogOutput(
  config: Pick<Config, 'debug'>,
  stdout: { isTTY?: boolean; fd: number } = process.stdout,
): Promise<LogOutput | undefined> {
  if (!config.debug || !stdout.isTTY) return undefined;
  try {
    const { default: pretty } = await import('pino-pretty');
    return prettyLines(pretty, stdout.fd);
  } catch (error) {
    return withoutPretty(error);
  }
}

/** The same, loaded at once: for `vigilFastifyOptions`, which Fastify's constructor takes synchronously. */
export function prettyLogOutputSync(
  config: Pick<Config, 'debug'>,
  stdout: { isTTY?: boolean; fd: number } = process.stdout,
): LogOutput | undefined {
  if (!config.debug || !stdout.isTTY) return undefined;
  try {
    return prettyLines(createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty'), stdout.fd);
  } catch (error) {
    return withoutPretty(error);
  }
}

let saidJson = false;

/**
 * pino-pretty is an optional peer, which `npm install fastify fastify-vigil` does not bring:
 * without it the lines are pino's JSON, and one line says how to get readable ones.
 */
function withoutPretty(error: unknown): undefined {
  if (!isMissing(error, 'pino-pretty')) throw error;
  if (!saidJson) {
    saidJson = true;
    process.stderr.write(
      'vigil: logs are JSON lines; for readable ones at a terminal, install pino-pretty (npm install pino-pretty)\n',
    );
  }
  return undefined;
}

/** Lines written through pino-pretty to `fd`, each made terminal-safe first. */
function prettyLines(pretty: typeof import('pino-pretty'), fd: number): LogOutput {
  // In this thread, not a transport's: lines keep their order with what the kernel prints itself.
  const stream = pretty({
    destination: fd,
    sync: true,
    colorize: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,reqId',
  });
  return { write: (line) => stream.write(terminalSafeJson(line)) };
}

/** Loggers whose lines go to a terminal, pretty: the plugin logs an access line per request for them. */
const prettyLoggers = new WeakSet<object>();

export function markPretty(logger: object): void {
  prettyLoggers.add(logger);
}

/** True for a logger made for a terminal, or a child of one. */
export function isPretty(logger: object): boolean {
  for (let link: object | null = logger; link !== null; link = Object.getPrototypeOf(link) as object | null)
    if (prettyLoggers.has(link)) return true;
  return false;
}

/**
 * A JSON log line whose strings can no longer drive the terminal: a control character a
 * client put in a URL or a header would reach the screen raw once pino-pretty parses the
 * line, so its escape is escaped once more and it prints as the text `\u001b`. Bidi
 * controls, which reorder what a line seems to say, print as their escapes too.
 */
export function terminalSafeJson(line: string): string {
  return line.replace(
    /(\\\\)|\\u00([01][0-9a-fA-F]|7[fF])|([\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069])/g,
    (whole, backslash: string | undefined, code: string | undefined, c1: string | undefined) => {
      if (backslash !== undefined) return whole;
      if (code !== undefined) return `\\\\u00${code}`;
      return `\\\\u${c1!.charCodeAt(0).toString(16).padStart(4, '0')}`;
    },
  );
}
