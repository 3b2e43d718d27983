/** What the kernel gives its built-in collectors when it creates them (`defineCollector`'s `create`). */
import type { EditorLinkFormat } from '../../errors/editor-link.js';
import type { RouteMatcher } from '../../routing/route-matcher.js';
import type { LogTap } from '../activity/log-tap.js';
import type { SiteMemory } from '../activity/request-activity.js';

export interface CollectorSetup {
  /** The kernel's route matcher, once every route is declared. */
  matcher: () => RouteMatcher | undefined;
  /** Where the request loggers write; without it reports have no logs section. */
  logTap?: LogTap | undefined;
  /** VIGIL_IDE: the exception section keeps editor links to the project's files. */
  editor?: EditorLinkFormat | undefined;
  /** The application's HTTP calls and database statements (PROFILER_CAPTURE_APP), statements over `slowQueryMs` flagged. */
  appActivity?: { slowQueryMs: number } | undefined;
  /**
   * Production (PROFILER_KEEP): every request is followed and few are kept, so what `start`
   * does costs every request; what it could only measure (the heap at arrival) is left out.
   */
  production?: boolean | undefined;
  /** The instance's memory of call sites, shared by the database and HTTP client collectors. */
  sites: SiteMemory;
}
