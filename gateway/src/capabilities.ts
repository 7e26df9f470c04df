/**
 * The gateway's optional parts, each available or not and why, in words: printing reports and notices
 * to PDF (Chromium), e-mail (an SMTP server), the InfluxDB copy of the readings, and the copies of the
 * signed checkpoints kept off this box. GET /api/health lists them; the log says at start which are missing.
 */
import { existsSync } from 'node:fs';
import type { Capability } from '../../shared/src/api/system.ts';
import { type Config, externalBrokerUrls } from './config/schema.ts';
import type { ComponentHealth, Log } from './pipeline.ts';
import { CHROMIUM_CANDIDATES, findChromium } from './reports/pdf.ts';

type Sources = Pick<Config, 'reports' | 'notify' | 'influx' | 'mqtt' | 'evidence'>;

/** A URL without its credentials or path: what is safe to show of where a service is. */
function place(url: string): string {
  if (!URL.canParse(url)) return 'an address that is not a URL';
  const u = new URL(url);
  return `${u.protocol}//${u.host}`;
}

export function capabilities(
  config: Sources,
  components: readonly ComponentHealth[],
  exists: (path: string) => boolean = existsSync,
): Capability[] {
  return [pdf(config, exists), email(config), influx(config, components), offBox(config)];
}

function pdf(config: Sources, exists: (path: string) => boolean): Capability {
  const label = 'Printing reports and notices to PDF';
  const chromium = findChromium(config.reports.chromium, exists);
  if (chromium !== undefined)
    return {
      name: 'pdf',
      label,
      available: true,
      words: `Reports and notices print to PDF with Chromium (${chromium}).`,
    };
  const why =
    config.reports.chromium !== undefined
      ? `there is no Chromium at ${config.reports.chromium} (reports.chromium or CHROMIUM_PATH)`
      : `no Chromium was found (looked for ${CHROMIUM_CANDIDATES.join(', ')}): install Debian's chromium package or set reports.chromium`;
  return {
    name: 'pdf',
    label,
    available: false,
    words: `Reports and notices cannot be printed to PDF on the gateway: ${why}. Their pages still print from a browser.`,
  };
}

function email(config: Sources): Capability {
  const label = 'Sending e-mail';
  const smtp = config.notify.smtp;
  if (smtp !== undefined)
    return {
      name: 'email',
      label,
      available: true,
      words: `E-mails are sent through ${smtp.host}, port ${smtp.port}.`,
    };
  return {
    name: 'email',
    label,
    available: false,
    words:
      'No e-mail is sent: no mail server is set (notify.smtp). Alerts reach people only on the dashboard and by webhook.',
  };
}

function influx(config: Sources, components: readonly ComponentHealth[]): Capability {
  const label = 'Copying readings to InfluxDB';
  if (!config.influx.url)
    return {
      name: 'influxdb',
      label,
      available: false,
      words:
        'Readings are not copied to InfluxDB: none is set (influx.url). The gateway keeps them in its own store.',
    };
  const where = place(config.influx.url);
  const h = components.find((c) => c.name === 'influxdb');
  if (h !== undefined && !h.ok)
    return {
      name: 'influxdb',
      label,
      available: false,
      words: `InfluxDB at ${where} is not taking the readings${h.detail ? ` (${h.detail})` : ''}; they wait in the gateway's store and are sent when it answers.`,
    };
  return { name: 'influxdb', label, available: true, words: `Readings are copied to InfluxDB at ${where}.` };
}

function offBox(config: Sources): Capability {
  const label = 'Copies of the signed checkpoints off this box';
  const places: string[] = [];
  if (config.influx.url) places.push('InfluxDB');
  if (externalBrokerUrls(config.mqtt).length > 0) places.push('the external MQTT broker');
  for (const w of config.evidence.witnesses) places.push(`the witness at ${place(w.url)}`);
  if (config.evidence.digestTo.length > 0) places.push('a daily e-mail digest');
  if (places.length > 0)
    return {
      name: 'offBox',
      label,
      available: true,
      words: `Signed checkpoints are copied off this box to ${places.join(', ')}.`,
    };
  return {
    name: 'offBox',
    label,
    available: false,
    words:
      'No copy of the signed checkpoints is kept off this box (no InfluxDB, external MQTT broker, witness or e-mail digest is set): a store cut short and put back could not be told from the original.',
  };
}

/**
 * At start: one line for each optional part that is missing, saying why. At info level: a part left out
 * is a choice of the deployment, not a fault (health and the log say so; a failure of one that is set is
 * its stage's warning).
 */
export function logMissingCapabilities(list: readonly Capability[], log: Pick<Log, 'info'>): void {
  for (const c of list)
    if (!c.available) log.info({ capability: c.name }, `${c.label}: not available. ${c.words}`);
}
