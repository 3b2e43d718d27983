import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { ConnectionWatch } from './connection-watch.js';

const requestOn = (socket: EventEmitter, id: number) => ({ id, raw: { socket } }) as unknown as FastifyRequest;

describe('ConnectionWatch', () => {
  it('holds nothing for the requests a kept-alive connection answered, and listens once', () => {
    const gone: FastifyRequest[] = [];
    const watch = new ConnectionWatch((request) => gone.push(request));
    const socket = new EventEmitter();
    for (let id = 0; id < 1000; id++) {
      const request = requestOn(socket, id);
      watch.follow(request);
      watch.unfollow(request);
    }
    assert.equal(socket.listenerCount('close'), 1);
    socket.emit('close');
    assert.deepEqual(gone, []);
  });

  it('tells each request still in flight when its connection closes, pipelined ones too', () => {
    const gone: FastifyRequest[] = [];
    const watch = new ConnectionWatch((request) => {
      gone.push(request);
      watch.unfollow(request);
    });
    const socket = new EventEmitter();
    const [answered, first, second, third] = [0, 1, 2, 3].map((id) => requestOn(socket, id));
    for (const request of [answered!, first!, second!, third!]) watch.follow(request);
    watch.unfollow(answered!);
    watch.unfollow(second!);
    socket.emit('close');
    assert.deepEqual(gone, [first, third]);
  });

  it('keeps the requests of two connections apart', () => {
    const gone: FastifyRequest[] = [];
    const watch = new ConnectionWatch((request) => gone.push(request));
    const [left, right] = [new EventEmitter(), new EventEmitter()];
    const mine = requestOn(left, 1);
    watch.follow(mine);
    watch.follow(requestOn(right, 2));
    left.emit('close');
    assert.deepEqual(gone, [mine]);
  });
});
