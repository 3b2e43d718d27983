/** The response collector: status, headers (redacted), size, a preview of its body, and whether the client stayed for it. */
import { defineCollector } from '../model/collector-unit.js';
import type { CollectorSetup } from './collector-setup.js';
import { responsePreview } from './response-preview.js';
import { responsePanel, responseText, type ResponseSection } from './response-panel.js';

export type { ResponseSection } from './response-panel.js';

export const responseCollector = defineCollector<ResponseSection, CollectorSetup>({
  name: 'response',
  panel: responsePanel,
  textTitle: (section) => `Response (${section.status}${section.aborted ? ', client left before it was written' : ''})`,
  text: responseText,
  textLast: true,
  toolbar: ({ reply }) => [
    {
      label: 'Status',
      value: String(reply.statusCode),
      tone: statusTone(reply.statusCode),
      detail: [['Content-Type', String(reply.getHeader('content-type') ?? 'none')]],
    },
  ],
  create: () => ({
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
  }),
});

function statusTone(status: number): 'ok' | 'redirect' | 'error' {
  if (status >= 400) return 'error';
  return status >= 300 ? 'redirect' : 'ok';
}
