/**
 * Benchmark load generator (its own process): several MQTT connections publish QoS 1 telemetry with a
 * bounded window of unacknowledged messages each. Every connection is made (and logged in) first; then
 * all start publishing at once. Prints one JSON line: {sent, acked, ms, startedAt}, where startedAt
 * (epoch ms) is when publishing began and ms how long until the last PUBACK.
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

function connect(spec: Args['clients'][number], index: number) {
  return mqtt.connectAsync(args.url, {
    ...(spec.username ? { username: spec.username, password: spec.password } : {}),
    reconnectPeriod: 0,
    clientId: spec.username ?? `bench-${process.pid}-${index}`,
  });
}

async function runClient(spec: Args['clients'][number], c: mqtt.MqttClient): Promise<number> {
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
  return acked;
}

const connections = await Promise.all(args.clients.map(connect));
const startedAt = Date.now();
const t0 = performance.now();
const acked = await Promise.all(args.clients.map((spec, i) => runClient(spec, connections[i]!)));
const ms = performance.now() - t0;
await Promise.all(connections.map((c) => c.endAsync()));
process.stdout.write(
  `${JSON.stringify({ sent: args.perClient * args.clients.length, acked: acked.reduce((a, b) => a + b, 0), ms, startedAt })}\n`,
);
process.exit(0);
