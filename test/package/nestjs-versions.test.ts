/**
 * Issue 43, item 1, as teams install it: NestJS with its Fastify adapter and the packed
 * package, from npm, in a project of its own. Nest 12 is ES modules only: its application is
 * an ES module, and a CommonJS one that loads it with `require` (Node's `require` of ES
 * modules). Nest 11 is CommonJS, as `tsc` compiles most Nest applications: its application
 * loads vigil with `require`. Each starts with vigil registered on the adapter's instance,
 * asks itself over a socket and prints what it got.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { installedVersion, projectWith, runInProject } from '../support/package-build.js';

const NEST_12 = ['@nestjs/core@12.5.1', '@nestjs/common@12.5.1', '@nestjs/platform-fastify@12.2.0'];
const NEST_11 = ['@nestjs/core@11.2.10', '@nestjs/common@11.2.10', '@nestjs/platform-fastify@11.2.8'];
const BESIDE = ['reflect-metadata@0.2.2', 'rxjs@7.8.2'];

/** The application, after its imports: decorators applied by hand, as the compiler would. */
const APP_BODY = `
class ItemsController {
  list() { return { items: ['a'] }; }
  missing() { throw new NotFoundException('no such item'); }
}
const method = (name, decorator) =>
  decorator(ItemsController.prototype, name, Object.getOwnPropertyDescriptor(ItemsController.prototype, name));
method('list', Get());
method('missing', Get('missing'));
Controller('items')(ItemsController);
class AppModule {}
Module({ controllers: [ItemsController] })(AppModule);

async function main() {
  const config = loadConfig();
  const adapter = new FastifyAdapter(vigilFastifyOptions(config));
  await adapter.getInstance().register(vigil, { config, announceProfiler: false });
  const app = await NestFactory.create(AppModule, adapter, { logger: false });
  await app.listen(0, '127.0.0.1');
  const base = 'http://127.0.0.1:' + app.getHttpServer().address().port;
  const seen = {};
  for (const [name, method, path] of [
    ['route', 'GET', '/items'],
    ['httpException', 'GET', '/items/missing'],
    ['unknown', 'GET', '/nowhere'],
    ['wrongMethod', 'DELETE', '/items'],
  ]) {
    const answer = await fetch(base + path, { method });
    await answer.text();
    seen[name] = { status: answer.status, token: answer.headers.get('x-debug-token') !== null, allow: answer.headers.get('allow') };
  }
  await app.close();
  console.log('SEEN ' + JSON.stringify(seen));
}
main().catch((error) => { console.error(error); process.exitCode = 1; });
`;

const ESM_IMPORTS = `import 'reflect-metadata';
import { Controller, Get, Module, NotFoundException } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { loadConfig, vigil, vigilFastifyOptions } from 'fastify-vigil';
`;

const CJS_REQUIRES = `require('reflect-metadata');
const { Controller, Get, Module, NotFoundException } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { FastifyAdapter } = require('@nestjs/platform-fastify');
const { loadConfig, vigil, vigilFastifyOptions } = require('fastify-vigil');
`;

interface Seen {
  status: number;
  token: boolean;
  allow: string | null;
}

function assertServed(seen: Record<string, Seen>): void {
  assert.deepEqual(seen.route, { status: 200, token: true, allow: null });
  assert.equal(seen.httpException!.status, 404, "Nest's NotFoundException keeps its status");
  assert.deepEqual(seen.unknown, { status: 404, token: true, allow: null });
  assert.deepEqual(seen.wrongMethod, { status: 405, token: true, allow: 'GET' });
}

describe('NestJS 12 (ES modules only) with the packed package', () => {
  it('starts and serves as an ES module application', async () => {
    const project = projectWith('nest12', [...NEST_12, ...BESIDE]);
    assert.match(installedVersion(project, '@nestjs/core'), /^12\./);
    assertServed(await runInProject<Record<string, Seen>>(project, 'main.mjs', ESM_IMPORTS + APP_BODY));
  });

  it('starts and serves as a CommonJS application that requires Nest', async () => {
    const project = projectWith('nest12', [...NEST_12, ...BESIDE]);
    assertServed(await runInProject<Record<string, Seen>>(project, 'main.cjs', CJS_REQUIRES + APP_BODY));
  });
});

describe('NestJS 11 (CommonJS) with the packed package', () => {
  it('starts and serves as a CommonJS application that requires vigil', async () => {
    const project = projectWith('nest11', [...NEST_11, ...BESIDE]);
    assert.match(installedVersion(project, '@nestjs/core'), /^11\./);
    assertServed(await runInProject<Record<string, Seen>>(project, 'main.cjs', CJS_REQUIRES + APP_BODY));
  });
});
