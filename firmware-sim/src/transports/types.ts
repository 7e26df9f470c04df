import type { DeviceOutput, SimDevice } from '../devices/base.ts';

export interface TransportStats {
  sent: number;
  acked: number;
  errors: number;
}

/** Carries what simulated devices do to a gateway. `send` must keep each device's order. */
export interface Transport {
  readonly name: string;
  open(devices: readonly SimDeviceLogin[]): Promise<void>;
  /** Returns a promise only when the runner must wait (a link going down waits for in-flight messages). */
  send(device: SimDevice, output: DeviceOutput): void | Promise<void>;
  /** Waits for outstanding acknowledgements (up to `timeoutMs`) and disconnects. */
  close(timeoutMs?: number): Promise<void>;
  readonly stats: TransportStats;
}

export interface SimDeviceLogin {
  device: SimDevice;
  username: string;
  password: string;
}
