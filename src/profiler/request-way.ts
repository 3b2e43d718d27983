/** Where a profiled request goes on after the profiler's first hook, and how an upgrade's report is finished. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { runInScope, scopesAsked } from '../http/request-scope.js';
import type { RequestProfile } from './model/request-profile.js';

/**
 * Lets the request go on, inside its scope when a route matched: the rest of its hooks and
 * its handler then run there, and what its code logs or measures is filed under it. An
 * unrouted request runs no application code, and skips the cost of entering one. Production
 * (`onceAsked`) enters it once code has asked for its request (`askForScopes`).
 */
export function proceed(request: FastifyRequest, profile: RequestProfile, done: () => void, onceAsked = false): void {
  // Asked first: Fastify's `is404` reads the route's context under a symbol, a costly load
  // where requests of several plugin contexts meet.
  if ((onceAsked && !scopesAsked()) || request.is404) return done();
  runInScope(profile.scope, done);
}

/**
 * An upgrade (a websocket's, through `@fastify/websocket`) is hijacked: Fastify runs no
 * onResponse for it, and the handshake is written on the socket, not through the reply. Its
 * report is the handshake's, made by `finish` once the handler has taken the socket (101).
 * The wrap is this reply's own, and only an upgrade's.
 */
export function finishWhenHijacked(reply: FastifyReply, finish: () => void): void {
  const hijack = reply.hijack;
  reply.hijack = () => {
    const hijacked = hijack.call(reply);
    // The handshake's status, for the report: Fastify sends nothing of a hijacked reply.
    reply.code(101);
    setImmediate(finish);
    return hijacked;
  };
}
