/** Isolated routes are declared like others; what cannot work stops the start with a clear message. */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createKernel, loadConfig, RouteDefinitionError, Routes } from '../../src/index.js';
import { runMain } from '../support/service.js';

describe('an isolated route is found by its name, so isolated names are distinct', () => {
  it('refuses a second isolated route with the same name', () => {
    const routes = new Routes();
    routes.get('/a', () => 'a', { isolated: true, name: 'work' });
    assert.throws(
      () => routes.get('/b', () => 'b', { isolated: true, name: 'work' }),
      (error: unknown) =>
        error instanceof RouteDefinitionError &&
        error.message === 'route GET /b: another isolated route is named "work"; give one a distinct name',
    );
  });

  it('marks isolated definitions and leaves others in process', () => {
    const routes = new Routes();
    routes.get('/a', () => 'a', { isolated: true });
    routes.get('/b', () => 'b');
    assert.deepEqual(
      routes.definitions.map((definition) => [definition.name, definition.isolated]),
      [
        ['GET /a', true],
        ['GET /b', false],
      ],
    );
  });
});

describe('isolated routes need the path of their routes module', () => {
  it('stops createKernel when routes are given as functions only', async () => {
    const config = loadConfig({
      VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-isolation-')),
      TLS: '0',
      APP_DEBUG: '0',
      LOG_LEVEL: 'silent',
    });
    await assert.rejects(
      createKernel({ config, routes: [(routes) => void routes.get('/spin', () => 'spun', { isolated: true })] }),
      (error: unknown) =>
        error instanceof RouteDefinitionError &&
        /^route GET \/spin is isolated: its worker processes import the module that declares it, so the kernel needs that module's path \(ROUTES for npm start, the plugin's routesModule option\)$/.test(
          error.message,
        ),
    );
  });
});

describe('every worker must find the isolated routes the service declared', () => {
  it('stops the start when the routes module declares other isolated routes in a worker', async () => {
    const { code, stderr } = await runMain({
      ROUTES: 'test/fixtures/unstable-isolated-routes.ts',
      VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-isolation-')),
    });
    assert.equal(code, 1);
    assert.match(
      stderr,
      /^vigil: cannot start: isolated routes cannot run: the isolated worker found no route named "GET \/only-in-the-service" in \S+unstable-isolated-routes\.ts$/m,
    );
  });
});
