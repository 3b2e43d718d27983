/**
 * Multipart uploads for matched routes, read before the handler runs (as PHP fills
 * $_FILES): each file streams to a temporary file, never whole into memory, under
 * UPLOAD_MAX_FILESIZE, at most MAX_FILE_UPLOADS of them; the text fields, held in memory for the handler, stay under
 * PARSED_BODY_MAX_SIZE all together, as a form body does; the whole body stays under
 * POST_MAX_SIZE and is cut when it stalls for BODY_TIMEOUT or trickles under BODY_MIN_RATE;
 * the temporary files are removed when the response closes, however the request ended.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import multipart, { type Multipart, type MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { MAX_PARTS, type ByteSize } from '../config/index.js';
import { BadRequestHttpError, HttpError } from '../errors/http-errors.js';
import { stateOf } from '../http/request-state.js';
import type { UploadedFile } from '../routing/routes.js';
import {
  fieldsTooLargeMessage,
  parsedBodyLimit,
  postBodyLimit,
  tooLargeMessage,
  type BodyLimit,
} from './body-limit.js';
import { watchBody, type BodyPace } from './body-timeout.js';
import { addField, type FormFields } from './form-fields.js';
import { PayloadTooLargeHttpError, TooManyUploadsHttpError, UploadTooLargeHttpError } from './limit-errors.js';
import { closeAfterResponse } from './lingering-close.js';

interface UploadLimits extends BodyPace {
  postMaxSize: ByteSize;
  parsedBodyMaxSize: ByteSize;
  uploadMaxFilesize: ByteSize;
  maxFileUploads: number;
}

/** Readies `scope` to read multipart bodies, before its uploads hook is added. */
export async function prepareUploads(scope: FastifyInstance, limits: UploadLimits): Promise<void> {
  // An application that registered @fastify/multipart before vigil keeps its own (and its limits).
  if (!scope.hasRequestDecorator('isMultipart')) await registerMultipart(scope, limits);
}

/** The preHandler of the scopes whose routes can have a body: their uploads, saved before the handler runs. */
export function uploadsHook(limits: UploadLimits): preHandlerAsyncHookHandler {
  return async function receiveUploadsHook(request, reply) {
    if (request.isMultipart()) await receiveUploads(request, reply, limits);
  };
}

async function registerMultipart(scope: FastifyInstance, limits: UploadLimits): Promise<void> {
  await scope.register(multipart, {
    // The file limit is enforced here (to name the file); text fields are read and bounded here too.
    throwFileSizeLimit: false,
    limits: { fileSize: limits.uploadMaxFilesize.bytes, fieldSize: fieldsLimit(limits).size.bytes, parts: MAX_PARTS },
  });
}

async function receiveUploads(request: FastifyRequest, reply: FastifyReply, limits: UploadLimits): Promise<void> {
  const files: UploadedFile[] = [];
  stateOf(request).uploadedFiles = files;
  let directory: string | undefined;
  const saving = saveParts(
    request,
    limits,
    files,
    async () => (directory ??= await mkdtemp(join(tmpdir(), 'vigil-upload-'))),
  );
  // The close comes once the answer is sent or the client is gone; removal waits for the
  // saving to settle, so that no file can be created after it.
  reply.raw.once('close', () => {
    saving
      .catch(() => undefined)
      .then(() => (directory === undefined ? undefined : rm(directory, { recursive: true, force: true })))
      .catch((error: unknown) => request.log.error({ err: error }, `could not remove the uploads in ${directory}`));
  });
  try {
    request.body = await saving;
  } catch (error) {
    // The rest of the body is of no use now and the stream may be mid-part: end the connection.
    closeAfterResponse(request, reply);
    throw error instanceof HttpError || hasClientStatus(error)
      ? error
      : new BadRequestHttpError(
          `The multipart body is malformed: ${(error as Error).message}`,
          'VIGIL_ERR_BAD_MULTIPART',
          { cause: error },
        );
  }
}

async function saveParts(
  request: FastifyRequest,
  limits: UploadLimits,
  files: UploadedFile[],
  directory: () => Promise<string>,
): Promise<FormFields> {
  const fields: FormFields = Object.create(null);
  const textLimit = fieldsLimit(limits);
  const text: TextBudget = { limit: textLimit, left: textLimit.size.bytes };
  const body = guardBody(request.raw, limits);
  try {
    // Every part comes as a stream, text fields too: busboy would collect a field whole before
    // handing it over, where a stream is counted, and cut, as it arrives.
    const parts = request.parts({ isPartAFile: () => true })[Symbol.asyncIterator]();
    for (;;) {
      const next: IteratorResult<Multipart> = await Promise.race([parts.next(), body.stopped]);
      if (next.done) break;
      const part = next.value;
      // Not sent while every part is a stream; counted as the others should it come.
      if (part.type === 'field') {
        spend(text, part.fieldname, String(part.value));
        addField(fields, part.fieldname, String(part.value));
        continue;
      }
      body.reading(part.file);
      if (isFile(part)) files.push(await saveFile(part, limits, files.length, directory, body.stopped));
      else addField(fields, part.fieldname, await Promise.race([readTextField(part, text, limits), body.stopped]));
      body.reading(undefined);
    }
    return fields;
  } finally {
    body.release();
  }
}

