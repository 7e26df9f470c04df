/**
 * `npm run verify -- REPORT.json --key KEY [--api URL] [--token TOKEN] [--checkpoint FILE]`: checks a compliance report
 * (its JSON form) offline with only the gateway's public key: the signed checkpoint, every cited
 * record's inclusion proof, and that its totals and statuses follow from its records. KEY is the verifier
 * key (`<name>+<id>+<key>`, as GET /api/evidence/key gives it), or a file holding it (or that JSON).
 * With --api (the gateway, or any copy of its API) it also checks that today's log extends the report's
 * checkpoint; with --checkpoint, a later checkpoint note held by a witness, that this one does (the
 * consistency proof comes from --api, unless the two checkpoints are the same size). A gateway that keeps
 * its reads behind a sign-in (the default) needs an API token: --token, or GATEWAY_TOKEN.
 * Exits 0 when everything holds, printing what it proved (the checkpoint and its key's fingerprint, the
 * log entries, each section's figures: `verifier/proved.ts`), 1 with the reasons otherwise (each a sentence, then the field of the
 * report's JSON it is about, in brackets), 2 on a usage error. The checks are `verifier/verify.ts`, the
 * same module verify.html runs in a browser.
 */
import { existsSync, readFileSync } from 'node:fs';
import { keyFromText, provedWords, readReport, verifyLater, verifyReport } from '../verifier/verify.ts';

function usage(msg: string): never {
  process.stderr.write(
    `${msg}\nusage: npm run verify -- REPORT.json --key KEY [--api URL] [--token TOKEN] [--checkpoint FILE]\n` +
      '(the token may also be given as GATEWAY_TOKEN)\n',
  );
  process.exit(2);
}

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = args[i + 1];
  if (!v || v.startsWith('--')) usage(`${name} needs a value`);
  args.splice(i, 2);
  return v;
};
const keyArg = opt('--key');
const api = opt('--api');
const checkpointFile = opt('--checkpoint');
const token = opt('--token') ?? process.env.GATEWAY_TOKEN;
const file = args[0];
if (!file) usage('no report given');
if (!keyArg) usage("--key is required: the gateway's verifier key, from the town (GET /api/evidence/key)");

/** The key given, or the key in the file it names (the key line, or the JSON of GET /api/evidence/key). */
function readKey(k: string): string {
  try {
    return keyFromText(existsSync(k) ? readFileSync(k, 'utf8') : k);
  } catch (e) {
    usage(`--key: ${(e as Error).message}`);
  }
}

/** The report file as a report; a file that is not one ends the run with one line saying so. */
function readReportFile(f: string) {
  try {
    return readReport(JSON.parse(readFileSync(f, 'utf8')));
  } catch (e) {
    process.stdout.write(`NOT VERIFIED: ${f}: ${(e as Error).message}\n`);
    process.exit(1);
  }
}

/** A refusal of the API is a usage error: one line saying what to give, exit 2. */
function refused(url: string, status: number): never {
  process.stderr.write(
    token
      ? `the gateway refused the token (HTTP ${status} for ${url}): it is wrong, expired or revoked, or its role may not read this\n`
      : `the gateway needs an API token to answer (HTTP ${status} for ${url}): give one with --token TOKEN or GATEWAY_TOKEN\n`,
  );
  process.exit(2);
}

/** The API's JSON answer; anything else ends the run with one line (no stack trace). */
async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, {
    signal: AbortSignal.timeout(15_000),
    ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
  }).catch((e: Error) => {
    process.stdout.write(`NOT VERIFIED: could not reach ${url}: ${e.cause ? String(e.cause) : e.message}\n`);
    process.exit(1);
  });
  if (res.status === 401 || res.status === 403) refused(url, res.status);
  if (!res.ok) {
    process.stdout.write(`NOT VERIFIED: ${url} answered HTTP ${res.status}\n`);
    process.exit(1);
  }
  return (await res.json()) as T;
}

process.on('unhandledRejection', (e) => {
  process.stdout.write(`NOT VERIFIED: ${(e as Error).message}\n`);
  process.exit(1);
});
const key = readKey(keyArg);
const report = readReportFile(file);
const v = await verifyReport(report, key).catch((e: Error) => {
  process.stdout.write(`NOT VERIFIED: ${file}: the report cannot be checked: ${e.message}\n`);
  process.exit(1);
});
const problems = [...v.problems];
const lines = [`report ${file}: checkpoint of ${v.checkpoint.size} entries, root ${v.checkpoint.root}`];
if (v.key) lines.push(`  key '${v.key.name}' (key id ${v.key.id}), fingerprint ${v.key.fingerprint}`);
if (api || checkpointFile) {
  const base = api?.replace(/\/$/, '');
  const later = checkpointFile
    ? readFileSync(checkpointFile, 'utf8')
    : (await getJson<{ note: string }>(`${base}/api/evidence/checkpoint`)).note;
  const laterSize = Number(later.split('\n')[1]);
  let proof: string[] = [];
  if (laterSize > report.evidence.checkpoint.size) {
    if (!base) usage('--checkpoint of another size needs --api for the consistency proof');
    proof = (
      await getJson<{ proof: string[] }>(
        `${base}/api/evidence/consistency?from=${report.evidence.checkpoint.size}&to=${laterSize}`,
      )
    ).proof;
  }
  const bad = await verifyLater(report, key, later, proof);
  if (bad) problems.push(bad);
  else lines.push(`  the log at ${laterSize} entries extends the report's checkpoint`);
}
for (const l of lines) process.stdout.write(`${l}\n`);
for (const n of v.notes) process.stdout.write(`  note: ${n}\n`);
if (problems.length) {
  // Each problem in words, then the field of the report's JSON it is about.
  for (const p of problems) process.stdout.write(`NOT VERIFIED: ${p.message} [${p.field}]\n`);
  process.exit(1);
}
// What was proved, in the same words as verify.html.
process.stdout.write('verified\n');
for (const l of provedWords(v)) process.stdout.write(`  ${l}\n`);
