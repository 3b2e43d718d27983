/**
 * The `vigil` command line: `vigil <command> [options]`. Reads the same settings as the
 * service (environment and `.env`), so commands see the service's VAR_DIR.
 */
import { ConfigError, environment, loadConfig, type Env } from '../config/index.js';
import { ReportStoreError } from '../profiler/storage/report-store.js';
import { AppModuleError } from './app-module.js';
import { UsageError, type Command, type Output } from './command.js';
import { exceptionsCommand } from './exceptions-command.js';
import { overviewCommand } from './overview-command.js';
import { listCommand, purgeCommand, showCommand } from './profiler-commands.js';
import { debugRouterCommand, routerMatchCommand } from './route-commands.js';
import { didYouMean } from './suggest.js';

const COMMANDS: readonly Command[] = [
  listCommand,
  showCommand,
  exceptionsCommand,
  overviewCommand,
  purgeCommand,
  debugRouterCommand,
  routerMatchCommand,
];

function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  return `vigil: the kernel's command line.

Usage: vigil <command> [options]        (from the project: npm run vigil -- <command> [options])

Commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`).join('\n')}

Run "vigil <command> --help" for a command's options. Reports are read from the store
PROFILER_DSN names (default sqlite:VAR_DIR/profiler.sqlite, or a postgres:// URL); both come
from the environment or .env (VAR_DIR defaults to var/).
`;
}

interface RunOptions {
  env?: Env;
  cwd?: string;
  output?: Output;
}

const STD_OUTPUT: Output = { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) };

/** Runs one command line; resolves with the exit code (0 done, 1 failed, 2 misused). */
export async function run(
  argv: string[],
  { cwd = process.cwd(), env = environment(cwd), output = STD_OUTPUT }: RunOptions = {},
): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const command = COMMANDS.find((candidate) => candidate.name === args[0]);
    output.out(command ? command.help : mainHelp());
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    const suggestion = didYouMean(
      name,
      COMMANDS.map((candidate) => candidate.name),
    );
    output.err(`vigil: unknown command "${name}".${suggestion}\n\n${mainHelp()}`);
    return 2;
  }
  if (args.includes('--help') || args.includes('-h')) {
    output.out(command.help);
    return 0;
  }
  try {
    return await command.run(args, loadConfig(env, cwd), output);
  } catch (error) {
    // parseArgs reports unknown options and missing values as TypeErrors with an ERR_PARSE_ARGS code.
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (error instanceof UsageError || error instanceof ConfigError || code.startsWith('ERR_PARSE_ARGS')) {
      const suggestion = code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? unknownOptionHint(error as Error, command) : '';
      const message = (error as Error).message.replace(/(?<![.!?])$/, suggestion ? '.' : '');
      output.err(`vigil ${name}: ${message}${suggestion}\n\n${error instanceof ConfigError ? '' : command.help}`);
      return 2;
    }
    if (error instanceof AppModuleError) {
      output.err(`vigil ${name}: ${error.message}\n`);
      return 1;
    }
    if (error instanceof ReportStoreError) {
      const hint = error.damaged
        ? '\nStarting the service moves a damaged store aside (nothing is deleted) and creates a new one.'
        : '';
      output.err(`vigil ${name}: ${error.message}${hint}\n`);
      return 1;
    }
    output.err(`vigil ${name}: ${(error as Error).stack ?? String(error)}\n`);
    return 1;
  }
}

/** parseArgs names the unknown option in quotes: `Unknown option '--status'`. */
function unknownOptionHint(error: Error, command: Command): string {
  const typed = /Unknown option '([^']+)'/.exec(error.message)?.[1];
  return typed === undefined ? '' : didYouMean(typed.split('=')[0]!, [...command.options, '--help']);
}
