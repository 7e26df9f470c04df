/**
 * The quarantine's bounds against the gateway process, whatever client ids a device uses: at most
 * ingest.quarantinePerDevice messages of one device (the site/device its messages name) wait, and at
 * most ingest.quarantineTotal in all (made-up device names included); beyond, refused with a reason and
 * counted. What is kept is the message's JSON object as compact JSON: whitespace padding is not kept; a
 * payload that is not a JSON object is refused. MQTT and serial lines alike.
 */
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frameWithCrc } from '../../shared/src/crc16.ts';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { haveBinary, IN_CI, waitFor } from '../helpers/env.ts';
import { faultConfig, metrics, metricValue, publishOutcome, T } from '../helpers/faults.ts';
import { testHash } from '../helpers/gateway.ts';
import { makeTempDir, openPtyWriter, type PtyPair, startPtyPair } from '../helpers/socat.ts';

const CAP = 5;
const TOTAL = 12;
const DAY = 86_400_000;

interface Item {
  deviceId: string;
  client: string;
  reason: string;
  payload: string;
  transport: string;
}
interface Rejection {
  reason: string;
  deviceId?: string;
  detail: string;
}

describe('quarantine caps (gateway process)', () => {
  let gw: GatewayChild;
  beforeAll(async () => {
    gw = await startGatewayChild(
      faultConfig(
        { mqtt: { allowAnonymous: true }, ingest: { quarantinePerDevice: CAP, quarantineTotal: TOTAL } },
        [
          // A device that may connect under a pattern of client ids.
          {
            id: 'rg-7',
            kind: 'rain-gauge',
            inchesPerTip: 0.01,
            clientIds: ['rg-7-*'],
            passwordHash: testHash('pw-rg-7'),
          },
        ],
      ),
    );
  });
  afterAll(() => gw?.cleanup());

  const waiting = async (deviceId?: string) =>
    (
      (await (
        await fetch(
          `${gw.httpUrl}/api/quarantine?status=waiting&limit=1000${deviceId ? `&deviceId=${deviceId}` : ''}`,
        )
      ).json()) as { items: Item[] }
    ).items;
  const rejections = async () => (await (await fetch(`${gw.httpUrl}/api/rejections`)).json()) as Rejection[];
  const refusedFull = async () =>
    metricValue(await metrics(gw.httpUrl), 'gateway_refused_total', 'reason="quarantine_full"');
  /** One QoS 1 publish on a connection of its own (a new client id each time). */
  const once = async (clientId: string, topic: string, payload: string, login?: string) => {
    const c: MqttClient = await mqtt.connectAsync(gw.mqttUrl, {
      clientId,
      reconnectPeriod: 0,
      ...(login ? { username: login, password: `pw-${login.split('/')[1]}` } : {}),
    });
    c.on('error', () => {});
    const outcome = await publishOutcome(c, topic, payload);
    c.end(true);
    return outcome;
  };

  it('keeps a padded payload as compact JSON, and refuses one that is not a JSON object', async () => {
    const padded = `   {\n  "seq" : 1 ,\t"rainTips" :  1 }${' '.repeat(3000)}`;
    expect(await once('field-1', T('rg-9'), padded)).toBe('acknowledged');
    const kept = await waiting('rg-9');
    expect(kept.map((i) => i.payload)).toEqual(['{"seq":1,"rainTips":1}']);
    // Not JSON: acknowledged (it could never be released) and recorded, not kept.
    expect(await once('field-2', T('rg-10'), `${' '.repeat(100)}rainTips=1`)).toBe('acknowledged');
    expect(await waiting('rg-10')).toEqual([]);
    const rec = (await rejections()).find((r) => r.deviceId === 'rg-10');
    expect(rec).toMatchObject({ reason: 'malformed_json' });
    expect(rec!.detail).toMatch(/not kept in the quarantine/);
  });

  it(`keeps at most ${CAP} messages of one device under ${3 * CAP} changing client ids; the rest refused with a reason and counted`, async () => {
    const before = await refusedFull();
    const ahead = Date.now() + 30 * DAY;
    const outcomes: string[] = [];
    for (let i = 0; i < 3 * CAP; i++)
      outcomes.push(
        await once(
          `rg-7-${i}`,
          T('rg-7'),
          JSON.stringify({ ts: ahead + i * 1000, seq: i, rainTips: i }),
          'maple-ridge/rg-7',
        ),
      );
    expect(outcomes).toEqual([...Array(CAP).fill('acknowledged'), ...Array(2 * CAP).fill('closed')]);
    const kept = await waiting('rg-7');
    expect(kept).toHaveLength(CAP);
    expect(new Set(kept.map((i) => i.client)).size).toBe(CAP);
    expect(await refusedFull()).toBe(before + 2 * CAP);
    const rec = (await rejections()).find((r) => r.reason === 'quarantine_full' && r.deviceId === 'rg-7');
    expect(rec?.detail).toMatch(
      /messages of device maple-ridge\/rg-7 already wait in the quarantine \(at most 5 a device\)/,
    );
  });

  it(`holds at most ${TOTAL} messages in all, whatever device names are made up`, async () => {
    const before = await refusedFull();
    const room = TOTAL - (await waiting()).length;
    expect(room).toBeGreaterThan(0);
    const outcomes: string[] = [];
    for (let d = 0; d < room + 4; d++)
      outcomes.push(await once(`made-up-${d}`, T(`made-up-${d}`), JSON.stringify({ seq: 1, rainTips: 1 })));
    expect(outcomes.filter((o) => o === 'acknowledged')).toHaveLength(room);
    expect(await waiting()).toHaveLength(TOTAL);
    expect(await refusedFull()).toBe(before + 4);
    const rec = (await rejections()).find((r) => r.reason === 'quarantine_full' && /in all/.test(r.detail));
    expect(rec?.detail).toMatch(/the quarantine already holds 12 messages waiting \(at most 12 in all\)/);
  }, 60_000);
});

