/**
 * What an error leads to: its `cause` chain and an AggregateError's `errors`, each with its
 * class, message and raise site, so that a debug page shows every error behind the one thrown,
 * however odd or hostile the values it meets.
 */
import { cutMessage } from '../debug/exception-headers.js';
import { framesOf, raiseSiteIn, type StackFrame } from '../debug/stack-trace.js';
import { cutText, describeValue, isError } from './thrown-value.js';
import { ThrowView } from '../debug/throw-views.js';

/** Levels of causes and members followed below the thrown error. */
export const MAX_CHAIN_DEPTH = 8;
/** Causes and members shown in all. */
export const MAX_RELATED_ERRORS = 20;
/** Members of one AggregateError shown; the others are counted. */
export const MAX_MEMBERS = 10;
/** Characters of a related error's message, as `x-debug-exception` keeps; a longer one is cut with `…`. */
export const MAX_RELATED_MESSAGE = 2000;
/** Characters of a class name (a constructor's name can be anything). */
const MAX_CLASS_NAME = 200;

export interface RelatedErrors {
  cause?: ChainedError | undefined;
  /** An AggregateError's `errors`, the first of them. */
  members?: ChainedError[] | undefined;
  /** Members left out by the bounds. */
  membersOmitted?: number | undefined;
  /** It has a cause or members that the bounds left unfollowed. */
  truncated?: true | undefined;
}

export interface ChainedError extends RelatedErrors {
  className: string;
  message: string;
  /** Its frames, innermost first, down to those it shares with the error above it. */
  frames: readonly StackFrame[];
  /** Outermost frames left out of `frames` because the error above has them too. */
  framesInCommon: number;
  site: StackFrame | undefined;
  /** The same value was shown above (a cycle, or one error held twice): not followed again. */
  repeated?: true | undefined;
}

/** Causes and members taken elsewhere (a worker process's), by the error revived from them. */
const adopted = new WeakMap<Error, RelatedErrors>();

/**
 * The causes and members of `error`, whose own frames are `frames`. Every read is guarded (a
 * getter that throws, a Proxy, a cause that is no Error), a value met twice is not followed
 * again (a cause that points back), and the walk stops at {@link MAX_CHAIN_DEPTH} levels and
 * {@link MAX_RELATED_ERRORS} errors, with at most {@link MAX_MEMBERS} members of one
 * AggregateError. An error with neither costs two property checks: the common error page is
 * not slowed.
 */
export function relatedErrors(error: Error, frames: readonly StackFrame[] = framesOrNone(error)): RelatedErrors {
  const known = adopted.get(error);
  if (known) return known;
  // The common error has neither: no walk is set up for it.
  if (readCause(error) === NONE && readMembers(error) === undefined) return {};
  return new Walk(error).linksOf(error, frames, 0);
}

/** Gives an error the causes and members its original had in another process. */
export function adoptRelated(error: Error, related: RelatedErrors): void {
  adopted.set(error, related);
}

/** The class an error shows: its constructor's name, else its `name`, else `Error`. */
export function classNameOf(error: object): string {
  let name: unknown;
  try {
    name = (error.constructor as { name?: unknown } | undefined)?.name;
  } catch {
    // Named below.
  }
  if (typeof name !== 'string' || name === '') {
    try {
      name = (error as { name?: unknown }).name;
    } catch {
      name = undefined;
    }
  }
  return typeof name === 'string' && name !== '' ? cutText(name, MAX_CLASS_NAME) : 'Error';
}

/** An error's message, whatever its `message` holds or does. */
export function messageOf(error: object): string {
  try {
    const message = (error as { message?: unknown }).message;
    return typeof message === 'string' ? message : describeValue(message).text;
  } catch {
    return '(the message is unreadable: reading it threw)';
  }
}

/** An error's frames, none where its `stack` getter throws. */
export function framesOrNone(error: Error): readonly StackFrame[] {
  try {
    return framesOf(error);
  } catch {
    return []; // a `stack` getter that throws
  }
}

/** A property whose reading threw. */
class Unreadable {
  constructor(readonly thrown: unknown) {}
}

/** Told apart without `instanceof`, which a Proxy's trap could answer by throwing. */
function isUnreadable(value: unknown): value is Unreadable {
  return typeof value === 'object' && value !== null && unreadables.has(value);
}
const unreadables = new WeakSet<object>();

function unreadable(thrown: unknown): Unreadable {
  const value = new Unreadable(thrown);
  unreadables.add(value);
  return value;
}

const NONE = Symbol('none');

function readCause(error: object): unknown {
  try {
    if (!('cause' in error)) return NONE;
    const cause = (error as { cause?: unknown }).cause;
    return cause === undefined ? NONE : cause;
  } catch (thrown) {
    return unreadable(thrown);
  }
}

