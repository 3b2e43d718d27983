/**
 * A Redis command as a statement's text: its name and one `?` per argument (`GET ?`,
 * `HSET ? ? ?`), so that a key or a value is never kept and the same call groups with
 * itself. ioredis and node-redis keep some arguments in their channels' context (a key, a
 * field): vigil reads only how many there are.
 */

/** `?`s written at most: a longer command says how many more it had. */
export const MAX_SHOWN_ARGUMENTS = 16;

/** A command's name as Redis spells them (`GET`, `JSON.SET`, `FT.SEARCH`); anything else is not kept. */
const COMMAND_NAME = /^[A-Za-z][A-Za-z0-9._|-]{0,63}$/;

/**
 * The text of a command named `command` with `argumentCount` arguments, or undefined when
 * the name is not a string.
 */
export function redisCommandText(command: unknown, argumentCount: number): string | undefined {
  if (typeof command !== 'string') return undefined;
  const name = COMMAND_NAME.test(command) ? command.toUpperCase() : '?';
  const count = Number.isSafeInteger(argumentCount) && argumentCount > 0 ? argumentCount : 0;
  const shown = Math.min(count, MAX_SHOWN_ARGUMENTS);
  const more = count > shown ? ` …+${count - shown}` : '';
  return `${name}${' ?'.repeat(shown)}${more}`;
}

/** ioredis's `ioredis:command` context: `args` are the arguments after the name. */
export function ioredisCommandText(context: Record<string, unknown>): string | undefined {
  const { args } = context;
  return redisCommandText(context.command, Array.isArray(args) ? args.length : 0);
}

/** node-redis's `node-redis:command` context: `args` start with the command's name. */
export function nodeRedisCommandText(context: Record<string, unknown>): string | undefined {
  const { args } = context;
  return redisCommandText(context.command, Array.isArray(args) ? args.length - 1 : 0);
}
