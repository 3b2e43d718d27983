/** The production profiler's login page: a form that takes PROFILER_SECRET and opens a session. */
import { html } from '../../utils/html.js';
import { renderPage } from '../views/layout.js';

interface LoginPageView {
  /** Where the form posts: the login page with its key. */
  action: string;
  /** The secret given was wrong. */
  refused: boolean;
}

export function renderLoginPage({ action, refused }: LoginPageView): string {
  const message = refused ? html`<p class="bad" id="refused">That secret does not open the profiler.</p>` : '';
  const body = html`<h1>Log in</h1>
<section class="card">${message}
<form method="post" action="${action}" id="login">
<label>PROFILER_SECRET <input type="password" name="secret" autocomplete="current-password" required autofocus></label>
<button type="submit">Log in</button>
</form></section>`;
  return renderPage({ title: 'Log in - vigil profiler', body });
}
