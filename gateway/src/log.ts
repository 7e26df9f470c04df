import type { Log } from './pipeline.ts';

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type LogLevel = keyof typeof LEVELS;

/** Field names whose values never reach the log. */
const SECRET = /pass(word)?|token|secret|authorization|hash/i;

function redact(obj: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) out[k] = SECRET.test(k) ? '[redacted]' : v;
  return out;
}

/** One JSON object a line on stderr; secrets are redacted by field name. */
export function createLog(
  level: LogLevel = 'info',
  write: (line: string) => void = (l) => process.stderr.write(l),
): Log {
  const min = LEVELS[level];
  const emit = (lvl: LogLevel, obj: object | string, msg?: string) => {
    if (LEVELS[lvl] < min) return;
    const fields = typeof obj === 'string' ? { msg: obj } : { ...redact(obj), ...(msg ? { msg } : {}) };
    write(`${JSON.stringify({ time: new Date().toISOString(), level: lvl, ...fields })}\n`);
  };
  return {
    debug: (o, m) => emit('debug', o, m),
    info: (o, m) => emit('info', o, m),
    warn: (o, m) => emit('warn', o, m),
    error: (o, m) => emit('error', o, m),
  };
}
