import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../gateway/src/config/load.ts';
import { FleetStage } from '../../gateway/src/fleet/stage.ts';
import { type FleetState, fleetStateSchema, stateTopic } from '../../gateway/src/fleet/state.ts';
import { silentLog } from '../../gateway/src/pipeline.ts';
import { testConfigInput } from '../helpers/gateway.ts';

/** A stage over a fake clock and a publisher that records what it is handed. */
function setup() {
  const config = parseConfig({ ...testConfigInput(), fleet: { publishSeconds: 60 } });
  const sent: Array<{ at: number; state: FleetState }> = [];
  const stage = new FleetStage({
    config,
    sources: {
      sites: () => config.sites,
      timezone: config.timezone,
      deviceState: () => undefined,
      openAlerts: () => [],
    },
    publisher: {
      publish: async (topic, payload) => {
        expect(topic).toBe(stateTopic(config.gatewayId));
        // What a follower checks it against (fleet/follower.ts).
        sent.push({ at: Date.now(), state: fleetStateSchema.parse(JSON.parse(payload)) });
      },
    },
    log: silentLog,
    now: () => Date.now(),
  });
  // What changes between publications: here, the name of the first site.
  const change = (name: string) => {
    config.sites[0]!.name = name;
    stage.changed();
  };
  return { stage, sent, change };
}

describe('FleetStage', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('publishes a change soon, but a burst of changes at most once every 2 s', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 5, 1) });
    const { stage, sent, change } = setup();
    await stage.start();
    await vi.advanceTimersByTimeAsync(300);
    expect(sent).toHaveLength(1);
    const t0 = sent[0]!.at;
    // A change long after the last publication goes out 250 ms after it.
    await vi.advanceTimersByTimeAsync(5000);
    change('first');
    await vi.advanceTimersByTimeAsync(260);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.state.sites[0]!.name).toBe('first');
    expect(sent[1]!.at - t0).toBeGreaterThanOrEqual(5250);
    // Changes every 100 ms for 10 s: about one publication per 2 s, each with the newest state.
    for (let i = 0; i < 100; i++) {
      change(`burst ${i}`);
      await vi.advanceTimersByTimeAsync(100);
    }
    await vi.advanceTimersByTimeAsync(2500);
    const burst = sent.slice(2);
    expect(burst.length).toBeGreaterThanOrEqual(4);
    expect(burst.length).toBeLessThanOrEqual(6);
    for (let i = 1; i < burst.length; i++)
      expect(burst[i]!.at - burst[i - 1]!.at).toBeGreaterThanOrEqual(2000);
    expect(burst.at(-1)!.state.sites[0]!.name).toBe('burst 99');
    await stage.stop();
  });

  it('does not publish again for a change that leaves the state as it was', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 5, 1) });
    const { stage, sent, change } = setup();
    await stage.start();
    await vi.advanceTimersByTimeAsync(300);
    const name = sent[0]!.state.sites[0]!.name;
    await vi.advanceTimersByTimeAsync(5000);
    change(name);
    await vi.advanceTimersByTimeAsync(3000);
    expect(sent).toHaveLength(1);
    change('another');
    await vi.advanceTimersByTimeAsync(3000);
    expect(sent).toHaveLength(2);
    await stage.stop();
  });

  it('publishes the unchanged state every publishSeconds', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 5, 1) });
    const { stage, sent } = setup();
    await stage.start();
    await vi.advanceTimersByTimeAsync(300 + 3 * 60_000);
    expect(sent).toHaveLength(4);
    await stage.stop();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(sent).toHaveLength(4);
  });
});
