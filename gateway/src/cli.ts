/** `npm start`: loads the configuration (GATEWAY_CONFIG, default the sample), starts the gateway, stops on signals. */
import { ConfigError, loadConfig } from './config/load.ts';
import { createLog } from './log.ts';
import { startGateway } from './main.ts';
import { SAMPLE_CONFIG } from './paths.ts';

const path = process.env.GATEWAY_CONFIG ?? SAMPLE_CONFIG;
const log = createLog((process.env.LOG_LEVEL as 'info') || 'info');

try {
  const config = loadConfig(path);
  const gw = await startGateway(config, { log });
  log.info({ config: path, http: gw.httpUrl, mqtt: gw.mqttUrl }, 'ready');
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    gw.stop().then(
      () => process.exit(0),
      (e: Error) => {
        log.error({ err: e.message }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
} catch (e) {
  if (e instanceof ConfigError) {
    process.stderr.write(`${e.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`gateway failed to start: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
}
