/**
 * The package as a user gets it: `npm pack` of the current sources (built by `prepack`,
 * in a copy of them, so that the repository's own dist/ is never removed under another
 * test), installed into a project of its own in the temporary directory, outside the
 * repository, so that nothing resolves from the repository's own node_modules. Tarball and installed
 * project are kept per state of the sources (`vigil-package-<hash>/`): a run packs and
 * installs at most once, and a later run of the same sources not at all.
 *
 * The project installs with `--ignore-scripts`. On a Node with `node:sqlite` it needs no
 * SQLite package; otherwise (Node 20) it installs better-sqlite3, an optional peer, and gets
 * the native binding this checkout already built (the same version, the same Node):
 * compiling it again from source would take minutes, and it is not vigil's to test.
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { loadNodeSqlite } from '../../src/profiler/storage/sqlite/sqlite-node-driver.js';
import { ROOT } from './root.js';

/** What `npm pack` reads: the sources it builds, the manifest, the files it ships. */
const PACKED = ['src', 'bin', 'package.json', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'SECURITY.md'];

export interface InstalledPackage {
  /** The tarball `npm pack` made. */
  tarball: string;
  /** A project with the tarball installed, and fastify and @types/node beside it. */
  project: string;
}

let installed: InstalledPackage | undefined;

export function installedPackage(): InstalledPackage {
  if (installed && existsSync(join(installed.project, 'installed'))) return installed;
  const directory = join(tmpdir(), `vigil-package-${sourcesHash()}`);
  if (!existsSync(join(directory, 'project', 'installed'))) {
    const scratch = `${directory}.${process.pid}.tmp`;
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(join(scratch, 'project'), { recursive: true });
    const sources = join(scratch, 'sources');
    for (const entry of PACKED)
      cpSync(join(ROOT, entry), join(sources, entry), {
        recursive: true,
        filter: (path) => !path.endsWith('.test.ts'),
      });
    symlinkSync(join(ROOT, 'node_modules'), join(sources, 'node_modules'), 'dir');
    npm(['pack', '--pack-destination', scratch], sources);
    rmSync(sources, { recursive: true, force: true });
    const tarball = readdirSync(scratch).find((name) => name.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack made no tarball in ${scratch}`);
    const project = join(scratch, 'project');
    writeFileSync(
      join(project, 'package.json'),
      `${JSON.stringify({ name: 'vigil-consumer', private: true, type: 'module' }, null, 2)}\n`,
    );
    // The versions this checkout runs with, so that the install finds them in npm's cache.
    const needsBinding = loadNodeSqlite() === undefined;
    const pinned = ['fastify', '@types/node', ...(needsBinding ? ['better-sqlite3'] : [])].map(
      (name) => `${name}@${installedVersion(ROOT, name)}`,
    );
    npm(
      ['install', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund', join(scratch, tarball), ...pinned],
      project,
    );
    if (needsBinding) {
      const binding = join('node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
      mkdirSync(join(project, 'node_modules', 'better-sqlite3', 'build', 'Release'), { recursive: true });
      copyFileSync(join(ROOT, binding), join(project, binding));
    }
    writeFileSync(join(project, 'installed'), '');
    try {
      renameSync(scratch, directory);
    } catch {
      rmSync(scratch, { recursive: true, force: true }); // another process finished first
    }
  }
  const tarball = readdirSync(directory).find((name) => name.endsWith('.tgz'))!;
  installed = { tarball: join(directory, tarball), project: join(directory, 'project') };
  return installed;
}

/**
 * The installed project with more packages from npm (`name@version`), in a copy of its own
 * named `name`: kept per state of the sources as the project is, so a run installs them once.
 */
export function projectWith(name: string, packages: readonly string[]): string {
  const { project } = installedPackage();
  const directory = `${project}-${name}`;
  if (existsSync(join(directory, 'installed'))) return directory;
  const scratch = `${directory}.${process.pid}.tmp`;
  rmSync(scratch, { recursive: true, force: true });
  cpSync(project, scratch, { recursive: true, filter: (path) => !path.endsWith(`${join(project, 'installed')}`) });
  npm(['install', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund', ...packages], scratch);
  writeFileSync(join(scratch, 'installed'), '');
  try {
    renameSync(scratch, directory);
  } catch {
    rmSync(scratch, { recursive: true, force: true }); // another process finished first
  }
  return directory;
}

/**
 * Runs `source`, written to `file` in `project`, with Node and only PATH, TLS=0, a VAR_DIR of its
 * own and `env`; resolves with the JSON the program printed on its `SEEN ` line.
 */
export function runInProject<T>(
  project: string,
  file: string,
  source: string,
  env: Record<string, string> = {},
): Promise<T> {
  writeFileSync(join(project, file), source);
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [file],
      {
        cwd: project,
        env: {
          PATH: process.env.PATH ?? '',
          TLS: '0',
          VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-project-app-')),
          ...env,
        },
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        const line = stdout.split('\n').find((text) => text.startsWith('SEEN '));
        if (error || !line) reject(new Error(`${error?.message ?? 'no SEEN line'}\n${stdout}${stderr}`));
        else resolve(JSON.parse(line.slice('SEEN '.length)) as T);
      },
    );
  });
}

function npm(args: string[], cwd: string): void {
  try {
    execFileSync('npm', args, {
      cwd,
      stdio: 'pipe',
      encoding: 'utf8',
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`npm ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}

export function installedVersion(project: string, name: string): string {
  return (JSON.parse(readFileSync(join(project, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
    .version;
}

function sourcesHash(): string {
  const hash = createHash('sha256');
  const visit = (path: string) => {
    const stats = statSync(path);
    if (stats.isDirectory()) {
      for (const name of readdirSync(path).sort()) if (!name.endsWith('.test.ts')) visit(join(path, name));
    } else {
      hash.update(`${relative(ROOT, path)}\0${stats.size}\0${stats.mtimeMs}\n`);
    }
  };
  for (const entry of PACKED) visit(join(ROOT, entry));
  // The copied binding is built for one Node ABI, and a Node with node:sqlite has none: another Node needs a project of its own.
  hash.update(
    `node ABI ${process.versions.modules}, SQLite by ${loadNodeSqlite() === undefined ? 'better-sqlite3' : 'node:sqlite'}\n`,
  );
  return hash.digest('hex').slice(0, 16);
}
