/**
 * Keeps what a handler prints with `console` in its request's report (debug mode only):
 * each method is wrapped once per process, writes through to the real console as before,
 * and files the formatted line, its secrets redacted, under the profiled request whose
 * code called it. A call outside any profiled request costs one lookup more than the
 * console itself.
 */
import { format } from 'node:util';
import { currentScope } from '../http/request-scope.js';

/** The methods kept, with the level their lines are shown at. */
const LEVELS = { log: 'info', info: 'info', debug: 'debug', warn: 'warn', error: 'error', trace: 'trace' } as const;
type Method = keyof typeof LEVELS;

const TAPPED = Symbol.for('vigil.consoleTap');

/** Wraps the console's methods; later calls (a second kernel in the process) change nothing. */
export function tapConsole(target: Console = console): void {
  const marked = target as Console & { [TAPPED]?: true };
  if (marked[TAPPED]) return;
  marked[TAPPED] = true;
  for (const method of Object.keys(LEVELS) as Method[]) {
    const original = target[method];
    const level = LEVELS[method];
    const logger = `console.${method}`;
    target[method] = function (this: unknown, ...args: unknown[]) {
      const lines = currentScope()?.lines;
      // Formatted now: an object printed may change after the call.
      if (lines) lines.add(logger, keptText(args, lines.redact), level);
      return original.apply(this, args);
    };
  }
}

/**
 * The line as its report keeps it: each argument redacted as a structure before it is
 * formatted, since once formatted (`{ password: 'x' }`) its names are text that no longer
 * says which value is whose. An argument that cannot be read (a throwing Proxy) is not kept.
 */
function keptText(args: unknown[], redact: ((value: unknown) => unknown) | undefined): string {
  if (!redact) return format(...args);
  try {
    return format(...args.map(redact));
  } catch {
    return '[a console line whose arguments could not be read safely]';
  }
}
