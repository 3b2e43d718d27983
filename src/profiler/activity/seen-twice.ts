/**
 * A statement seen twice: a library that publishes a TracingChannel (mysql2, ioredis) and is
 * also instrumented by OpenTelemetry shows each statement to vigil once as a channel's and
 * once as a span's. The two are one statement when they say the same thing and run at the
 * same time in the same request; the channel's is kept, since it carries the rows.
 */

/** What is read of a statement (`StatementRecord`'s members): milliseconds from the request's arrival. */
interface Sighting {
  system: string;
  text: string;
  start: number;
  /** Null while it runs. */
  duration: number | null;
}

/**
 * What a statement is, for telling the two sightings apart: its text, or for Redis its
 * command's name alone, since OpenTelemetry's Redis spans write the arguments out.
 */
function sightingKey({ system, text }: Sighting): string {
  if (system !== 'redis') return `${system}\u0000${text}`;
  const space = text.indexOf(' ');
  return `redis\u0000${(space === -1 ? text : text.slice(0, space)).toUpperCase()}`;
}

const endOf = (statement: Sighting) =>
  statement.duration === null ? Number.POSITIVE_INFINITY : statement.start + statement.duration;

const byStart = (a: Sighting, b: Sighting) => a.start - b.start;

/**
 * The span statements (`spans`) that no channel statement (`channels`) already shows: each
 * channel statement takes away at most one span statement, the earliest of its key whose
 * time overlaps its own.
 */
export function spansNotSeenByChannels<Statement extends Sighting>(
  spans: readonly Statement[],
  channels: readonly Sighting[],
): Statement[] {
  if (spans.length === 0 || channels.length === 0) return [...spans];
  const waiting = new Map<string, { statements: Statement[]; from: number }>();
  for (const statement of [...spans].sort(byStart)) {
    const key = sightingKey(statement);
    let bucket = waiting.get(key);
    if (bucket === undefined) waiting.set(key, (bucket = { statements: [], from: 0 }));
    bucket.statements.push(statement);
  }
  const taken = new Set<Statement>();
  for (const channel of [...channels].sort(byStart)) {
    const bucket = waiting.get(sightingKey(channel));
    if (bucket === undefined) continue;
    const { statements } = bucket;
    // Those taken, or ended before this one started, are no later channel statement's either.
    while (
      bucket.from < statements.length &&
      (taken.has(statements[bucket.from]!) || endOf(statements[bucket.from]!) < channel.start)
    )
      bucket.from++;
    const end = endOf(channel);
    for (let at = bucket.from; at < statements.length && statements[at]!.start <= end; at++) {
      const span = statements[at]!;
      if (!taken.has(span) && endOf(span) >= channel.start) {
        taken.add(span);
        break;
      }
    }
  }
  return taken.size === 0 ? [...spans] : spans.filter((statement) => !taken.has(statement));
}
