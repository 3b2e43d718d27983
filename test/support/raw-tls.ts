/**
 * Raw TLS connections to the service, for clients that misbehave on purpose: the test
 * writes bytes when it chooses (or never) and reads everything the service sends back.
 */
import { connect, type TLSSocket } from 'node:tls';
import type { Service } from './service.js';

export interface RawConnection {
  socket: TLSSocket;
  /** Everything received so far, as latin1 text. */
  received(): string;
  /** Resolves once the connection is closed, by either side. */
  closed: Promise<void>;
}

/** Opens a TLS connection and resolves once the handshake is done. */
export function openRaw(service: Pick<Service, 'port' | 'ca'>): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect({ host: 'localhost', port: service.port, ca: service.ca, servername: 'localhost' });
    const closed = new Promise<void>((resolveClosed) => socket.once('close', () => resolveClosed()));
    socket.on('data', (data: Buffer) => (received += data.toString('latin1')));
    // After the handshake an error (a reset once the service closes) only ends the connection.
    socket.on('error', (error) => reject(error));
    socket.once('secureConnect', () => resolve({ socket, received: () => received, closed }));
  });
}

/** Sends raw bytes on a fresh TLS connection and reads until the service closes it. */
export function rawExchange(service: Pick<Service, 'port' | 'ca'>, request: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect({ host: 'localhost', port: service.port, ca: service.ca, servername: 'localhost' }, () =>
      socket.write(request),
    );
    socket.on('data', (data: Buffer) => (received += data.toString('latin1')));
    socket.on('close', () => resolve(received));
    socket.on('error', (error) => (received ? resolve(received) : reject(error)));
  });
}

export const statusLine = (raw: string): string | undefined => raw.split('\r\n')[0];

/** A header of the first response in `raw`, by case-insensitive name. */
export const rawHeader = (raw: string, name: string): string | undefined =>
  new RegExp(`^${name}: (.*)$`, 'mi').exec(raw.split('\r\n\r\n')[0]!.replace(/\r/g, ''))?.[1];
