/**
 * `profiler:exceptions`: the exceptions of the stored reports grouped as `/_profiler/exceptions`
 * groups them (class, place raised, masked message), the group seen last first.
 */
import { parseArgs } from 'node:util';
import { formatTime } from '../profiler/model/format.js';
import { EXCEPTION_WINDOW, readExceptionGroups, type ExceptionGroup } from '../profiler/storage/exception-groups.js';
import { UsageError, type Command } from './command.js';
import { withStore } from './profiler-commands.js';
import { terminalSafe } from './terminal-safe.js';

const DEFAULT_GROUPS = 20;
const MAX_GROUPS = 1000;

/** One group in a few lines: what, where, how often, and how to list its occurrences. */
function groupText(group: ExceptionGroup): string {
  const lines = [
    `${group.exception}: ${group.message}`,
    `  raised at   ${group.site}`,
    `  count       ${group.count} (first ${formatTime(group.firstSeen)}, last ${formatTime(group.lastSeen)})`,
    `  statuses    ${group.statuses.join(', ')}`,
    `  routes      ${group.routes.join(', ')}`,
    `  newest      vigil profiler:show ${group.newest}`,
    `  all         vigil profiler:list --fingerprint ${group.fingerprint}`,
  ];
  return lines.map(terminalSafe).join('\n');
}

export const exceptionsCommand: Command = {
  name: 'profiler:exceptions',
  summary: 'list the exceptions of stored reports, grouped',
  options: ['--limit', '--json'],
  help: `Usage: vigil profiler:exceptions [--limit <n>] [--json]

Lists the exceptions of the stored reports in groups, as /_profiler/exceptions does: one
group per class, place raised and message with its numbers, ids and quoted values masked,
among the newest ${EXCEPTION_WINDOW} reports with an exception; the group seen last first.

  --limit <n>   at most n groups, 1 to ${MAX_GROUPS} (default ${DEFAULT_GROUPS})
  --json        print a JSON array of {fingerprint, exception, site, message, count,
                firstSeen, lastSeen, statuses, routes, newest}
`,
  async run(args, config, output) {
    const { values } = parseArgs({
      args,
      options: { limit: { type: 'string' }, json: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    });
    const limit = values.limit === undefined ? DEFAULT_GROUPS : Number(values.limit);
    if (!(/^\d{1,4}$/.test(values.limit ?? '1') && limit >= 1 && limit <= MAX_GROUPS))
      throw new UsageError(`--limit must be a whole number from 1 to ${MAX_GROUPS}; got "${values.limit}"`);
    const { groups, location } = await withStore(config, async (store, location) => ({
      groups: store ? await readExceptionGroups(store, limit) : undefined,
      location,
    }));
    if (values.json) output.out(`${JSON.stringify(groups ?? [])}\n`);
    else if (!groups) output.out(`No reports stored yet (no store at ${location}).\n`);
    else if (groups.length === 0) output.out('No exception was raised in the stored reports.\n');
    else output.out(`${groups.map(groupText).join('\n\n')}\n`);
    return 0;
  },
};
