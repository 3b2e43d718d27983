/**
 * Packages vigil loads for one feature only, which a plugin user's install does not bring
 * (optional peer dependencies): imported when the feature is first used, and when missing,
 * named with the command that installs it.
 */

/**
 * `load` is the import itself, written out at the call site so that its specifier stays static.
 *
 * @example
 * ```ts
 * const { generate } = await importOptional('selfsigned', 'the development certificate', () => import('selfsigned'));
 * ```
 */
export async function importOptional<T>(name: string, feature: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    throw named(error, name, feature);
  }
}

/** The loader's error, or, when it is `name` that is missing, one that says how to install it. */
function named(error: unknown, name: string, feature: string): unknown {
  if (!isMissing(error, name)) return error;
  return new Error(`${feature} needs the package "${name}", which is not installed (npm install ${name})`, {
    cause: error,
  });
}

/** True when `error` is the loader's for `name` itself not being installed (not for one of its own imports). */
export function isMissing(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as NodeJS.ErrnoException;
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    message.includes(`'${name}'`)
  );
}

/** {@link importOptional} for a CommonJS package that a synchronous caller loads (a native driver). */
export function requireOptional<T>(name: string, feature: string, load: () => T): T {
  try {
    return load();
  } catch (error) {
    throw named(error, name, feature);
  }
}
