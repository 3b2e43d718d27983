/**
 * Issue 43, item 6: the HTTP client panel names the application's line for calls made with
 * node:http, axios and got, each of which starts its request away from the caller's stack
 * (a tick later, or deep inside a promise chain). Node says where a request was created from
 * Node 22 on (`http.client.request.created`); on a Node without that channel the lines stay
 * unknown, and the tests say so by skipping.
 */
import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import axios from 'axios';
import Fastify, { type FastifyInstance } from 'fastify';
import got from 'got';
import { loadConfig, vigil, vigilFastifyOptions } from '../../src/index.js';
import { tokenOf } from '../support/answers.js';
import { ask, ROOT } from '../support/service.js';

const THIS_FILE = 'test/profiler/client-call-sites.test.ts';

/** The line of this file that holds `marker`, as the panel should name it. */
function lineOf(marker: string): string {
  const lines = readFileSync(join(ROOT, THIS_FILE), 'utf8').split('\n');
  const index = lines.findIndex((line) => line.includes(marker) && !line.includes('lineOf('));
  assert.ok(index >= 0, `no line marked ${marker}`);
  return `${THIS_FILE}:${index + 1}`;
}

/** True when this Node publishes `http.client.request.created` in the caller. */
function nodeSaysWhereRequestsAreCreated(): boolean {
  let seen = false;
  const note = () => {
    seen = true;
  };
  diagnosticsChannel.subscribe('http.client.request.created', note);
  const probe = httpRequest({ host: '127.0.0.1', port: 9, agent: false });
  probe.on('error', () => undefined);
  probe.destroy();
  diagnosticsChannel.unsubscribe('http.client.request.created', note);
  return seen;
}

const skip = nodeSaysWhereRequestsAreCreated()
  ? false
  : `Node ${process.versions.node} does not say where an HTTP request is created`;

let upstream: Server;
let upstreamUrl: string;
let app: FastifyInstance;
let appUrl: string;

before(async () => {
  upstream = createServer((_request, response) => response.end('upstream'));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
  const config = loadConfig({ TLS: '0', LOG_LEVEL: 'silent', VAR_DIR: mkdtempSync(join(tmpdir(), 'vigil-sites-')) });
  app = Fastify(vigilFastifyOptions(config, { logOutput: { write: () => true } }));
  await app.register(vigil, { config, profilerWriter: { flushDelayMs: 1 } });
  app.get('/axios', async () => {
    const answer = await axios.get(`${upstreamUrl}/by-axios`); // call: axios
    return answer.data;
  });
  app.get('/got', async () => {
    return got(`${upstreamUrl}/by-got`).text(); // call: got alone
  });
  app.get('/got-twice', async () => {
    const [first, second] = await Promise.all([
      got(`${upstreamUrl}/first`).text(), // call: got first
      got(`${upstreamUrl}/second`).text(), // call: got second
    ]);
    return first + second;
  });
  app.get('/node-http', async () => {
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest(`${upstreamUrl}/by-node`); // call: node:http
      outgoing.on('response', (response) => {
        response.resume();
        response.on('end', () => resolve('done'));
      });
      outgoing.on('error', reject);
      outgoing.end();
    });
  });
  appUrl = await app.listen({ host: '127.0.0.1', port: 0 });
});

after(async () => {
  await app?.close();
  upstream?.close();
});

async function callsOf(path: string): Promise<Array<{ url: string; site: string | null }>> {
  const answer = await ask({ url: appUrl, ca: undefined }, { path });
  assert.equal(answer.status, 200, answer.body);
  const profiler = app.vigil.profiler!;
  await profiler.writer.flush();
  const report = await profiler.store.read(tokenOf(answer));
  const section = report?.collectors.httpClient as { calls: Array<{ url: string; site: string | null }> };
  return section.calls;
}

describe('the line of an outgoing call, whichever client made it', { skip }, () => {
  it('names the line that called axios', async () => {
    const [call] = await callsOf('/axios');
    assert.equal(call!.url, `${upstreamUrl}/by-axios`);
    assert.equal(call!.site, lineOf('// call: axios'));
  });

  it('names the line that called got', async () => {
    const [call] = await callsOf('/got');
    assert.equal(call!.url, `${upstreamUrl}/by-got`);
    assert.equal(call!.site, lineOf('// call: got alone'));
  });

  it('names the line of each of two got calls made together', async () => {
    const calls = await callsOf('/got-twice');
    const byUrl = new Map(calls.map((call) => [call.url, call.site]));
    assert.equal(byUrl.get(`${upstreamUrl}/first`), lineOf('// call: got first'));
    assert.equal(byUrl.get(`${upstreamUrl}/second`), lineOf('// call: got second'));
  });

  it('names the line that called http.request', async () => {
    const [call] = await callsOf('/node-http');
    assert.equal(call!.url, `${upstreamUrl}/by-node`);
    assert.equal(call!.site, lineOf('// call: node:http'));
  });
});
