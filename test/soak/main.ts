/**
 * A soak as a command (`npm run soak:*`): its figures printed as JSON on stdout, exit code 1 when it found
 * a problem or could not run (the error on stderr).
 */
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';

/** Runs `soak` and reports it as the soak commands do. */
export function printFigures<F extends { problems: string[] }>(soak: () => Promise<F>): void {
  soak().then(
    (f) => {
      console.log(JSON.stringify(f, null, 2));
      process.exitCode = f.problems.length ? 1 : 0;
    },
    (e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    },
  );
}

/** `soak` against a gateway process running the bundle `npm start` runs, started with `config` and stopped after. */
export async function onBundledGateway<F>(
  config: Record<string, unknown>,
  soak: (gw: GatewayChild) => Promise<F>,
): Promise<F> {
  const gw = await startGatewayChild(config, { bundle: true, env: { LOG_LEVEL: 'error' } });
  try {
    return await soak(gw);
  } finally {
    await gw.cleanup();
  }
}
