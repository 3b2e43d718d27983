/**
 * Keeps what a handler prints with `console` in its request's report (debug mode only):
 * each method is wrapped while a debug instance holds the tap, writes through to the real
 * console as before, and files the formatted line under the profiled request whose code
 * called it. A call outside any profiled request costs one lookup more than the console itself.
 */
import { format } from 'node:util';
import { currentScope } from '../../http/request-scope.js';
import { SharedInstall } from '../../utils/shared-install.js';

/** The methods kept, with the level their lines are shown at. */
const LEVELS = { log: 'info', info: 'info', debug: 'debug', warn: 'warn', error: 'error', trace: 'trace' } as const;
type Method = keyof typeof LEVELS;

interface Tap {
  install: SharedInstall;
  originals: Map<Method, Console[Method]>;
  wrappers: Map<Method, Console[Method]>;
}

const taps = new WeakMap<Console, Tap>();

/**
 * Wraps the console's methods for a holder (a debug instance) until it calls the returned
 * release: the first holder wraps them, the last release puts the originals back. A method
 * another tool wrapped after this one stays in its chain and writes straight through.
 */
export function tapConsole(target: Console = console): () => void {
  let tap = taps.get(target);
  if (tap === undefined) {
    tap = newTap(target);
    taps.set(target, tap);
  }
  return tap.install.hold();
}

function newTap(target: Console): Tap {
  const tap: Tap = {
    install: new SharedInstall(
      () => {
        for (const method of Object.keys(LEVELS) as Method[]) {
          // A wrapper left in another tool's chain by an earlier release is live again.
          if (tap.wrappers.has(method) && target[method] !== tap.wrappers.get(method)) continue;
          const original = target[method];
          tap.originals.set(method, original);
          const wrapper = wrap(tap, original, method);
          tap.wrappers.set(method, wrapper);
          target[method] = wrapper;
        }
      },
      () => {
        for (const [method, wrapper] of tap.wrappers) {
          if (target[method] !== wrapper) continue;
          target[method] = tap.originals.get(method)!;
          tap.wrappers.delete(method);
        }
      },
    ),
    originals: new Map(),
    wrappers: new Map(),
  };
  return tap;
}

function wrap(tap: Tap, original: Console[Method], method: Method): Console[Method] {
  const level = LEVELS[method];
  const logger = `console.${method}`;
  return function (this: unknown, ...args: unknown[]) {
    const lines = tap.install.held ? currentScope()?.lines : undefined;
    // Formatted now: an object printed may change after the call.
    if (lines) lines.add(logger, keptText(args, lines.redact), level);
    return original.apply(this, args);
  };
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
