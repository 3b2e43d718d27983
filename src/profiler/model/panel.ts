/** What a report panel is: a menu entry with a short badge, and the panel's body; and a toolbar entry. */
import type { SafeHtml } from '../../utils/html.js';
import type { Report } from './report.js';

/** What the page was asked for besides the panel: its query parameters (`?threshold=1`). */
export interface PanelView {
  query: Readonly<Record<string, string | string[] | undefined>>;
}

export interface Panel<Section = unknown> {
  /** The collector whose section it shows. */
  name: string;
  /** The menu entry's title, and the panel's heading. */
  title: string;
  /** A few characters beside the menu entry (a status, a count, a duration). */
  badge?(section: Section, report: Report): SafeHtml | string;
  render(section: Section, report: Report, view?: PanelView): SafeHtml;
  /** Shown instead when the report has no such section (no exception was raised). */
  absent?: string;
  /** A few words for the report's summary line, if the section has something to say there. */
  summary?(section: Section, report: Report): string | undefined;
}

/** A menu badge: text, or a value with the colour of its status (a count of slow queries in `warn`). */
export type PanelBadge =
  | string
  | number
  | SafeHtml
  | { value: string | number; status?: 'ok' | 'warn' | 'bad' | 'muted' };

/** What a collector says of its own panel (see `Collector.panel`); every part is optional. */
export interface CollectorPanel<Section = unknown> {
  /** The menu entry and the panel's heading; defaults to the collector's name, capitalized. */
  title?: string;
  badge?(section: Section, report: Report): PanelBadge | undefined;
  /** The panel's body (its heading is the title), built with the `html` template; defaults to the section as tables. */
  render?(section: Section, report: Report, view: PanelView): SafeHtml;
  /** Shown when a report has no section of this collector. */
  absent?: string;
  /** The renderer writes its own heading (one that depends on the section, as the exception's class). */
  ownHeading?: boolean;
  /** A few words for the report's summary line (`3 queries in 12 ms`); undefined: nothing to say. */
  summary?(section: Section, report: Report): string | undefined;
}

/** One entry of the debug toolbar: its text, its label (the tooltip), and its colour if any. */
export interface ToolbarEntry {
  label: string;
  value: string;
  /** `warn` draws it as a warning; `ok`, `redirect` and `error` colour a status. */
  tone?: 'ok' | 'warn' | 'redirect' | 'error';
  /** Rows of the entry's panel, opened on hover or click: a label and its value each. */
  detail?: ReadonlyArray<readonly [string, string]>;
}

/** Keeps a collector's panel typed by its section. */
export function definePanel<Section>(panel: CollectorPanel<Section>): CollectorPanel<Section> {
  return panel;
}
