/** The exception panel: what was raised, where, the trace with the project's own source, and its causes. */
import { html } from '../../utils/html.js';
import { fileLine, renderRelated, renderTrace } from '../../errors/render-trace.js';
import type { ExceptionSection } from './exception.js';
import { keyValueTable } from '../views/layout.js';
import { definePanel } from '../model/panel.js';

export const exceptionPanel = definePanel<ExceptionSection>({
  ownHeading: true,
  title: 'Exception',
  absent: 'No exception was raised while handling this request.',
  badge: (section) => html`<span class="bad">${section.class}</span>`,
  render(section) {
    return html`<h2>${section.class}</h2>
<p class="card" id="exception-message">${section.message}</p>
${keyValueTable([
  ['Code', html`<code>${section.code}</code>`],
  ['Status', section.status],
  ['Raised at', section.file ? html`<code>${fileLine(section.file, section.line, section.link)}</code>` : 'unknown'],
])}
<h3>Stack trace</h3>
${renderTrace(section.trace, 3)}${renderRelated(section, 3)}`;
  },
});
