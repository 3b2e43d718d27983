/**
 * The project's root: the directory the service was started from. Only files under it
 * count as the project's source, for the raise site and for source excerpts.
 */
import { realpathSync } from 'node:fs';
import { sep } from 'node:path';

let root: string | undefined;

/** The working directory at first use, links resolved (frames carry real paths). */
export function projectRoot(): string {
  if (root === undefined) {
    const cwd = process.cwd();
    try {
      root = realpathSync(cwd);
    } catch {
      root = cwd;
    }
  }
  return root;
}

/** True when `path` (absolute, normalized) is `directory` or inside it. */
export function isUnder(path: string, directory: string): boolean {
  if (path === directory) return true;
  return path.startsWith(directory.endsWith(sep) ? directory : directory + sep);
}
