import { createServer, type Server } from 'node:net';
import { Aedes } from 'aedes';
import { freePort } from '../helpers/env.ts';

export interface TestBroker {
  url: string;
  broker: Aedes;
  close(): Promise<void>;
}

/** An in-process aedes broker on a free loopback port; `logins` (username -> password) turns on authentication. */
export async function startBroker(logins?: Map<string, string>): Promise<TestBroker> {
  const broker = await Aedes.createBroker(
    logins
      ? {
          authenticate: (_client, username, password, done) => {
            const ok = username !== undefined && logins.get(username) === password?.toString();
            if (ok) done(null, true);
            else done(Object.assign(new Error('bad login'), { returnCode: 4 }), false);
          },
        }
      : {},
  );
  const port = await freePort();
  const server: Server = createServer(broker.handle);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `mqtt://127.0.0.1:${port}`,
    broker,
    close: async () => {
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const T0 = Date.parse('2025-06-10T12:00:00Z');

/** The scenarios the product promises (the fleet one aside), which the simulator must ship. */
export const PRODUCT_SCENARIOS = [
  'storm-0.62in',
  'drizzle-0.45in',
  'two-bursts-2h',
  'two-bursts-8h',
  'float-alarm',
  'field-ponding',
  'sediment-fill',
  'tank-sludge',
  'gauge-offline-during-storm',
];