type PartStream = NodeJS.ReadableStream & { destroy(error?: Error): void };

/** A request's raw body, counted under POST_MAX_SIZE and watched for stalls while its parts are read. */
interface GuardedBody {
  /** Rejects once the body is cut: raced against every wait on the body. */
  readonly stopped: Promise<never>;
  /** The part being read, destroyed with the body's error should the body be cut. */
  reading(part: PartStream | undefined): void;
  /** Stops counting and watching. */
  release(): void;
}

function guardBody(raw: FastifyRequest['raw'], limits: UploadLimits): GuardedBody {
  let currentPart: PartStream | undefined;
  let stop!: (error: Error) => void;
  const stopped = new Promise<never>((_, reject) => (stop = reject));
  stopped.catch(() => undefined);
  // The body is over its limit, stalled or too slow: stop reading it and fail whatever waits for it.
  const cut = (error: Error) => {
    raw.removeListener('data', count);
    watch.stop();
    raw.unpipe();
    currentPart?.destroy(error);
    stop(error);
  };
  // While a file write holds the request paused, or once the body is all in, the kernel is the one not reading.
  const waitingOnClient = () => !raw.complete && raw.readableFlowing !== false && raw.readableLength === 0;
  const watch = watchBody(limits, cut, waitingOnClient);
  let received = 0;
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received > limits.postMaxSize.bytes)
      return cut(new PayloadTooLargeHttpError(tooLargeMessage(postBodyLimit(limits.postMaxSize))));
    watch.received(chunk.length);
  };
  // Paused first, so that listening does not start the flow before the parser is piped.
  raw.pause();
  raw.on('data', count);
  return {
    stopped,
    reading: (part) => void (currentPart = part),
    release() {
      raw.removeListener('data', count);
      watch.stop();
    },
  };
}

/** One uploaded file, streamed to a temporary file under UPLOAD_MAX_FILESIZE. */
async function saveFile(
  part: MultipartFile,
  limits: UploadLimits,
  saved: number,
  directory: () => Promise<string>,
  stopped: Promise<never>,
): Promise<UploadedFile> {
  const file = part.file;
  // Each file is created and removed on disk whatever its size: their number is bounded, as php.ini's max_file_uploads.
  if (saved === limits.maxFileUploads) {
    file.destroy();
    throw new TooManyUploadsHttpError(
      `The multipart body has more than MAX_FILE_UPLOADS (${limits.maxFileUploads}) files`,
    );
  }
  // Stored under a number: the client's file name never reaches the file system.
  const path = join(await directory(), String(saved));
  file.once('limit', () => {
    file.destroy(
      new UploadTooLargeHttpError(
        `The uploaded file "${part.filename}" is larger than UPLOAD_MAX_FILESIZE (${limits.uploadMaxFilesize.text})`,
      ),
    );
  });
  const target = createWriteStream(path, { flags: 'wx' });
  await Promise.race([pipeline(file, target), stopped]);
  return { field: part.fieldname, filename: part.filename, mimetype: part.mimetype, size: target.bytesWritten, path };
}

/** What the text fields of one body may still take, in bytes (names and values, as a form body counts them). */
interface TextBudget {
  limit: BodyLimit;
  left: number;
}

/** The text fields' limit: PARSED_BODY_MAX_SIZE, as for a form body, unless POST_MAX_SIZE is lower. */
function fieldsLimit(limits: UploadLimits): BodyLimit {
  return parsedBodyLimit(limits.postMaxSize, limits.parsedBodyMaxSize);
}

function spend(budget: TextBudget, ...texts: (string | Buffer)[]): void {
  for (const text of texts) budget.left -= typeof text === 'string' ? Buffer.byteLength(text) : text.length;
  if (budget.left < 0) throw new PayloadTooLargeHttpError(fieldsTooLargeMessage(budget.limit));
}

/** Busboy's rule for what is a file: a file name, or a part typed as bytes. */
function isFile(part: MultipartFile): boolean {
  return part.filename !== undefined || part.mimetype === 'application/octet-stream';
}

/** A text field's value, read as it comes under what the fields have left (a form body's UTF-8). */
async function readTextField(part: MultipartFile, budget: TextBudget, limits: UploadLimits): Promise<string> {
  const stream = part.file;
  // As a stream, a text field is one more part under busboy's per-part limit, UPLOAD_MAX_FILESIZE.
  stream.once('limit', () => {
    stream.destroy(
      new UploadTooLargeHttpError(
        `The text field "${part.fieldname}" is larger than UPLOAD_MAX_FILESIZE (${limits.uploadMaxFilesize.text}), the limit of each part of a multipart body`,
      ),
    );
  });
  const chunks: Buffer[] = [];
  try {
    if (part.fieldname === undefined)
      throw new BadRequestHttpError(
        'The multipart body is malformed: a text field has no name',
        'VIGIL_ERR_BAD_MULTIPART',
      );
    spend(budget, part.fieldname);
    // Leaving the loop by a throw destroys the stream, which ends the parsing of the body.
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      spend(budget, chunk);
      chunks.push(chunk);
    }
  } catch (error) {
    stream.destroy();
    throw error;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The multipart plugin's own errors carry a 4xx status (parts limit, premature close). */
function hasClientStatus(error: unknown): boolean {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
}
