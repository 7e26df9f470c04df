import type { Log } from './pipeline.ts';

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type LogLevel = keyof typeof LEVELS;

/** Field names whose values never reach the log. */
const SECRET = /pass(word)?|token|secret|authorization|hash/i;

/** The longest string a field (or the message) keeps; the rest is cut and its length said. */
export const MAX_FIELD_CHARS = 512;
/** The longest log line; a line still longer after the fields were cut is cut too. */
export const MAX_LINE_CHARS = 8192;

/** A string cut to MAX_FIELD_CHARS, saying how much was left out. */
export function capText(s: string, max = MAX_FIELD_CHARS): string {
  return s.length <= max ? s : `${s.slice(0, max)}…[${s.length - max} more chars]`;
}

/** Secrets redacted by field name, strings cut, at every depth (objects and arrays up to a depth of 4). */
function clean(v: unknown, depth: number): unknown {
  if (typeof v === 'string') return capText(v);
  if (v === null || typeof v !== 'object') return v;
  if (depth >= 4) return '[nested]';
  if (Array.isArray(v)) {
    const out = v.slice(0, 50).map((x) => clean(x, depth + 1));
    if (v.length > 50) out.push(`[${v.length - 50} more items]`);
    return out;
  }
  if (v instanceof Error) return capText(v.message);
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v))
    out[capText(k, 64)] = SECRET.test(k) ? '[redacted]' : clean(x, depth + 1);
  return out;
}

/**
 * One JSON object a line on stderr; secrets are redacted by field name, and no line grows past
 * MAX_LINE_CHARS whatever a client sent (a username, a topic, a payload).
 */
export function createLog(
  level: LogLevel = 'info',
  write: (line: string) => void = (l) => process.stderr.write(l),
): Log {
  const min = LEVELS[level];
  const emit = (lvl: LogLevel, obj: object | string, msg?: string) => {
    if (LEVELS[lvl] < min) return;
    const fields =
      typeof obj === 'string'
        ? { msg: capText(obj) }
        : { ...(clean(obj, 0) as object), ...(msg ? { msg: capText(msg) } : {}) };
    let line = JSON.stringify({ time: new Date().toISOString(), level: lvl, ...fields });
    if (line.length > MAX_LINE_CHARS)
      line = JSON.stringify({
        time: new Date().toISOString(),
        level: lvl,
        msg: capText(typeof obj === 'string' ? obj : (msg ?? ''), 256),
        truncated: capText(line, MAX_LINE_CHARS - 512),
      });
    write(`${line}\n`);
  };
  return {
    debug: (o, m) => emit('debug', o, m),
    info: (o, m) => emit('info', o, m),
    warn: (o, m) => emit('warn', o, m),
    error: (o, m) => emit('error', o, m),
  };
}
