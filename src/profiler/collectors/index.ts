/**
 * The collectors every report has, in the order their panels are shown, each with its panel
 * (kept beside it, `database-panel.ts` beside `database.ts`; the parts they share are in `views/`).
 */
import type { EditorLinkFormat } from '../../errors/editor-link.js';
import type { RouteMatcher } from '../../routing/route-matcher.js';
import { SiteMemory } from '../activity/request-activity.js';
import type { LogTap } from '../activity/log-tap.js';
import { exceptionPanel } from './exception-panel.js';
import { logsPanel } from './logs-panel.js';
import { requestPanel } from './request-panel.js';
import { responsePanel } from './response-panel.js';
import { routingPanel } from './routing-panel.js';
import type { Collector } from '../model/request-profile.js';
import { databaseCollector } from './database.js';
import { exceptionCollector } from './exception.js';
import { httpClientCollector } from './http-client.js';
import { logsCollector } from './logs.js';
import { memoryCollector } from './memory.js';
import { performanceCollector } from './performance.js';
import { requestCollector } from './request.js';
import { responseCollector } from './response.js';
import { routingCollector } from './routing.js';

export interface DefaultCollectorsOptions {
  /** The kernel's route matcher, once every route is declared. */
  matcher: () => RouteMatcher | undefined;
  /** Where the request loggers write; without it reports have no logs section. */
  logTap?: LogTap | undefined;
  /** VIGIL_IDE: the exception section keeps editor links to the project's files. */
  editor?: EditorLinkFormat | undefined;
  /** The application's HTTP calls and database statements (PROFILER_CAPTURE_APP), statements over `slowQueryMs` flagged. */
  appActivity?: { slowQueryMs: number } | undefined;
}

export function defaultCollectors({ matcher, logTap, editor, appActivity }: DefaultCollectorsOptions): Collector[] {
  const sites = new SiteMemory();
  return [
    { ...requestCollector, panel: requestPanel },
    { ...responseCollector, panel: responsePanel },
    { ...exceptionCollector(editor), panel: exceptionPanel },
    { ...routingCollector(matcher), panel: routingPanel } as Collector,
    performanceCollector(),
    memoryCollector,
    ...(logTap ? [{ ...logsCollector(logTap), panel: logsPanel }] : []),
    ...(appActivity ? [databaseCollector(appActivity.slowQueryMs, sites), httpClientCollector(sites)] : []),
  ];
}
