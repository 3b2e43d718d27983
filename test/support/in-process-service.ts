/**
 * The service in the test's own process: the same start as `npm start` (`src/server/start.ts`
 * with the kernel of `src/app.ts`, the configuration read from the same settings, a real
 * listener on a free port, real HTTPS), without a process of its own to boot, for tests
 * that only talk to it. Tests that signal it, read its memory or its workers, watch it
 * exit or set its process's environment (NODE_OPTIONS, TMPDIR) use `startService`
 * (`service.ts`): here those fields and settings throw.
 */
import { readFileSync } from 'node:fs';
import { createKernel } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import { startService as startKernelService } from '../../src/server/start.js';
import { startupBanner } from '../../src/server/startup-banner.js';
import { builtFile } from './kernel-build.js';
import { ROOT } from './root.js';
import { serviceSettings, type Service, type StartOptions } from './service.js';

/** Settings that Node or the operating system read from a process's environment, not the kernel's configuration. */
const PROCESS_SETTINGS = ['NODE_OPTIONS', 'TMPDIR', 'TZ', 'LANG', 'LC_ALL'];

function noProcess(field: string): never {
  throw new Error(`an in-process service has no ${field} of its own: start it with startService`);
}

export async function startInProcess(env: Record<string, string> = {}, options: StartOptions = {}): Promise<Service> {
  const processSetting = PROCESS_SETTINGS.find((name) => name in env);
  if (processSetting) throw new Error(`${processSetting} applies to a process: start the service with startService`);
  const { settings, varDir, certificateFile } = await serviceSettings(env, options);
  const routes = env.ROUTES === undefined ? {} : { ROUTES: builtFile(env.ROUTES) ?? env.ROUTES };
  // The settings a child process would get (service.ts), and nothing of this process's environment.
  const config = loadConfig({ ...settings, ...routes }, ROOT);
  let output = '';
  const logOutput = { write: (line: string) => void (output += line) };
  const running = await startKernelService(config, (kernelOptions) => createKernel({ ...kernelOptions, logOutput }));
  const { routes: table, profiler } = running.kernel;
  const routeCount = table.known.filter((route) => !route.name.startsWith('_profiler')).length;
  output += startupBanner(config, { url: running.url, routeCount, store: profiler?.store.location });
  let stopped: Promise<void> | undefined;
  return {
    url: running.url,
    port: Number(new URL(running.url).port),
    get pid(): number {
      return noProcess('process id');
    },
    varDir,
    ca: config.tls ? readFileSync(certificateFile, 'utf8') : undefined,
    output: () => output,
    stop: () => (stopped ??= running.stop()),
    signal: () => noProcess('process to signal'),
    signalGroup: () => noProcess('process group to signal'),
    get exited(): Service['exited'] {
      return noProcess('process to exit');
    },
  };
}
