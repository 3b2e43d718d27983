/**
 * Uploads' hooks are decided when a routes API route is registered: only the routes that
 * can be sent a body (any method but GET and HEAD) go through them, and splitting the
 * routes by that keeps their declaration order (the order of `Allow`).
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createKernel, type Kernel } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import { defineRoutes } from '../../src/routes-api.js';

/** The hooks Fastify lists under a route of its printed tree, by phase. */
function hooksOf(tree: string, route: string): string {
  const lines = tree.split('\n');
  const at = lines.findIndex((line) => line.includes(`${route} (`));
  assert.notEqual(at, -1, `${route} is not in the tree:\n${tree}`);
  const hooks: string[] = [];
  for (const line of lines.slice(at + 1)) {
    if (!line.includes('•')) break;
    hooks.push(line.trim());
  }
  return hooks.join('\n');
}

describe('uploads are received only on routes that can have a body', () => {
  let kernel: Kernel;

  before(async () => {
    const config = loadConfig({
      APP_ENV: 'prod',
      TLS: '0',
      LOG_LEVEL: 'warn',
      VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-upload-hooks-')),
    });
    const declaration = defineRoutes((routes) => {
      routes.post('/item', () => 'written');
      routes.get('/item', () => 'read');
      routes.get('/list', () => 'listed');
      routes.on(['GET', 'PUT'], '/either', () => 'either');
    });
    kernel = await createKernel({ config, routes: [declaration], logOutput: { write: () => true } });
    await kernel.app.ready();
  });

  after(() => kernel.app.close());

  it('gives GET routes no upload hooks', () => {
    const tree = kernel.app.printRoutes({ includeHooks: true, commonPrefix: false });
    assert.doesNotMatch(hooksOf(tree, '/list'), /receiveUploadsHook|preHandler|onResponse/);
  });

  it('gives routes that can have a body the upload hooks', () => {
    const tree = kernel.app.printRoutes({ includeHooks: true, commonPrefix: false });
    assert.match(hooksOf(tree, '/either'), /receiveUploadsHook/);
  });

  it('keeps the declaration order in Allow', async () => {
    const answer = await kernel.app.inject({ method: 'DELETE', url: '/item' });
    assert.equal(answer.statusCode, 405);
    assert.equal(answer.headers.allow, 'POST, GET');
  });
});
