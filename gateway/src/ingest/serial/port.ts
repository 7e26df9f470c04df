import { SerialPort } from 'serialport';

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