/** An AggregateError's `errors` (or one revived from a worker process, named so), else undefined. */
function readMembers(error: object): { at: (index: number) => unknown; length: number } | Unreadable | undefined {
  try {
    if (!(error instanceof AggregateError) && (error as { name?: unknown }).name !== 'AggregateError') return undefined;
    const errors = (error as { errors?: unknown }).errors;
    if (!Array.isArray(errors)) return undefined;
    return {
      length: errors.length,
      at: (index) => {
        try {
          return errors[index];
        } catch (thrown) {
          return unreadable(thrown);
        }
      },
    };
  } catch (thrown) {
    return unreadable(thrown);
  }
}

class Walk {
  private readonly seen = new Set<unknown>();
  private shown = 0;

  constructor(root: Error) {
    this.seen.add(root);
  }

  linksOf(error: object, frames: readonly StackFrame[], depth: number): RelatedErrors {
    const cause = readCause(error);
    const members = readMembers(error);
    if (cause === NONE && members === undefined) return {};
    if (depth >= MAX_CHAIN_DEPTH || this.shown >= MAX_RELATED_ERRORS) return { truncated: true };
    const links: RelatedErrors = {};
    if (cause !== NONE) links.cause = this.node(cause, frames, depth + 1);
    if (isUnreadable(members)) {
      links.members = [this.node(members, frames, depth + 1)];
    } else if (members !== undefined && members.length > 0) {
      links.members = [];
      for (let index = 0; index < members.length && index < MAX_MEMBERS && this.shown < MAX_RELATED_ERRORS; index++) {
        links.members.push(this.node(members.at(index), frames, depth + 1));
      }
      if (links.members.length < members.length) links.membersOmitted = members.length - links.members.length;
    }
    return links;
  }

  private node(value: unknown, enclosing: readonly StackFrame[], depth: number): ChainedError {
    this.shown++;
    if (isUnreadable(value)) {
      const thrown = isError(value.thrown)
        ? `${classNameOf(value.thrown)}: ${messageOf(value.thrown)}`
        : describeValue(value.thrown).text;
      return plain('unreadable', `reading it threw ${thrown}`);
    }
    const repeated = this.seen.has(value);
    if ((typeof value === 'object' && value !== null) || typeof value === 'function') this.seen.add(value);
    if (!isError(value)) {
      const { type, text } = describeValue(value);
      return { ...plain(type, text), ...(repeated ? { repeated: true } : {}) };
    }
    const frames = framesOrNone(value);
    const node: ChainedError = {
      className: classNameOf(value),
      message: cutRelatedMessage(messageOf(value)),
      ...ownFrames(frames, enclosing),
      site: raiseSiteIn(frames),
    };
    if (repeated) return { ...node, frames: [], framesInCommon: 0, repeated: true };
    return Object.assign(node, this.linksOf(value, frames, depth));
  }
}

function plain(className: string, message: string): ChainedError {
  return { className, message: cutRelatedMessage(message), frames: [], framesInCommon: 0, site: undefined };
}

/** The header's cut (whole characters), marked. */
function cutRelatedMessage(message: string): string {
  const cut = cutMessage(message);
  return cut.length < message.length ? `${cut}…` : message;
}

const sameFrame = (a: StackFrame, b: StackFrame) =>
  a.file === b.file && a.line === b.line && a.column === b.column && a.function === b.function;

/** Each throw path has one frames array: the split of a pair is computed once, and renderers can cache by it. */
const splits = new ThrowView<readonly StackFrame[], ThrowView<readonly StackFrame[], FramesSplit>>();

type FramesSplit = Pick<ChainedError, 'frames' | 'framesInCommon'>;

const newSplits = () => new ThrowView<readonly StackFrame[], FramesSplit>();

/** `frames` without the outermost ones `enclosing` ends with too (Java's "... 5 more"); the first frame always stays. */
function ownFrames(frames: readonly StackFrame[], enclosing: readonly StackFrame[]): FramesSplit {
  // The view of `frames` is a view of its own, kept beside each enclosing array.
  const byEnclosing = splits.of(frames, newSplits);
  const kept = byEnclosing.get(enclosing);
  if (kept !== undefined) return kept;
  let common = 0;
  while (
    common < frames.length - 1 &&
    common < enclosing.length &&
    sameFrame(frames[frames.length - 1 - common]!, enclosing[enclosing.length - 1 - common]!)
  )
    common++;
  const split = { frames: common === 0 ? frames : frames.slice(0, frames.length - common), framesInCommon: common };
  return byEnclosing.set(enclosing, split);
}
