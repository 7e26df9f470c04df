/**
 * What starting the gateway takes and gives (`startGateway` in main.ts): the options, and the running
 * gateway's handle for the command line, the demo, the simulators and the tests.
 */
import type { Config } from './config/schema.ts';
import type { ProfileLibrary } from './decode/profiles/library/index.ts';
import type { DeviceLinks } from './ingest/deviceLinks.ts';
import type { Sdi12Outcome } from './ingest/sdi12/sdi12Input.ts';
import type { Registry } from './metrics.ts';
import type { Log } from './pipeline.ts';

export interface GatewayOptions {
  log?: Log;
  now?: () => number;
  /** Started on a stand-in store (the disk was full): called once the real one could be opened. */
  onStoreBack?: () => void;
  /** The ready profiles devices may name (default: the library). */
  profiles?: ProfileLibrary;
}

export interface Gateway {
  httpUrl: string;
  mqttUrl: string;
  mqttPort: number;
  httpPort: number;
  config: Config;
  metrics: Registry;
  /**
   * An error nothing caught: when the disk is its cause (full, read-only, failing), the store turns
   * read-only and this says true, so the process goes on; otherwise false.
   */
  storeFault(e: unknown): boolean;
  /** The one-time link to create the first admin, when the gateway has no account and no token. */
  setupLink?: string;
  /**
   * Resolves once the work the start set going has logged what it logs at once: the notifications
   * waiting at start were tried. The command line prints its last start-up line after it.
   */
  settled(): Promise<void>;
  /** Measures every SDI-12 device now; resolves once each outcome is stored (ingest/sdi12/). */
  measureSdi12(): Promise<Sdi12Outcome[]>;
  /** How each device of a native transport was heard (the ingest stage's, which its inputs record into). */
  links: DeviceLinks;
  /** Polls every Modbus device now (its clock stepped by a simulator or a test). */
  pollModbus(): Promise<void>;
  stop(): Promise<void>;
}
