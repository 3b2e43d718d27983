/**
 * What an outgoing call sent and received beyond its status: its request and response
 * headers as the client holds them, and the first {@link BODY_HEAD_BYTES} of its response
 * body with the count of bytes received, seen as the client hands each chunk on to the
 * application (never read in its place). Kept raw while the call runs, bounded; decoded and
 * redacted only when a report is made (`collectors/http-client.ts`).
 */

/** Bytes of a response body kept, at most, per call. */
export const BODY_HEAD_BYTES = 4096;

/**
 * Headers as a client holds them: undici's flat list of names and values (text or bytes),
 * an older undici's `name: value\r\n` text, or node:http's object by name.
 */
export type RawHeaders = ReadonlyArray<Buffer | string> | string | Readonly<Record<string, unknown>>;

export interface CallExchange {
  requestHeaders?: RawHeaders | undefined;
  responseHeaders?: RawHeaders | undefined;
  /** Copies of the body's first bytes, {@link BODY_HEAD_BYTES} in all at most. */
  readonly head: Buffer[];
  headBytes: number;
  /** Bytes of the response body seen so far. */
  received: number;
  /** The body was seen to its end. */
  complete: boolean;
}

export function newExchange(): CallExchange {
  return { head: [], headBytes: 0, received: 0, complete: false };
}

/** Counts a chunk of the response body, and keeps a copy of what the head still lacks. */
export function takeChunk(exchange: CallExchange, chunk: unknown): void {
  const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk instanceof Uint8Array ? chunk : undefined;
  if (bytes === undefined) return;
  exchange.received += bytes.byteLength;
  const wanted = BODY_HEAD_BYTES - exchange.headBytes;
  if (wanted <= 0 || bytes.byteLength === 0) return;
  // A copy: a chunk is often a slice of the socket's larger buffer, which it would keep alive.
  const copy = Buffer.from(bytes.subarray(0, wanted));
  exchange.head.push(copy);
  exchange.headBytes += copy.byteLength;
}

/** Header values by lower-case name, a repeated header's values in a list. */
export function headerRecord(raw: RawHeaders | undefined): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (raw === undefined) return out;
  const add = (name: string, value: string) => {
    // An upstream's header so named would set the record's prototype.
    if (name === '__proto__') return;
    const known = out[name];
    out[name] = known === undefined ? value : [known, value].flat();
  };
  if (typeof raw === 'string') {
    for (const line of raw.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) add(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
  } else if (Array.isArray(raw)) {
    const list = raw as ReadonlyArray<Buffer | string>;
    for (let i = 0; i + 1 < list.length; i += 2) add(String(decoded(list[i])).toLowerCase(), decoded(list[i + 1]));
  } else {
    for (const [name, value] of Object.entries(raw)) {
      if (value === undefined) continue;
      for (const one of [value].flat()) add(name.toLowerCase(), String(one));
    }
  }
  return out;
}

/** Header bytes are Latin-1, as Node's HTTP parser reads them. */
function decoded(value: Buffer | string | undefined): string {
  return typeof value === 'string' ? value : value === undefined ? '' : Buffer.from(value).toString('latin1');
}
