/**
 * Libraries' callbacks run in the request that made the call. mysql2 calls a query's callback
 * from its socket's events, and a waiting `getConnection` back from another request's
 * `release()`: AsyncLocalStorage then names no request or the wrong one, and the statements the
 * callback runs were lost or filed under that other request. Its TracingChannels carry the
 * call from `start` to the callback, which Node runs through `asyncStart.runStores`: the
 * request's frame is noted at `start` and put back around the callback. Held with the query
 * channels (`query-channels.ts`).
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import { bindScope, currentFrame, type ScopeFrame } from '../../http/request-scope.js';

/** TracingChannels whose callbacks (`traceCallback`) run the application's next step. */
export const CALLBACK_CHANNELS: readonly string[] = ['mysql2:query', 'mysql2:execute', 'mysql2:pool:connect'];

/** The frame each call started in, by the context object its channel carries from start to callback. */
const origins = new WeakMap<object, ScopeFrame>();

const noteOrigin = (context: unknown) => {
  const frame = currentFrame();
  if (frame !== undefined && typeof context === 'object' && context !== null) origins.set(context, frame);
};
const originOf = (context: unknown) =>
  typeof context === 'object' && context !== null ? origins.get(context) : undefined;

const channels = CALLBACK_CHANNELS.map((name) => diagnosticsChannel.tracingChannel(name));
let unbind: Array<() => void> = [];

/** Starts putting callbacks back in their request; {@link releaseCallbackChannels} stops. */
export function bindCallbackChannels(): void {
  for (const channel of channels) {
    channel.start.subscribe(noteOrigin);
    unbind.push(bindScope(channel.asyncStart, originOf));
  }
}

export function releaseCallbackChannels(): void {
  for (const channel of channels) channel.start.unsubscribe(noteOrigin);
  for (const undo of unbind) undo();
  unbind = [];
}
