/**
 * Each request's logger, made when the request's code first uses it: Fastify asks for a
 * child logger per request (bound to its id), and most requests in production never log,
 * so the pino child is made on the first call and then kept. Its lines are the ones the
 * child would have written from the start: same bindings, same options. The deferral rides
 * on the logger's own `child`, so Fastify keeps its default child factory and does not check
 * each request's logger as it checks one a factory of the application's makes.
 * Fastify's own line per request, at its start and its end, is dropped here: the profiler
 * keeps it all, and the access log says it when wanted.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString } from 'pino';

type LogMethod = FastifyBaseLogger['info'];
type MakeChild = FastifyBaseLogger['child'];

/**
 * `logger` with deferred children: a child given bindings (Fastify's for each request, and the
 * application's own) is made on its first write; a child binding nothing (the logger Fastify
 * makes of the one it is given, `app.log`) at once. A pino child inherits its
 * parent's `child`, so the loggers below defer theirs too. The result inherits from
 * `logger`, which is left as it was.
 */
export function deferringChildren(logger: FastifyBaseLogger): FastifyBaseLogger {
  const makeChild = logger.child;
  const deferring = Object.create(logger) as FastifyBaseLogger;
  deferring.child = function child(this: FastifyBaseLogger, bindings: Bindings, options?: ChildLoggerOptions) {
    return bindsAnything(bindings)
      ? (new DeferredLogger(this, makeChild, bindings, options ?? {}) as unknown as FastifyBaseLogger)
      : makeChild.call(this, bindings, options);
  } as MakeChild;
  return deferring;
}

/**
 * The info lines Fastify writes for every request (its LogController's): dropped by the
 * logger rather than by a `logController` option, whose class must be the very copy of
 * fastify the application runs (NestJS's adapter brings its own), or by the top-level
 * `disableRequestLogging`, which Fastify 5.12 warns of at every start.
 */
const FASTIFY_REQUEST_LINES = new Set(['incoming request', 'request completed']);

function bindsAnything(bindings: Bindings): boolean {
  for (const _ in bindings) return true;
  return false;
}

/** The logger methods pino's child offers a request's code, each made real on first use. */
class DeferredLogger {
  readonly #parent: FastifyBaseLogger;
  readonly #makeChild: MakeChild;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger, makeChild: MakeChild, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#makeChild = makeChild;
    this.#bindings = bindings;
    this.#options = options;
  }

  /** The pino child, made now if no call needed it before. */
  get #logger(): FastifyBaseLogger {
    return (this.#child ??= this.#makeChild.call(this.#parent, this.#bindings, this.#options));
  }

  /**
   * Whether a call at `level` would write: a call the parent's level drops makes no child,
   * unless the child has a level of its own (a route's `logLevel`) or already exists.
   */
  #writes(level: string): boolean {
    if (this.#child !== undefined || this.#options.level !== undefined) return true;
    const parent = this.#parent as FastifyBaseLogger & { isLevelEnabled?(level: string): boolean };
    return parent.isLevelEnabled === undefined || parent.isLevelEnabled(level);
  }

  get level(): string {
    return this.#logger.level;
  }

  set level(level: string) {
    this.#logger.level = level;
  }

  fatal(...args: Parameters<LogMethod>): void {
    if (this.#writes('fatal')) this.#logger.fatal(...args);
  }

  error(...args: Parameters<LogMethod>): void {
    if (this.#writes('error')) this.#logger.error(...args);
  }

  warn(...args: Parameters<LogMethod>): void {
    if (this.#writes('warn')) this.#logger.warn(...args);
  }

  info(...args: Parameters<LogMethod>): void {
    if (FASTIFY_REQUEST_LINES.has(args[1] as string)) return;
    if (this.#writes('info')) this.#logger.info(...args);
  }

  debug(...args: Parameters<LogMethod>): void {
    if (this.#writes('debug')) this.#logger.debug(...args);
  }

  trace(...args: Parameters<LogMethod>): void {
    if (this.#writes('trace')) this.#logger.trace(...args);
  }

  silent(...args: Parameters<LogMethod>): void {
    this.#logger.silent(...args);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger.child(bindings, options);
  }

  bindings(): Bindings {
    return (this.#logger as unknown as { bindings(): Bindings }).bindings();
  }

  setBindings(bindings: Bindings): void {
    (this.#logger as unknown as { setBindings(bindings: Bindings): void }).setBindings(bindings);
  }

  isLevelEnabled(level: LevelWithSilentOrString): boolean {
    return (this.#logger as unknown as { isLevelEnabled(level: LevelWithSilentOrString): boolean }).isLevelEnabled(
      level,
    );
  }

  flush(callback?: (error?: Error) => void): void {
    (this.#logger as unknown as { flush(callback?: (error?: Error) => void): void }).flush(callback);
  }
}
