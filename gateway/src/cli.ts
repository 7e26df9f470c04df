/**
 * `npm start`: loads the configuration (GATEWAY_CONFIG, default the sample), starts the gateway, stops on
 * signals. A stop finishes within STOP_MS (in-flight commits first, then the clients are closed); a start
 * on a full disk comes up read-only and starts over on the real store once space returns.
 *
 * The log is JSON, one object a line on stderr. With no account yet, the start-up output ends with one
 * plain line, not JSON, on the same stream: the one-time link to create the first administrator. It
 * comes after the notices waiting at start were tried (at most SETTLE_MS), so their lines come before it.
 */
import { DemoSecretsExposed } from './config/demoSecrets.ts';
import { ConfigError, loadConfig } from './config/load.ts';
import type { Config } from './config/schema.ts';
import { createLog } from './log.ts';
import { type Gateway, startGateway } from './main.ts';
import { SAMPLE_CONFIG } from './paths.ts';

/** The longest a stop may take before the process exits anyway. */
const STOP_MS = 9000;
/** The longest the last start-up line waits for the first notification pass (a slow mail server). */
const SETTLE_MS = 5000;

const path = process.env.GATEWAY_CONFIG ?? SAMPLE_CONFIG;
const log = createLog((process.env.LOG_LEVEL as 'info') || 'info');

let gw: Gateway | undefined;
let stopping = false;

async function start(config: Config): Promise<void> {
  gw = await startGateway(config, {
    log,
    onStoreBack: () => {
      if (stopping) return;
      log.info('space is back in the data directory: starting over on the real store');
      const old = gw;
      gw = undefined;
      void (old ? old.stop() : Promise.resolve())
        .then(() => start(config))
        .catch((e: Error) => {
          log.error({ err: e.message }, 'start on the real store failed');
          process.exit(1);
        });
    },
  });
  log.info({ config: path, http: gw.httpUrl, mqtt: gw.mqttUrl }, 'ready');
  const link = gw.setupLink;
  if (!link) return;
  await settledOrLater(gw);
  process.stderr.write(`No account yet. Create the first administrator (the link works once): ${link}\n`);
}

/** Waits for the gateway's first notification pass, at most SETTLE_MS. */
async function settledOrLater(g: Gateway): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    g.settled(),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, SETTLE_MS);
    }),
  ]);
  clearTimeout(timer);
}

const shutdown = (signal: string) => {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'stopping');
  setTimeout(() => {
    log.error({ ms: STOP_MS }, 'stop took too long; exiting');
    process.exit(1);
  }, STOP_MS).unref();
  (gw ? gw.stop() : Promise.resolve()).then(
    () => process.exit(0),
    (e: Error) => {
      log.error({ err: e.message }, 'stop failed');
      process.exit(1);
    },
  );
};

/**
 * The last line of defence: an error nothing caught ends the process, unless the disk is its cause (a
 * full, read-only or failing disk), which turns the store read-only instead (health red, counted in
 * gateway_store_write_failures_total) while the gateway goes on serving what it has.
 */
const uncaught = (kind: string) => (e: unknown) => {
  if (gw?.storeFault(e)) {
    log.error(
      { err: e instanceof Error ? e.message : String(e), kind },
      'a write failed on the disk; the store is read-only',
    );
    return;
  }
  process.stderr.write(`${kind}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
};
process.on('uncaughtException', uncaught('uncaught exception'));
process.on('unhandledRejection', uncaught('unhandled rejection'));

try {
  const config = loadConfig(path);
  await start(config);
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
} catch (e) {
  if (e instanceof ConfigError || e instanceof DemoSecretsExposed) {
    process.stderr.write(`${e.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`gateway failed to start: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
}
