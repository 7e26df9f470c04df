/**
 * A gateway process for the crash test: an external MQTT input whose store never commits
 * (ingest never resolves). It prints READY once subscribed and INGEST <payload> per message.
 */
import { ExternalMqttInput } from '../../../gateway/src/ingest/mqtt/external.ts';
import { Registry } from '../../../gateway/src/metrics.ts';
import { silentLog } from '../../../gateway/src/pipeline.ts';

const url = process.env.BROKER_URL;
const gatewayId = process.env.GATEWAY_ID;
if (!url || !gatewayId) throw new Error('BROKER_URL and GATEWAY_ID are required');

const input = new ExternalMqttInput({ url, gatewayId, metrics: new Registry(), log: silentLog });
await input.start({
  ingest(msg) {
    process.stdout.write(`INGEST ${msg.payload.toString()}\n`);
    return new Promise(() => {});
  },
});
process.stdout.write('READY\n');
