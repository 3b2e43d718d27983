/**
 * Clients that send large bodies the way real ones do: written piece by piece, reading the
 * answer as soon as it comes, so tests can tell when the service answered and whether a
 * client that is still sending gets to read it.
 */
import { request as httpsRequest } from 'node:https';
import type { Service } from './service.js';

export interface StreamedAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Body bytes handed to the socket when the response arrived. */
  sentWhenAnswered: number;
  total: number;
}

export interface StreamedRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  /** Body bytes to send, made by `piece` (a run of "a" by default). */
  total: number;
  /** Send without Content-Length (Transfer-Encoding: chunked). */
  chunked?: boolean;
  piece?: (offset: number, size: number) => Buffer;
  /** Before each write: lets a test watch the service while the body goes out. */
  onProgress?: (sent: number) => void | Promise<void>;
}

const PIECE = 64 * 1024;

export function sendStreaming(service: Pick<Service, 'url' | 'ca'>, options: StreamedRequest): Promise<StreamedAnswer> {
  const base = new URL(service.url);
  const { total, chunked = false } = options;
  const headers: Record<string, string> = { 'content-type': 'text/plain', ...options.headers };
  if (!chunked) headers['content-length'] = String(total);
  const filler = Buffer.alloc(PIECE, 0x61);
  const piece = options.piece ?? ((_offset: number, size: number) => filler.subarray(0, size));
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    let sentWhenAnswered = 0;
    const req = httpsRequest(
      {
        method: options.method ?? 'POST',
        host: base.hostname,
        port: base.port,
        path: options.path,
        headers,
        ca: service.ca,
        agent: false,
      },
      (res) => {
        answered = true;
        sentWhenAnswered = sent;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            sentWhenAnswered,
            total,
          }),
        );
        res.on('error', reject);
      },
    );
    // Once answered, a write cut short by the service's close is expected.
    req.on('error', (error) => (answered ? undefined : reject(error)));
    const pump = async () => {
      while (sent < total && !answered && !req.destroyed) {
        const size = Math.min(PIECE, total - sent);
        await options.onProgress?.(sent);
        const ok = req.write(piece(sent, size));
        sent += size;
        if (!ok) await new Promise((resolveDrain) => req.once('drain', resolveDrain));
      }
      if (!answered) req.end();
    };
    pump().catch(reject);
  });
}

/** A multipart/form-data body with the given files (filled with "f") and fields. */
export function multipartBody(
  files: Array<{ field: string; name: string; size: number }>,
  fields: Record<string, string> = {},
): { contentType: string; body: Buffer } {
  const boundary = `vigil-test-${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  for (const file of files) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
    );
    parts.push(Buffer.alloc(file.size, 0x66));
    parts.push(Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(parts) };
}
