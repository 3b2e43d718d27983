/** What a command of the `vigil` command line is, and how it reports a misuse. */
import type { Config } from '../config/index.js';

export interface Output {
  out(text: string): void;
  err(text: string): void;
}

export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Its options, for "did you mean" when one is mistyped (`--help` is always known). */
  options: readonly string[];
  /** The full `--help` text. */
  help: string;
  /** Resolves with the exit code. */
  run(args: string[], config: Config, output: Output): Promise<number>;
}

/** The command line was wrong: the message says how, and the exit code is 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
