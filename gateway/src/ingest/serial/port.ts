import { SerialPort } from 'serialport';

export interface SerialPortConfig {
  /** Device path, e.g. /dev/ttyUSB0 or a /dev/serial/by-id/... link. Ports are opened by path. */
  path: string;
  baudRate: number;
  /** How often a missing or lost port is retried, and how often an open port's path is checked. */
  reopenMs: number;
}

/** The part of a serialport stream the serial input uses; lets tests inject a fake port. */
export interface SerialPortLike {
  readonly isOpen: boolean;
  open(callback: (err: Error | null) => void): void;
  close(callback: (err: Error | null) => void): void;
  pause(): unknown;
  resume(): unknown;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'close', listener: (err?: Error | null) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  removeAllListeners(): unknown;
}

/** Creates a port object for a path without opening it; the input calls `open()` itself. */
export type OpenPort = (opts: { path: string; baudRate: number }) => SerialPortLike;

export const openSerialPort: OpenPort = ({ path, baudRate }) =>
  new SerialPort({ path, baudRate, autoOpen: false });

/** The message of an error a port or the sink gave. */
export const errMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));
