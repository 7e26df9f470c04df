/**
 * The inputs of the devices that do not speak the gateway's own JSON, from the configuration: a client of
 * each LoRaWAN network server's broker (`integrations`), the Modbus RTU buses polled (`modbus`) and the
 * SDI-12 adapters measured through (`sdi12`). The polled ones follow the live registry: `devicesChanged`
 * after each change of the site catalogue.
 */
import type { DeviceRegistry } from '../config/registry.ts';
import type { Config } from '../config/schema.ts';
import type { ProfileLibrary } from '../decode/profiles/library/index.ts';
import type { Registry } from '../metrics.ts';
import type { Input, Log } from '../pipeline.ts';
import type { DeviceLinks } from './deviceLinks.ts';
import { NetworkServerInput } from './lorawan/networkServerInput.ts';
import { ModbusInput } from './modbus/modbusInput.ts';
import { Sdi12Input, type Sdi12Outcome } from './sdi12/sdi12Input.ts';

export interface FieldbusInputs {
  inputs: Input[];
  /** Measures every SDI-12 device now (none without adapters); resolves once each outcome is stored. */
  measureSdi12(): Promise<Sdi12Outcome[]>;
  /** Polls every Modbus device now (a virtual clock stepped); resolves once their readings are handed over. */
  pollModbus(): Promise<void>;
  /** The site catalogue changed: the polled devices are read again from the live registry. */
  devicesChanged(): void;
}

export function buildFieldbusInputs(
  config: Pick<Config, 'integrations' | 'modbus' | 'sdi12' | 'gatewayId'>,
  deps: {
    registry: DeviceRegistry;
    links: DeviceLinks;
    metrics: Registry;
    log: Log;
    now: () => number;
    /** The profiles devices name (default: the library). */
    profiles?: ProfileLibrary;
  },
): FieldbusInputs {
  const { registry, links, metrics, log, now } = deps;
  const profiles = deps.profiles ? { profiles: deps.profiles } : {};
  const inputs: Input[] = [];
  // SDI-12: the adapters, measuring the live registry's SDI-12 devices; a device change is taken at once.
  let measureSdi12 = async (): Promise<Sdi12Outcome[]> => [];
  let sdi12Changed = (): void => {};
  if (config.sdi12.length) {
    const sdi12 = new Sdi12Input({ adapters: config.sdi12, registry, links, metrics, log, now, ...profiles });
    inputs.push(sdi12);
    measureSdi12 = () => sdi12.measureAll();
    sdi12Changed = () => sdi12.devicesChanged();
  }
  // LoRaWAN: one client of each configured network server's broker.
  for (const server of ['chirpstack', 'thingsStack'] as const) {
    const settings = config.integrations[server];
    if (settings)
      inputs.push(
        new NetworkServerInput({
          server,
          settings,
          gatewayId: config.gatewayId,
          registry,
          links: links,
          metrics,
          log,
          now,
        }),
      );
  }
  // Modbus RTU: the buses polled, their devices following the live registry.
  let modbusChanged = (): void => {};
  let pollModbus = async (): Promise<void> => {};
  if (config.modbus.length) {
    const modbus = new ModbusInput({ buses: config.modbus, registry, links, now, log, ...profiles });
    inputs.push(modbus);
    // The registry is refreshed by a listener of its own: the devices are read again after it.
    modbusChanged = () => setImmediate(() => modbus.refresh());
    pollModbus = () => modbus.pollAll();
  }
  return {
    inputs,
    measureSdi12: () => measureSdi12(),
    pollModbus: () => pollModbus(),
    devicesChanged: () => {
      sdi12Changed();
      modbusChanged();
    },
  };
}
