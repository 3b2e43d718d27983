/** The data every error renderer receives: one description of the failed request. */
import type { StackFrame } from '../debug/stack-trace.js';
import type { RelatedErrors } from './error-chain.js';
import type { ErrorHints } from './error-hints.js';

export interface ErrorView {
  status: number;
  /** Reason phrase of the status ("Not Found"). */
  title: string;
  message: string;
  className: string;
  code: string;
  method: string;
  /** Full URL of the request, query string included, for display. */
  url: string;
  frames: readonly StackFrame[];
  /** Where the error was raised: its first frame in the project's source. */
  site: StackFrame | undefined;
  /** What decided the answer where no line of the project's did (`routing: …`): shown in place of the site; debug mode only. */
  raisedBy?: string | undefined;
  /** The routes near a 404's path, a 400's schema refusals; debug mode only. */
  hints?: ErrorHints | undefined;
  /** Its causes and an AggregateError's members; debug mode only. */
  related?: RelatedErrors | undefined;
  /** Debug token and absolute link to its report; absent outside debug mode. */
  token?: string | undefined;
  reportUrl?: string | undefined;
}
