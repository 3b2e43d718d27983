/**
 * The parsers of matched routes' bodies, each reading through {@link readBody} (a size
 * limit, BODY_TIMEOUT and BODY_MIN_RATE): JSON (nested at most MAX_JSON_DEPTH levels), forms and text,
 * each held whole in memory, so each up to PARSED_BODY_MAX_SIZE. Multipart bodies are the
 * uploads' (`uploads.ts`), streamed to disk under POST_MAX_SIZE.
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ByteSize } from '../config/index.js';
import { BadRequestHttpError } from '../errors/http-errors.js';
import { fastifyBodyLimit, parsedBodyLimit } from './body-limit.js';
import { readBody } from './body-reader.js';
import type { BodyPace } from './body-timeout.js';
import { parseForm } from './form-fields.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';

interface BodyParserSettings extends BodyPace {
  postMaxSize: ByteSize;
  parsedBodyMaxSize: ByteSize;
}

type JsonParser = (request: FastifyRequest, body: string, done: (error: Error | null, value?: unknown) => void) => void;
type BodyParser = (request: FastifyRequest, payload: IncomingMessage) => Promise<unknown>;

export function installBodyParsers(scope: FastifyInstance, settings: BodyParserSettings): void {
  const parsed = parsedBodyLimit(settings.postMaxSize, settings.parsedBodyMaxSize);
  const pace: BodyPace = { bodyTimeoutMs: settings.bodyTimeoutMs, bodyMinRate: settings.bodyMinRate };
  // Fastify's own JSON parsing (prototype poisoning refused, its 400s for empty or broken JSON).
  const parseJson = scope.getDefaultJsonParser('error', 'error') as JsonParser;
  const json: BodyParser = async (request, payload) => {
    const body = (await readBody(request.headers, payload, parsed, pace)).toString('utf8');
    if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
      throw new BadRequestHttpError(
        `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep (the limit for parsed bodies)`,
        'VIGIL_ERR_JSON_TOO_DEEP',
      );
    }
    return new Promise((resolve, reject) =>
      parseJson(request, body, (error, value) => (error ? reject(error) : resolve(value))),
    );
  };
  const form: BodyParser = async (request, payload) =>
    parseForm((await readBody(request.headers, payload, parsed, pace)).toString('utf8'));
  const plain: BodyParser = async (request, payload) =>
    (await readBody(request.headers, payload, parsed, pace)).toString('utf8');
  scope.addContentTypeParser('application/json', json);
  scope.addContentTypeParser('application/x-www-form-urlencoded', form);
  scope.addContentTypeParser('text/plain', plain);
  yieldToApplicationParsers(scope, KERNEL_TYPES, fastifyBodyLimit(parsed.size));
}

const KERNEL_TYPES = ['application/json', 'application/x-www-form-urlencoded', 'text/plain'];

/**
 * The application's parser for one of the kernel's types replaces the kernel's, as a parser
 * of its own replaces Fastify's JSON and text ones (`@fastify/formbody` registered after
 * vigil, no FST_ERR_CTP_ALREADY_PRESENT). A second parser of the application's for a type it
 * already has is refused by Fastify as usual.
 *
 * A parser the application adds that reads the body whole (`parseAs`) without a `bodyLimit`
 * of its own gets `parsedLimit`, not Fastify's server-wide `bodyLimit`: that one is
 * POST_MAX_SIZE, the bound of uploads, which stream to disk.
 */
function yieldToApplicationParsers(root: FastifyInstance, types: readonly string[], parsedLimit: number): void {
  const claimed = new WeakMap<object, Set<string>>();
  const claimedAbove = (instance: object, type: string): boolean => {
    for (let at: object | null = instance; at !== null; at = Object.getPrototypeOf(at))
      if (claimed.get(at)?.has(type)) return true;
    return false;
  };
  const add = root.addContentTypeParser;
  root.addContentTypeParser = function addContentTypeParser(
    this: FastifyInstance,
    contentType: unknown,
    ...rest: unknown[]
  ) {
    const type = typeof contentType === 'string' ? contentType.trim().toLowerCase() : undefined;
    if (type !== undefined && types.includes(type) && !claimedAbove(this, type)) {
      if (this.hasContentTypeParser(type)) this.removeContentTypeParser(type);
      let own = claimed.get(this);
      if (own === undefined) claimed.set(this, (own = new Set()));
      own.add(type);
    }
    const [options, ...parser] = rest;
    if (
      typeof options === 'object' &&
      options !== null &&
      (options as { parseAs?: unknown }).parseAs !== undefined &&
      !(options as { bodyLimit?: unknown }).bodyLimit
    ) {
      return (add as (...args: unknown[]) => FastifyInstance).call(
        this,
        contentType,
        { ...options, bodyLimit: parsedLimit },
        ...parser,
      );
    }
    return (add as (...args: unknown[]) => FastifyInstance).call(this, contentType, ...rest);
  } as FastifyInstance['addContentTypeParser'];
}
