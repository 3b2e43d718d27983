/** Reading the debug headers and source lines the tests compare answers with. */
import { readFileSync } from 'node:fs';

interface WithHeaders {
  headers: Record<string, unknown>;
}

/** The exception message, decoded from `x-debug-exception`. */
export const debugMessage = (answer: WithHeaders): string =>
  decodeURIComponent(String(answer.headers['x-debug-exception']));

/** The report's token, from `x-debug-token`. */
export const tokenOf = (answer: WithHeaders): string => String(answer.headers['x-debug-token']);

/** The file and line of `x-debug-exception-file`, decoded. */
export function exceptionFile(answer: WithHeaders): { file: string; line: number } {
  const value = String(answer.headers['x-debug-exception-file']);
  const colon = value.lastIndexOf(':');
  return { file: decodeURIComponent(value.slice(0, colon)), line: Number(value.slice(colon + 1)) };
}

/** The 1-based number of the first line of `file` containing `needle`, read from the source text. */
export function lineOf(file: string, needle: string): number {
  const line =
    readFileSync(file, 'utf8')
      .split('\n')
      .findIndex((text) => text.includes(needle)) + 1;
  if (line === 0) throw new Error(`${needle} is not in ${file}`);
  return line;
}
