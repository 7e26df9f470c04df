/**
 * docs/configuration-reference.md is what `npm run docs:config` writes from the configuration schema:
 * every key with its type, default, allowed values and a description. A schema changed without the page
 * fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  configReference,
  referenceSections,
  table,
  undescribedKeys,
} from '../../gateway/src/config/reference.ts';

const PAGE = join(import.meta.dirname, '../../docs/configuration-reference.md');

describe('the configuration reference', () => {
  it('is the page the schema gives (run npm run docs:config)', () => {
    const committed = readFileSync(PAGE, 'utf8');
    expect(
      committed === configReference(),
      'docs/configuration-reference.md is stale: run npm run docs:config',
    ).toBe(true);
  });

  it('describes every key', () => {
    expect(undescribedKeys()).toEqual([]);
  });

  it('lists the keys of every part with their defaults, the rule parameters included', () => {
    const rows = new Map(referenceSections().flatMap((s) => s.rows.map((r) => [r.key, r] as const)));
    expect(rows.get('`gatewayId`')?.default).toBe('required');
    expect(rows.get('`http.port`')).toMatchObject({
      type: 'integer',
      default: '`8080`',
      allowed: '>= 0, <= 65535',
    });
    expect(rows.get('`storage.synchronous`')).toMatchObject({
      default: '`normal`',
      allowed: '`full`, `normal`',
    });
    expect(rows.get('`sites[].storm.thresholdIn`')?.default).toBe('`0.5`');
    expect(rows.get('`sites[].devices`')?.default).toBe('`[]`');
    expect(rows.get('`sites[].devices[].silentAfterMinutes`')?.type).toBe('number');
    expect(rows.get('`mqtt.protocolVersion`')?.allowed).toBe('`4` or `5`');
  });

  it('lays tables out as the formatter does, escaping pipes', () => {
    expect(table(['a', 'bb'], [['xxxx', 'y|z']])).toBe(
      ['| a    | bb   |', '| ---- | ---- |', '| xxxx | y\\|z |'].join('\n'),
    );
  });
});
