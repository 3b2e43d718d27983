/**
 * Issue 43, item 1: a NestJS application with the Fastify adapter (Nest 11, whose adapter
 * brings its own fastify 5.11, beside the 5.12 vigil resolves) starts with vigil registered
 * on `adapter.getInstance()`, as docs/nestjs.md has it. Over real sockets: the controller's
 * routes answer with the debug token, the unmatched ones get vigil's 404 and 405, and Nest's
 * `HttpException`s keep their statuses through vigil's pipeline. The controller is written
 * without decorator syntax (the repository's tsconfig takes none): Nest's decorators are
 * functions, applied here by hand.
 */
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BadRequestException, Controller, Get, Module, NotFoundException, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { loadConfig, vigil, vigilFastifyOptions } from '../../src/index.js';
import { tokenOf } from '../support/answers.js';
import { ask, type Answer } from '../support/service.js';

class ItemsController {
  list() {
    return { items: ['a', 'b'] };
  }
  missing(): never {
    throw new NotFoundException('no such item');
  }
  refused(): never {
    throw new BadRequestException('bad item');
  }
  create() {
    return { created: true };
  }
}

/** `@Get()`, `@Post()` and `@Controller('items')`, applied as the compiler would. */
function decorate(): void {
  const method = (name: keyof ItemsController, decorator: MethodDecorator) => {
    const descriptor = Object.getOwnPropertyDescriptor(ItemsController.prototype, name);
    if (!descriptor) throw new Error(`no method ${name}`);
    decorator(ItemsController.prototype, name, descriptor);
  };
  method('list', Get());
  method('missing', Get('missing'));
  method('refused', Get('refused'));
  method('create', Post());
  Controller('items')(ItemsController);
}
decorate();

class AppModule {}
Module({ controllers: [ItemsController] })(AppModule);

let app: NestFastifyApplication | undefined;
const target = { url: '', ca: undefined };

before(async () => {
  const config = loadConfig({ TLS: '0', LOG_LEVEL: 'silent', VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-nest-')) });
  // Typed by vigil's copy of fastify, beside the adapter's own.
  const adapter = new FastifyAdapter(vigilFastifyOptions(config) as ConstructorParameters<typeof FastifyAdapter>[0]);
  await (adapter.getInstance() as unknown as FastifyInstance).register(vigil, {
    config,
    profilerWriter: { flushDelayMs: 1 },
    announceProfiler: false,
  });
  app = await NestFactory.create<NestFastifyApplication>(AppModule, adapter, { logger: false });
  await app.listen(0, '127.0.0.1');
  target.url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
});
after(() => app?.close());

const json = (answer: Answer): Record<string, unknown> => JSON.parse(answer.body) as Record<string, unknown>;

describe('a NestJS application with vigil on its Fastify adapter', () => {
  it("answers a controller's route, with the debug token", async () => {
    const answer = await ask(target, { path: '/items' });
    assert.equal(answer.status, 200, answer.body);
    assert.deepEqual(json(answer), { items: ['a', 'b'] });
    assert.match(tokenOf(answer), /^[0-9a-f]{6,}$/);
  });

  it("answers an unknown path with vigil's 404", async () => {
    const answer = await ask(target, { path: '/nowhere', headers: { accept: 'text/html' } });
    assert.equal(answer.status, 404, answer.body);
    assert.match(answer.body, /No route found for &quot;GET http:\/\/127\.0\.0\.1:\d+\/nowhere&quot;/);
    assert.match(tokenOf(answer), /^[0-9a-f]{6,}$/);
  });

  it('answers a wrong method with a 405 naming the methods the path takes', async () => {
    const answer = await ask(target, { method: 'DELETE', path: '/items' });
    assert.equal(answer.status, 405, answer.body);
    assert.equal(answer.headers.allow, 'GET, POST');
  });

  it("keeps the status of Nest's HttpExceptions a controller throws", async () => {
    const missing = await ask(target, { path: '/items/missing' });
    assert.equal(missing.status, 404, missing.body);
    assert.match(missing.body, /no such item/);
    const refused = await ask(target, { path: '/items/refused' });
    assert.equal(refused.status, 400, refused.body);
    assert.match(refused.body, /bad item/);
  });
});
