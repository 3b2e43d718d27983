/** The response section: status, headers (redacted), size, a preview of its body, and whether the client stayed for it. */
import type { Collector } from '../model/request-profile.js';
import { responsePreview, type ResponsePreview } from './response-preview.js';

export interface ResponseSection {
  status: number;
  headers: Record<string, string | string[]>;
  size: number | null;
  aborted: boolean;
  /** Absent in reports written before it was recorded. */
  preview?: ResponsePreview;
}

export const responseCollector: Collector = {
  name: 'response',
  collect({ reply, redactor, profile }): ResponseSection {
    const sent = reply.getHeaders();
    const headers = redactor.headers(sent);
    const length = headers['content-length'];
    return {
      status: reply.statusCode,
      headers,
      // Content-Length when sent; a streamed (chunked) response has none.
      size: typeof length === 'string' ? Number(length) : null,
      aborted: profile.aborted,
      preview: responsePreview(profile.responseBody, sent, redactor, profile.error !== undefined),
    };
  },
};
