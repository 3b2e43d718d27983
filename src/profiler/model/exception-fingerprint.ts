/**
 * The fingerprint of an exception: what makes two failures the same failure. Its class, the
 * place it was raised, and its message with what changes from one request to the next
 * (numbers, ids, quoted values) masked, so three `TypeError`s that differ by an id are one group.
 */
import { createHash } from 'node:crypto';

interface RaisedException {
  class: string;
  message: string;
  /** The raise site: the first frame of the application's own code. */
  file: string | null;
  line: number | null;
}

export interface ExceptionFingerprint {
  /** Names the group: a hash of the three parts below. */
  key: string;
  class: string;
  /** `file:line`, or `unknown` when no frame of the application's code raised it. */
  site: string;
  /** The message, masked. */
  message: string;
}

/** Past this, a message's tail is not part of its fingerprint (no regex reads it), nor of its masked text. */
const MESSAGE_MAX = 500;

const MASKS: ReadonlyArray<readonly [RegExp, string]> = [
  // Quoted values first: a number inside quotes is part of the value.
  [/"[^"\n]{0,200}"/g, '"…"'],
  [/'[^'\n]{0,200}'/g, "'…'"],
  [/`[^`\n]{0,200}`/g, '`…`'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '{uuid}'],
  [/\b0x[0-9a-f]+\b/gi, '{hex}'],
  // Hexadecimal ids (tokens, hashes, object ids): a digit and a letter among at least six.
  [/\b(?=[0-9a-f]{0,64}\d)(?=[0-9a-f]{0,64}[a-f])[0-9a-f]{6,}\b/gi, '{hex}'],
  [/\d+(?:\.\d+)?/g, '{n}'],
];

/** The message with its numbers, ids and quoted values masked, whitespace folded. */
export function maskMessage(message: string): string {
  let masked = message.slice(0, MESSAGE_MAX);
  for (const [pattern, mask] of MASKS) masked = masked.replace(pattern, mask);
  return masked.replace(/\s+/g, ' ').trim().slice(0, MESSAGE_MAX);
}

/**
 * Fingerprints by class, site and message as raised: one failure repeats, and masking and
 * hashing it again each time is most of what a report's facts cost. Bounded: a flood of
 * distinct messages empties it.
 */
const known = new Map<string, ExceptionFingerprint>();
const KNOWN_MAX = 1000;

export function fingerprintException(exception: RaisedException): ExceptionFingerprint {
  const site = exception.file ? `${exception.file}${exception.line === null ? '' : `:${exception.line}`}` : 'unknown';
  const raised = `${exception.class}\u0000${site}\u0000${exception.message.slice(0, MESSAGE_MAX)}`;
  const held = known.get(raised);
  if (held !== undefined) return held;
  const message = maskMessage(exception.message);
  const key = createHash('sha256')
    .update(`${exception.class}\u0000${site}\u0000${message}`)
    .digest('base64url')
    .slice(0, 16);
  const fingerprint = { key, class: exception.class, site, message };
  if (known.size >= KNOWN_MAX) known.clear();
  known.set(raised, fingerprint);
  return fingerprint;
}
