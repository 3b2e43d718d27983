/**
 * The repository's root, found from a module's own directory: the nearest directory above
 * it with the package's `package.json`. A test runs from its `.ts` file or from its build
 * under `.test-build/`, and both find the same root.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export function repositoryRoot(from: string): string {
  for (let directory = from; ; directory = dirname(directory)) {
    const manifest = join(directory, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'fastify-vigil'
    )
      return directory;
    if (dirname(directory) === directory) throw new Error(`no vigil package.json above ${from}`);
  }
}

export const ROOT = repositoryRoot(import.meta.dirname);
