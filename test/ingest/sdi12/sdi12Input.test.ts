/**
 * The SDI-12 input against a real pseudo-terminal: the gateway's end is the adapter, the other end
 * answers as SDI-12 sensors (the simulator's). What reaches the sink, and each device's link counts
 * and errors in words.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SimSdi12Sensors } from '../../../firmware-sim/src/transports/sdi12Sensors.ts';
import { parseConfig } from '../../../gateway/src/config/load.ts';
import { liveRegistry } from '../../../gateway/src/config/registry.ts';
import { DeviceLinks } from '../../../gateway/src/ingest/deviceLinks.ts';
import { Sdi12Input } from '../../../gateway/src/ingest/sdi12/sdi12Input.ts';
import { Registry } from '../../../gateway/src/metrics.ts';
import {
  type IngestResult,
  type IngestSink,
  type RawMessage,
  silentLog,
} from '../../../gateway/src/pipeline.ts';
import { haveBinary, waitFor } from '../../helpers/env.ts';
import { makeTempDir, type PtyPair, startPtyPair } from '../../helpers/socat.ts';

const enabled = haveBinary('socat');

class RecordingSink implements IngestSink {
  readonly received: RawMessage[] = [];
  async ingest(msg: RawMessage): Promise<IngestResult> {
    this.received.push(msg);
    return { status: 'ignored' };
  }
  last(): { measuredAt: number; address: string; command: string; values: number[] } {
    return JSON.parse(String(this.received.at(-1)!.payload));
  }
}

describe.runIf(enabled)('SDI-12 input through an adapter on a pty', () => {
  let pair: PtyPair | undefined;
  let input: Sdi12Input | undefined;
  let sensors: SimSdi12Sensors | undefined;
  afterEach(async () => {
    await input?.stop();
    await sensors?.close();
    await pair?.stop();
  });

  async function setup(devices: Array<{ id: string; address: string; profile: unknown }>, dir?: string) {
    pair = await startPtyPair(dir ? { a: `${dir}/a`, b: `${dir}/b` } : {});
    const config = parseConfig({
      gatewayId: 't',
      dataDir: '/nonexistent',
      sdi12: [{ path: pair.a, timeoutMs: 300 }],
      sites: [
        {
          id: 'site',
          kind: 'construction',
          devices: devices.map((d) => ({
            id: d.id,
            kind: 'sediment-trap',
            designDepthIn: 24,
            transport: 'sdi12',
            profile: d.profile,
            sdi12: { port: pair!.a, address: d.address, pollSeconds: 3600 },
          })),
        },
      ],
    } as never);
    const links = new DeviceLinks();
    let clock = Date.UTC(2026, 4, 1);
    const sink = new RecordingSink();
    const sites = [...config.sites];
    const registry = liveRegistry(() => sites);
    input = new Sdi12Input({
      adapters: config.sdi12,
      registry,
      links,
      metrics: new Registry(),
      log: silentLog,
      now: () => clock,
      reopenMs: 100,
    });
    sensors = new SimSdi12Sensors({ path: pair.b });
    await sensors.open();
    return { links, sink, setClock: (t: number) => (clock = t), input, sites, registry, config };
  }

  const level = (command: string) => ({
    name: 'level',
    label: 'a level sensor',
    source: 'test',
    kinds: ['sediment-trap'],
    transport: 'sdi12',
    command,
    fields: [{ reading: 'sedimentIn', from: { index: 1 } }],
  });

  it('measures with aM!, honours the wait until the service request, and stamps the gateway clock', async () => {
    const {
      sink,
      links,
      setClock,
      input: inp,
    } = await setup([{ id: 'trap', address: '3', profile: level('M') }]);
    let reads = 0;
    // Announces 3 s, ready after 0.2 s: the service request ends the wait.
    sensors!.add({
      address: '3',
      waitSeconds: 3,
      readyAfterMs: 200,
      read: () => [10.5 + reads++, -2.25, 7, 8],
    });
    setClock(Date.UTC(2026, 4, 1, 12));
    await inp.start(sink);
    const started = performance.now();
    const out = await inp.measureAll();
    expect(performance.now() - started).toBeLessThan(2500);
    expect(out).toEqual([{ siteId: 'site', deviceId: 'trap', outcome: 'notStored' }]);
    // The measurement started at once (due at start) or by measureAll: values of one measurement, all four.
    expect(sink.last()).toMatchObject({ address: '3', command: 'M', measuredAt: Date.UTC(2026, 4, 1, 12) });
    expect(sink.last().values.slice(1)).toEqual([-2.25, 7, 8]);
    expect(sensors!.commands).toEqual(expect.arrayContaining(['3M!', '3D0!', '3D1!']));
    expect(links.get('site', 'trap')?.counts).toMatchObject({ measurements: 1, answers: 1 });
  });

  it('a silent sensor is a gap: counted and told in words, bounded retries, then the next measurement works', async () => {
    const { sink, links, input: inp } = await setup([{ id: 'trap', address: '0', profile: level('M') }]);
    sensors!.add({ address: '0', read: () => [12] });
    sensors!.setSilent('0', true);
    await inp.start(sink);
    const [gap] = await inp.measureAll();
    expect(gap).toMatchObject({ outcome: 'noAnswer' });
    expect(gap!.detail).toMatch(/did not answer \(no answer to 0M! \(3 tries\)\)/);
    expect(sensors!.commands.filter((c) => c === '0M!')).toHaveLength(3);
    const state = links.get('site', 'trap')!;
    expect(state.counts).toMatchObject({ measurements: 1, noAnswer: 1 });
    expect(state.errors[0]!.text).toMatch(/^The sensor at address 0 on .* did not answer/);
    expect(sink.received).toHaveLength(0);

    sensors!.setSilent('0', false);
    await inp.measureAll();
    expect(sink.last().values).toEqual([12]);
    expect(links.get('site', 'trap')!.counts).toMatchObject({ measurements: 2, answers: 1, noAnswer: 1 });
  });

  it('aMC!: a damaged data line is counted and asked again; damaged every time, no measurement', async () => {
    const { sink, links, input: inp } = await setup([{ id: 'trap', address: 'a', profile: level('MC') }]);
    sensors!.add({ address: 'a', read: () => [9.75, 1] });
    sensors!.damage('a', 1);
    await inp.start(sink);
    await inp.measureAll();
    expect(sink.last().values).toEqual([9.75, 1]);
    expect(links.get('site', 'trap')!.counts).toMatchObject({ answers: 1, badResponse: 1 });
    expect(links.get('site', 'trap')!.errors[0]!.text).toMatch(/damaged on the way: its check characters/);

    const before = sink.received.length;
    sensors!.damage('a', 3);
    const [bad] = await inp.measureAll();
    expect(bad).toMatchObject({ outcome: 'badResponse' });
    expect(sink.received).toHaveLength(before);
    expect(links.get('site', 'trap')!.counts).toMatchObject({ badResponse: 4 });
  });

  it('aC!: a concurrent measurement is given its whole wait (no service request), its count in two digits', async () => {
    const { sink, links, input: inp } = await setup([{ id: 'trap', address: 'Z', profile: level('C') }]);
    sensors!.add({ address: 'Z', waitSeconds: 1, read: () => [1, 2, 3, 4] });
    await inp.start(sink);
    const started = performance.now();
    await inp.measureAll();
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
    expect(sink.last()).toMatchObject({ command: 'C', values: [1, 2, 3, 4] });
    expect(links.get('site', 'trap')!.counts).toMatchObject({ answers: 1 });
  });

  it('an adapter pulled out is a gap in words, and it is opened again when it comes back', async () => {
    const dir = await makeTempDir('sdi12-');
    const { sink, links, input: inp } = await setup([{ id: 'trap', address: '0', profile: level('M') }], dir);
    sensors!.add({ address: '0', read: () => [6] });
    await inp.start(sink);
    await inp.measureAll();
    await sensors!.close();
    await pair!.stop();
    await waitFor(() => inp.health()[0]!.ok === false, 5000, 'the adapter to be lost');
    const [gap] = await inp.measureAll();
    expect(gap).toMatchObject({ outcome: 'noAnswer' });
    expect(links.get('site', 'trap')!.errors[0]!.text).toMatch(/the SDI-12 adapter is not connected/);

    pair = await startPtyPair({ a: `${dir}/a`, b: `${dir}/b` });
    sensors = new SimSdi12Sensors({ path: pair.b });
    sensors.add({ address: '0', read: () => [7] });
    await sensors.open();
    await waitFor(() => inp.health()[0]!.ok, 5000, 'the adapter to be open again');
    await inp.measureAll();
    expect(sink.last().values).toEqual([7]);
    expect(inp.health()[0]).toMatchObject({ ok: true, reopens: 1, noAnswer: 1 });
  });

  it('follows the live registry: a device added later is measured, one removed is not; health per adapter', async () => {
    const { sink, input: inp, sites, registry, config } = await setup([]);
    sensors!.add({ address: '5', read: () => [4] });
    await inp.start(sink);
    expect(await inp.measureAll()).toEqual([]);
    const site = sites[0]!;
    const added = parseConfig({
      gatewayId: 't',
      dataDir: '/nonexistent',
      sdi12: config.sdi12,
      sites: [
        {
          ...site,
          devices: [
            {
              id: 'late',
              kind: 'sediment-trap',
              designDepthIn: 24,
              transport: 'sdi12',
              profile: level('M'),
              sdi12: { port: pair!.a, address: '5' },
            },
          ],
        },
      ],
    } as never).sites[0]!;
    sites[0] = added;
    registry.refresh();
    inp.devicesChanged();
    expect(await inp.measureAll()).toEqual([{ siteId: 'site', deviceId: 'late', outcome: 'notStored' }]);
    expect(sink.last().values).toEqual([4]);
    expect(inp.health()).toEqual([expect.objectContaining({ ok: true, devices: 1, answers: 1 })]);
    sites[0] = site;
    registry.refresh();
    inp.devicesChanged();
    expect(await inp.measureAll()).toEqual([]);
  });
});