describe('quarantine of padded serial lines (gateway process, socat pseudo-terminals)', () => {
  let gw: GatewayChild;
  let pair: PtyPair;
  beforeAll(() => {
    if (IN_CI) expect(haveBinary('socat'), 'socat is needed in CI').toBe(true);
  });
  afterAll(async () => {
    await gw?.cleanup();
    await pair?.stop();
  });

  it.runIf(haveBinary('socat'))(
    'keeps a line of a device not registered yet as compact JSON without its CRC, and at most the per-device cap',
    async () => {
      const dir = await makeTempDir('gw-qcap-serial-');
      pair = await startPtyPair({ a: `${dir}/gw`, b: `${dir}/dev` });
      gw = await startGatewayChild(
        faultConfig({
          serial: [{ path: pair.a, baudRate: 9600, reopenMs: 200 }],
          ingest: { quarantinePerDevice: 2 },
        }),
      );
      const line = (seq: number) =>
        frameWithCrc(
          `{ "siteId": "maple-ridge",   "deviceId": "trap-9", "seq": ${seq},    "sedimentIn": 2 }`,
        );
      const w = await openPtyWriter(pair.b);
      await w.write(`${line(1)}\n${line(2)}\n${line(3)}\n`);
      const items = async () =>
        ((await (await fetch(`${gw.httpUrl}/api/quarantine?deviceId=trap-9`)).json()) as { items: Item[] })
          .items;
      await waitFor(
        async () =>
          metricValue(await metrics(gw.httpUrl), 'gateway_rejections_total', 'reason="quarantine_full"') ===
          1,
        20_000,
        'the third line refused',
      );
      const kept = await items();
      expect(kept.map((i) => [i.transport, i.payload]).sort()).toEqual([
        ['serial', '{"siteId":"maple-ridge","deviceId":"trap-9","seq":1,"sedimentIn":2}'],
        ['serial', '{"siteId":"maple-ridge","deviceId":"trap-9","seq":2,"sedimentIn":2}'],
      ]);
      await w.close();
    },
    60_000,
  );
});
