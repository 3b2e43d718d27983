/**
 * The primary's log (WORKERS above 1): JSON lines on stdout in the workers' format (pino's
 * fields: level, time, pid, hostname, msg), under the same LOG_LEVEL, so that one stream
 * reads as one log. The primary has no Fastify to lend it a logger.
 */
import { hostname } from 'node:os';

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity } as const;

type PrimaryLogLevel = 'info' | 'warn' | 'error';

export class PrimaryLog {
  private readonly threshold: number;
  private readonly host = hostname();

  constructor(
    level: string,
    private readonly output: { write(line: string): unknown } = process.stdout,
  ) {
    this.threshold = LEVELS[level as keyof typeof LEVELS] ?? LEVELS.info;
  }

  info(message: string, fields: Record<string, unknown> = {}): void {
    this.line('info', message, fields);
  }

  warn(message: string, fields: Record<string, unknown> = {}): void {
    this.line('warn', message, fields);
  }

  error(message: string, fields: Record<string, unknown> = {}): void {
    this.line('error', message, fields);
  }

  private line(level: PrimaryLogLevel, msg: string, fields: Record<string, unknown>): void {
    if (LEVELS[level] < this.threshold) return;
    this.output.write(
      `${JSON.stringify({ level: LEVELS[level], time: Date.now(), pid: process.pid, hostname: this.host, ...fields, msg })}\n`,
    );
  }
}
