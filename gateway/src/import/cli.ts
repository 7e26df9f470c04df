/**
 * `npm run import -- --site S --device D [--api URL] [--token T] [--tz ZONE | --utc-offset MIN] [--format F]
 *  [--skip-before ISO] FILE...`: sends logger downloads to a running gateway, which feeds them through the
 *  same store and rules as live data, and prints what it found. The token (engineer or admin) may also come
 *  from GATEWAY_TOKEN. Importing a file twice stores nothing new.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    site: { type: 'string' },
    device: { type: 'string' },
    api: { type: 'string', default: process.env.GATEWAY_API ?? 'http://127.0.0.1:8080' },
    token: { type: 'string', default: process.env.GATEWAY_TOKEN },
    tz: { type: 'string' },
    'utc-offset': { type: 'string' },
    format: { type: 'string' },
    'skip-before': { type: 'string' },
  },
});

if (!values.site || !values.device || positionals.length === 0 || !values.token) {
  process.stderr.write(
    'usage: npm run import -- --site SITE --device GAUGE [--api URL] --token TOKEN [--tz ZONE | --utc-offset MINUTES]\n' +
      '         [--format hobo-csv|toa5] [--skip-before ISO] FILE...\n(the token may also be given as GATEWAY_TOKEN)\n',
  );
  process.exit(2);
}

let failed = false;
for (const file of positionals) {
  const q = new URLSearchParams({ siteId: values.site, deviceId: values.device, name: basename(file) });
  if (values.tz) q.set('timeZone', values.tz);
  if (values['utc-offset']) q.set('utcOffsetMinutes', values['utc-offset']);
  if (values.format) q.set('format', values.format);
  if (values['skip-before']) q.set('skipBefore', values['skip-before']);
  const res = await fetch(`${values.api}/api/import?${q}`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', authorization: `Bearer ${values.token}` },
    body: await readFile(file, 'utf8'),
  });
  const body = (await res.json()) as Record<string, unknown>;
  if (!res.ok) {
    failed = true;
    process.stderr.write(`${file}: ${res.status} ${String(body.error)}: ${String(body.message)}\n`);
    continue;
  }
  const { meta: _meta, problems, ...summary } = body as { meta: unknown; problems: unknown[] };
  process.stdout.write(
    `${JSON.stringify({ ...summary, problems: problems.length ? problems : undefined }, null, 2)}\n`,
  );
}
process.exit(failed ? 1 : 0);
