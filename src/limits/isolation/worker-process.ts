/**
 * The entry of an isolated worker process. A handler cannot be sent to another process, so the worker
 * imports the same routes module (argv[2]) and keeps the isolated handlers by route name; the kernel
 * sends it "run route N with this input" and gets data or an error back.
 */
import { pathToFileURL } from 'node:url';
import { installStackTraces } from '../../debug/stack-trace.js';
import { traceClientErrors } from '../../errors/http-errors.js';
import { handlerSite } from '../../routing/register-routes.js';
import {
  Routes,
  type IsolatedLog,
  type IsolatedRouteHandler,
  type RouteDefinition,
  type RoutesDeclaration,
} from '../../routing/routes.js';
import { serializeError, type FromWorker, type ToWorker } from './protocol.js';

const [routesModule, limitArgument] = process.argv.slice(2);
const memoryLimit = Number(limitArgument);
const SELF_CHECK_MS = 20;
const SETTLE_MS = 20;

const send = (message: FromWorker) => process.send!(message);
// Present because the kernel starts workers with --expose-gc.
const collectGarbage = (globalThis as { gc?: () => void }).gc;
// The kernel is gone (or let this worker go): nothing left to do.
process.on('disconnect', () => process.exit(0));
// A terminal's Ctrl-C or systemd's stop signals the whole process group: the service drains
// its requests, these included, and then its pool stops this worker.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => undefined);
// This process is the kernel's own: a thrown error's frames (4xx too) go to the kernel, which
// shows them in debug mode only.
installStackTraces();
traceClientErrors();

const module = (await import(pathToFileURL(routesModule!).href)) as { default?: unknown; routes?: unknown };
const declare = (module.default ?? module.routes) as RoutesDeclaration;
const routes = new Routes();
await declare(routes);
const isolatedRoutes = new Map<string, RouteDefinition>(
  routes.definitions.filter((route) => route.isolated).map((route) => [route.name, route]),
);

process.on('message', (message: ToWorker) => {
  if (message.type === 'run') void run(message);
});
send({ type: 'ready', routes: [...isolatedRoutes.keys()] });

async function run({ id, route, input }: ToWorker): Promise<void> {
  const baseline = allocated();
  const check = Number.isFinite(memoryLimit)
    ? setInterval(() => {
        const bytes = allocated() - baseline;
        if (bytes > memoryLimit) send({ type: 'memory', id, bytes });
      }, SELF_CHECK_MS)
    : undefined;
  const definition = isolatedRoutes.get(route);
  try {
    if (!definition) throw new Error(`No isolated route is named "${route}" in ${routesModule}`);
    const value = await (definition.handler as IsolatedRouteHandler)({ ...input, log: logFor(id) });
    // A handler that allocated and returned between two checks is measured once more here.
    const bytes = allocated() - baseline;
    if (bytes > memoryLimit) send({ type: 'memory', id, bytes });
    else sendResult(id, value);
  } catch (error) {
    send({ type: 'error', id, error: serializeError(error, definition && handlerSite(definition)) });
  } finally {
    clearInterval(check);
  }
  // The answer is on its way; now drop the request's garbage, so that the next request
  // starts from a worker near its idle size (the kernel measures it before reusing it).
  collectGarbage?.();
  // ArrayBuffer memory is freed by V8's sweeper after the collection, not during it.
  setTimeout(() => send({ type: 'settled', id }), SETTLE_MS);
}

function sendResult(id: number, value: unknown): void {
  try {
    send({ type: 'result', id, value });
  } catch (error) {
    throw new TypeError(
      `An isolated handler must return data that can be copied to the service (text, a Buffer, plain objects): ${(error as Error).message}`,
    );
  }
}

/**
 * What the handler can have allocated: the V8 heap and memory outside it (Buffers, typed arrays).
 * The kernel measures the process from outside; this is read whenever the handler yields.
 */
function allocated(): number {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

function logFor(id: number): IsolatedLog {
  const at = (level: 'debug' | 'info' | 'warn' | 'error') => (message: string, details?: Record<string, unknown>) =>
    send({ type: 'log', id, level, message, ...(details ? { details } : {}) });
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
