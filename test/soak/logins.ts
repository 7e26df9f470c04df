/**
 * `npm run soak:logins -- [rounds]` (default 20): everyone behind one router. 16 wrong MQTT logins with
 * made-up names from one address, then, each round, a fresh wrong login with a made-up name, the right
 * logins of three real devices there and a person's sign-in. Before, the address was shut and each right
 * login renewed the shut time: 7 device logins in 20 and 2 sign-ins in 15 succeeded over 73 s and 45 s.
 * Then a name guessed at for a minute: at most 10 of its guesses a minute are checked (scrypt), the rest
 * refused unchecked, and the devices beside it still log in. Prints the figures; exits 1 on any right
 * login refused or more checks than the bound. The suite runs 5 rounds (test/e2e/routerLogins.test.ts).
 */
import { startGatewayChild } from '../helpers/child.ts';
import { faultConfig, metrics, metricValue } from '../helpers/faults.ts';
import { testHash } from '../helpers/gateway.ts';
import { rawConnect, rawSignIn } from '../helpers/rawLogin.ts';
import { printFigures } from './main.ts';

export interface LoginFigures {
  rounds: number;
  devices: { ok: number; of: number; slowestMs: number };
  people: { ok: number; of: number; slowestMs: number };
  guessed: { attempts: number; checked: number; seconds: number; othersOk: number; othersOf: number };
  problems: string[];
}

export async function loginsSoak(rounds: number, guessSeconds = 60): Promise<LoginFigures> {
  const gw = await startGatewayChild(
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
    { bundle: true, env: { LOG_LEVEL: 'error' } },
  );
  const problems: string[] = [];
  const timed = async <T>(f: () => Promise<T>) => {
    const t = performance.now();
    const v = await f();
    return { v, ms: performance.now() - t };
  };
  try {
    for (let i = 0; i < 16; i++)
      await rawConnect(gw.mqttPort, `made-up-${i}`, 'guess', `made-up-${i}`).connack;
    const devices = { ok: 0, of: 0, slowestMs: 0 };
    const people = { ok: 0, of: 0, slowestMs: 0 };
    for (let r = 0; r < rounds; r++) {
      await rawConnect(gw.mqttPort, `made-up-r${r}`, 'guess', `made-up-r${r}`).connack;
      for (const id of ['rg-1', 'rg-2', 'rg-3']) {
        const a = await timed(
          () => rawConnect(gw.mqttPort, `maple-ridge/${id}`, `pw-${id}`, `maple-ridge/${id}`).connack,
        );
        devices.of++;
        if (a.v === 0) devices.ok++;
        devices.slowestMs = Math.max(devices.slowestMs, Math.round(a.ms));
      }
      const p = await timed(
        () => rawSignIn(gw.httpUrl, 'olive@chester.example', 'olive-right-password').status,
      );
      people.of++;
      if (p.v === 200) people.ok++;
      people.slowestMs = Math.max(people.slowestMs, Math.round(p.ms));
    }
    if (devices.ok < devices.of || people.ok < people.of) problems.push('a right login was refused');
    // One name guessed at, as fast as the gateway answers, while its neighbours log in now and then.
    const checks = async () =>
      metricValue(await metrics(gw.httpUrl), 'gateway_password_checks_total', 'transport="mqtt"');
    const before = await checks();
    const start = performance.now();
    const end = start + guessSeconds * 1000;
    let attempts = 0;
    let othersOk = 0;
    let othersOf = 0;
    const guesser = async () => {
      while (performance.now() < end) {
        await rawConnect(gw.mqttPort, 'maple-ridge/rg-1', `guess-${attempts++}`, 'maple-ridge/rg-1').connack;
      }
    };
    const neighbours = async () => {
      while (performance.now() < end) {
        for (const id of ['rg-2', 'rg-3']) {
          othersOf++;
          if (
            (await rawConnect(gw.mqttPort, `maple-ridge/${id}`, `pw-${id}`, `maple-ridge/${id}`).connack) ===
            0
          )
            othersOk++;
        }
        await new Promise((r) => setTimeout(r, 1000));
      }
    };
    await Promise.all([guesser(), guesser(), neighbours()]);
    const seconds = (performance.now() - start) / 1000;
    const checked = (await checks()) - before;
    const guessed = { attempts, checked, seconds: Math.round(seconds), othersOk, othersOf };
    // The neighbours' right logins are checked once each at most (then known); allow them.
    const bound = Math.ceil((seconds / 60) * 10) + 10 + 2;
    if (checked > bound)
      problems.push(`${checked} checks of a guessed name in ${seconds.toFixed(0)} s, over ${bound}`);
    if (othersOk < othersOf) problems.push('a neighbour of the guessed name was refused');
    if (!gw.alive()) problems.push('the gateway exited');
    return { rounds, devices, people, guessed, problems };
  } finally {
    await gw.cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printFigures(() => loginsSoak(Number(process.argv[2] ?? 20), Number(process.argv[3] ?? 60)));
}
