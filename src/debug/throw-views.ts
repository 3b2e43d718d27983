/**
 * What the kernel makes of a throw path, made once: a path met again (every 404 of one path)
 * has one frames array (see stack-trace.ts), so its stack text, its trace lines, their HTML
 * and their stored JSON are built the first time and shared after. All views of one array
 * are kept together, beside it, and go when it goes.
 *
 * @example
 *   const stackText = new ThrowView<readonly StackFrame[], string>();
 *   stackText.of(frames, describeFrames); // describeFrames(frames) runs once per array
 */

/** Each key's views, by view. */
const views = new WeakMap<object, Map<object, unknown>>();

/** One view of a throw path: what one module makes of it. Each instance is a view of its own. */
export class ThrowView<K extends object, V> {
  /** The view of `key`, made by `make` the first time (a function of the key: no closure per call). */
  of(key: K, make: (key: K) => V): V {
    const held = views.get(key);
    if (held?.has(this)) return held.get(this) as V;
    return this.set(key, make(key));
  }

  get(key: K): V | undefined {
    return views.get(key)?.get(this) as V | undefined;
  }

  /** Keeps `value` as the view of `key` (in place of the one made for another editor format, say). */
  set(key: K, value: V): V {
    let held = views.get(key);
    if (held === undefined) views.set(key, (held = new Map()));
    held.set(this, value);
    return value;
  }
}
