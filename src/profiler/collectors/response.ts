/** The response section: status, headers (redacted) and size. */
import type { Collector } from '../request-profile.js';

export const responseCollector: Collector = {
  name: 'response',
  collect({ reply, redactor }) {
    const headers = redactor.headers(reply.getHeaders());
    const length = headers['content-length'];
    return {
      status: reply.statusCode,
      headers,
      size: typeof length === 'string' ? Number(length) : null,
    };
  },
};
