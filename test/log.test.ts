import { describe, expect, it } from 'vitest';
import { createLog, MAX_FIELD_CHARS, MAX_LINE_CHARS } from '../gateway/src/log.ts';

describe('log lines', () => {
  const lines = () => {
    const out: string[] = [];
    return { out, log: createLog('debug', (l) => out.push(l)) };
  };

  it('cut every string field and the message, at any depth, and say how much was cut', () => {
    const { out, log } = lines();
    log.warn({ username: 'u'.repeat(60 * 1024), nested: { topic: 't'.repeat(2000) } }, 'm'.repeat(1000));
    const o = JSON.parse(out[0]!) as { username: string; nested: { topic: string }; msg: string };
    expect(o.username.length).toBeLessThan(MAX_FIELD_CHARS + 40);
    expect(o.username).toMatch(/\[60928 more chars\]$/);
    expect(o.nested.topic.length).toBeLessThan(MAX_FIELD_CHARS + 40);
    expect(o.msg.length).toBeLessThan(MAX_FIELD_CHARS + 40);
  });

  it('never exceed the line cap, however many fields', () => {
    const { out, log } = lines();
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, 'x'.repeat(500)]));
    log.error(many, 'many fields');
    expect(out[0]!.length).toBeLessThanOrEqual(MAX_LINE_CHARS + 1);
    expect(JSON.parse(out[0]!)).toMatchObject({ level: 'error', msg: 'many fields' });
  });

  it('redact secrets by field name at any depth', () => {
    const { out, log } = lines();
    log.info({ password: 'p', client: { token: 't', name: 'n' } });
    expect(JSON.parse(out[0]!)).toMatchObject({
      password: '[redacted]',
      client: { token: '[redacted]', name: 'n' },
    });
  });
});
