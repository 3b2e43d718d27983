/**
 * `defineCollector`, the one way a collector is written, built-in or application's: its
 * runtime part (start, collect, derive, close) and its view (name, panel, command-line text,
 * toolbar entries) declared together and typed by its section. A collector that needs the
 * kernel (its route matcher, its log tap) or holds process-wide resources gives its runtime
 * as `create(options)`: its view is then there without creating it, as `profiler:show` needs.
 */
import type { Collector } from './request-profile.js';

/** What the pages, `profiler:show` and the toolbar show of a collector: all of it but its runtime. */
export interface CollectorView<Section = unknown>
  extends Pick<Collector<Section>, 'name' | 'panel' | 'text' | 'textTitle' | 'toolbar'> {
  /** Its text prints after the other sections' (a long listing: headers, log lines). */
  textLast?: boolean;
}

/** What runs while requests are handled, and the toolbar's entries when they need what `create` was given. */
export type CollectorRuntime<Section = unknown> = Pick<
  Collector<Section>,
  'start' | 'startsLate' | 'collect' | 'discard' | 'derive' | 'close' | 'toolbar'
>;

/** A collector's view with the way to make its runtime: what `defineCollector` is given. */
interface CollectorUnitSpec<Section, Options> extends CollectorView<Section> {
  /** The runtime for one kernel, or undefined when `options` leave the collector out. */
  create(options: Options): CollectorRuntime<Section> | undefined;
}

/** A collector's view, and the collector itself for one kernel, made by `create`. */
export interface CollectorUnit<Section = unknown, Options = void> extends CollectorView<Section> {
  /** The collector, view and runtime; undefined when `options` leave it out. Creating it may hold resources: `close` lets them go. */
  create(options: Options): Collector<Section> | undefined;
}

export function defineCollector<Section, Options>(
  unit: CollectorUnitSpec<Section, Options>,
): CollectorUnit<Section, Options>;
export function defineCollector<Section>(collector: Collector<Section>): Collector<Section>;
export function defineCollector<Section, Options>(
  spec: Collector<Section> | CollectorUnitSpec<Section, Options>,
): Collector<Section> | CollectorUnit<Section, Options> {
  if (!('create' in spec)) return spec;
  const { create, ...view } = spec;
  return {
    ...view,
    create(options: Options): Collector<Section> | undefined {
      const runtime = create(options);
      return runtime && { ...view, ...runtime };
    },
  };
}
