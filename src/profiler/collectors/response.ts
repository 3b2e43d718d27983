/** The response section: status, headers (redacted), size, and whether the client stayed for it. */
import type { Collector } from '../request-profile.js';

export interface ResponseSection {
  status: number;
  headers: Record<string, string | string[]>;
  size: number | null;
  aborted: boolean;
}

export const responseCollector: Collector = {
  name: 'response',
  collect({ reply, redactor, profile }): ResponseSection {
    const headers = redactor.headers(reply.getHeaders());
    const length = headers['content-length'];
    return {
      status: reply.statusCode,
      headers,
      // Content-Length when sent; a streamed (chunked) response has none.
      size: typeof length === 'string' ? Number(length) : null,
      aborted: profile.aborted,
    };
  },
};
