import { ConfigError, environment, loadConfig } from "../config.js";
import { ReportStoreError } from "../profiler/storage/report-store.js";
import { UsageError } from "./command.js";
import { listCommand, purgeCommand, showCommand } from "./profiler-commands.js";
const COMMANDS = [listCommand, showCommand, purgeCommand];
function mainHelp() {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  return `vigil: the kernel's command line.

Usage: vigil <command> [options]        (from the project: npm run vigil -- <command> [options])

Commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`).join("\n")}

Run "vigil <command> --help" for a command's options. Reports are read from the store
PROFILER_DSN names (default sqlite:VAR_DIR/profiler.sqlite); both come from the environment
or .env (VAR_DIR defaults to var/).
`;
}
const STD_OUTPUT = { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) };
async function run(argv, { cwd = process.cwd(), env = environment(cwd), output = STD_OUTPUT } = {}) {
  const [name, ...args] = argv;
  if (name === void 0 || name === "--help" || name === "-h" || name === "help") {
    const command2 = COMMANDS.find((candidate) => candidate.name === args[0]);
    output.out(command2 ? command2.help : mainHelp());
    return name === void 0 ? 2 : 0;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    output.err(`vigil: unknown command "${name}"

${mainHelp()}`);
    return 2;
  }
  if (args.includes("--help") || args.includes("-h")) {
    output.out(command.help);
    return 0;
  }
  try {
    return await command.run(args, loadConfig(env, cwd), output);
  } catch (error) {
    const code = error.code ?? "";
    if (error instanceof UsageError || error instanceof ConfigError || code.startsWith("ERR_PARSE_ARGS")) {
      output.err(`vigil ${name}: ${error.message}

${error instanceof ConfigError ? "" : command.help}`);
      return 2;
    }
    if (error instanceof ReportStoreError) {
      const hint = error.damaged ? "\nStarting the service moves a damaged store aside (nothing is deleted) and creates a new one." : "";
      output.err(`vigil ${name}: ${error.message}${hint}
`);
      return 1;
    }
    output.err(`vigil ${name}: ${error.stack ?? String(error)}
`);
    return 1;
  }
}
export {
  COMMANDS,
  mainHelp,
  run
};
//# sourceMappingURL=main.js.map
