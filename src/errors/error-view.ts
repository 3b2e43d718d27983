/** The data every error renderer receives: one description of the failed request. */
import type { StackFrame } from '../debug/stack-trace.js';
import type { RelatedErrors } from './error-chain.js';

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
  /** Its causes and an AggregateError's members; debug mode only. */
  related?: RelatedErrors | undefined;
  /** Debug token and absolute link to its report; absent outside debug mode. */
  token?: string | undefined;
  reportUrl?: string | undefined;
}
