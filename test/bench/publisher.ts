/**
 * Benchmark load generator (its own process): several MQTT connections publish QoS 1 telemetry with a
 * bounded window of unacknowledged messages each. Prints one JSON line: {sent, acked, ms}.
 * argv: JSON {url, clients: [{username?, password?, topic, deviceId}], perClient, window, startTs}
 */
import mqtt from 'mqtt';

interface Args {
  url: string;
  clients: Array<{ username?: string; password?: string; topic: string }>;
  perClient: number;
  window: number;
  startTs: number;
}

const args = JSON.parse(process.argv[2]!) as Args;

async function runClient(spec: Args['clients'][number], index: number): Promise<number> {
  const c = await mqtt.connectAsync(args.url, {
    ...(spec.username ? { username: spec.username, password: spec.password } : {}),
    reconnectPeriod: 0,
    clientId: `bench-${process.pid}-${index}`,
  });
  let acked = 0;
  let next = 0;
  await new Promise<void>((resolve, reject) => {
    const pump = () => {
      while (next < args.perClient && next - acked < args.window) {
        const seq = next++;
        // A tank level sensor's routine report: the common case, evaluated by the rules like any reading.
        const payload = JSON.stringify({
          ts: args.startTs + seq,
          seq,
          levelIn: 20 + (seq % 100) / 10,
          batteryV: 3.7,
        });
        c.publish(spec.topic, payload, { qos: 1 }, (err) => {
          if (err) return reject(err);
          acked++;
          if (acked === args.perClient) resolve();
          else pump();
        });
      }
    };
    pump();
  });
  await c.endAsync();
  return acked;
}

const t0 = performance.now();
const acked = await Promise.all(args.clients.map(runClient));
const ms = performance.now() - t0;
process.stdout.write(
  `${JSON.stringify({ sent: args.perClient * args.clients.length, acked: acked.reduce((a, b) => a + b, 0), ms })}\n`,
);
process.exit(0);
