/**
 * The report verifier, the one module `npm run verify` and verify.html share, on a real report made by
 * a real gateway (a storm of 16 readings, two inspections): it verifies with the gateway's key, and each
 * tampered copy fails with a sentence in plain words and the field of the report's JSON it is about.
 */
import { generateKeyPairSync } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { rawPublicKey, verifierKey, verifierKeyFingerprint } from '../../gateway/src/ledger/checkpoint.ts';
import { keyFromText, provedWords, readReport, verifyReport } from '../../gateway/src/verifier/verify.ts';
import { makeRealReport, type RealReport, SIGNED, tamperedReport } from '../helpers/verifiedReport.ts';

describe('the report verifier on a real report', () => {
  let real: RealReport;
  beforeAll(async () => {
    real = await makeRealReport();
  });

  it('verifies the report with the gateway key, and says what it checked', async () => {
    const v = await verifyReport(readReport(JSON.parse(real.text)), real.key);
    expect(v.problems).toEqual([]);
    expect(v.ok).toBe(true);
    // The storm's 15 readings and the one before it, the storm's record, the two inspections, and the
    // three routine duties: the period opened at the first tick (superseded by the storm inspection,
    // dated before it), the period from that inspection (met by the routine one), and the one open now;
    // and the two duties of the developer's records the site has none of (a certification, the SWPPP).
    expect(v.checked).toEqual({
      entries: 28,
      readings: 16,
      storms: 1,
      duties: 5,
      inspections: 2,
      notices: 0,
      violations: 0,
      stopWork: 0,
      changes: 0,
      records: 0,
    });
    expect(v.checkpoint.size).toBe(real.report.evidence.checkpoint.size);
    expect(v.checkpoint.root).toBe(real.report.evidence.checkpoint.root);
    // The fingerprint WebCrypto gives is the gateway's (node:crypto) and the API's.
    expect(v.key).toEqual({
      name: 'test-gw.gateway/evidence',
      id: real.key.split('+')[1],
      fingerprint: verifierKeyFingerprint(real.key),
    });
    expect(v.key?.fingerprint).toMatch(/^[0-9a-f]{4} [0-9a-f]{4} [0-9a-f]{4} [0-9a-f]{4}$/);
    // What it proved, in the words the CLI and verify.html print.
    const said = provedWords(v);
    expect(said[0]).toBe(
      `The log's checkpoint of ${v.checkpoint.size} entries, signed by 'test-gw.gateway/evidence' (key id ${v.key?.id}, fingerprint ${v.key?.fingerprint}).`,
    );
    expect(said.slice(1)).toEqual([
      expect.stringMatching(
        /^28 log entries, each against its fingerprint, and the one proof that they are all in the log; the newest is of \w{3} \d+, \d{4}, \d+:\d\d [AP]M E[SD]T\.$/,
      ),
      '16 readings of 1 device, each as it was logged.',
      '1 storm with its totals, start and end, added up again from its readings, and whether it reached the threshold and was inspected in time.',
      expect.stringMatching(
        /^5 duties with their due time and status from their history; [1-4] of them closed, with who and what closed each\.$/,
      ),
      '2 inspections with 4 findings and 0 photo fingerprints, each as logged.',
    ]);
    expect(v.words).toEqual({
      tz: 'America/New_York',
      site: 'maple-ridge',
      practices: { 'sf-north': 'Silt fence, north boundary', 'inlet-elm': 'Inlet protection, Elm St' },
    });
  });

  it('a changed storm total: names the storm in the site time and the field', async () => {
    const { report, key } = tamperedReport(real, 'storm-total');
    const v = await verifyReport(report, key);
    expect(v.ok).toBe(false);
    expect(v.problems).toEqual([
      {
        field: 'storms[0].inches',
        message: expect.stringMatching(
          /^Storm of \w{3} \d+, \d{4}, \d+:\d\d [AP]M E[SD]T at site 'maple-ridge' \(gauge rg-1\): the report gives its total as 0\.71 in, its logged record 0\.6 in$/,
        ),
      },
    ]);
  });

  it('a removed reading: the entry the proof covers and the report lacks, and the storm short of it', async () => {
    const { report, key } = tamperedReport(real, 'removed-reading');
    const v = await verifyReport(report, key);
    expect(v.ok).toBe(false);
    expect(v.problems.map((p) => p.field)).toEqual(['evidence.entries', 'storms[0]']);
    expect(v.problems[0]!.message).toMatch(
      /^The log proof covers log entry \d+, which the report does not carry: a record was taken out of the report; it comes between a reading of gauge rg-1 at .* and a reading of gauge rg-1 at /,
    );
    expect(v.problems[1]!.message).toMatch(
      /its logged record rests on 15 readings of its gauge, the report carries 14$/,
    );
  });

  it('a changed finding: the inspection, the practice by its label, and what each side reads', async () => {
    const { report, key } = tamperedReport(real, 'changed-finding');
    const v = await verifyReport(report, key);
    expect(v.problems).toEqual([
      {
        field: 'inspections[0].findings',
        message: expect.stringMatching(
          /^The inspection of \w{3} \d+, \d{4}, \d+:\d\d [AP]M E[SD]T at maple-ridge by Ian Inspector: the finding at 'Silt fence, north boundary' reads 'Needs maintenance' in the report but 'In order' in the log$/,
        ),
      },
    ]);
  });

  it('another key of the same name: the signature does not match the key pasted', async () => {
    const { report, key } = tamperedReport(real, 'wrong-key');
    const v = await verifyReport(report, key);
    expect(v.problems).toEqual([
      {
        field: 'evidence.checkpoint.note',
        message:
          "The signature does not match the public key you pasted (key name 'test-gw.gateway/evidence'): the checkpoint was signed with another key of that name",
      },
    ]);
    // Nothing else can be checked against a checkpoint that is not the town's.
    expect(v.checkpoint.size).toBe(-1);
  });

  it('a key of another name: the checkpoint is signed by someone else', async () => {
    const other = verifierKey('town-of-x', rawPublicKey(generateKeyPairSync('ed25519').privateKey));
    const v = await verifyReport(real.report, other);
    expect(v.problems).toEqual([
      {
        field: 'evidence.checkpoint.note',
        message:
          "The checkpoint is signed by 'test-gw.gateway/evidence', not by the key you pasted (key name 'town-of-x')",
      },
    ]);
    // A key whose name was changed in copying: its key id covers the name, so it is refused as a key.
    const renamed = await verifyReport(real.report, real.key.replace(/^[^+]+/, 'town-of-x'));
    expect(renamed.problems).toEqual([
      { field: 'key', message: expect.stringMatching(/key id does not match/) },
    ]);
  });

  it('a changed signature: the signature does not match, the checkpoint or its signature was changed', async () => {
    const { report, key } = tamperedReport(real, 'changed-signature');
    const v = await verifyReport(report, key);
    expect(v.problems).toEqual([
      {
        field: 'evidence.checkpoint.note',
        message:
          "The signature does not match the public key you pasted (key name 'test-gw.gateway/evidence'): the checkpoint or its signature was changed",
      },
    ]);
  });

  it("an inspector's signature changed in the report: the inspection and its field", async () => {
    expect(real.report.inspections.map((i) => i.signature)).toContainEqual({
      name: 'Ian Inspector',
      method: 'drawn',
      drawing: SIGNED,
    });
    const { report, key } = tamperedReport(real, 'inspection-signature');
    const v = await verifyReport(report, key);
    expect(v.ok).toBe(false);
    expect(v.problems).toEqual([
      {
        field: expect.stringMatching(/^inspections\[\d\]\.signature\.drawing$/),
        message: expect.stringMatching(
          /^The inspection of \w{3} \d+, \d{4}, \d+:\d\d [AP]M E[SD]T at [\w -]+ by Ian Inspector: the report shows the drawn signature's strokes "M20 150 L60 40", its logged record "M20 150 L60 40 L100 150 M130 90 L200 90"$/,
        ),
      },
    ]);
  });

  it('a record changed inside the report: its entry no longer matches its fingerprint', async () => {
    const report = structuredClone(real.report);
    const at = report.evidence.entries.findIndex((e) => e.kind === 'inspection');
    report.evidence.entries[at]!.body = report.evidence.entries[at]!.body.replace('Silt fence', 'Silt Fence');
    const v = await verifyReport(report, real.key);
    expect(v.problems.map((p) => p.field)).toContain(`evidence.entries[${at}].body`);
    expect(v.problems.find((p) => p.field === 'evidence.proof')?.message).toMatch(
      /are not in the log the checkpoint signs/,
    );
    expect(v.problems.find((p) => p.field === 'inspections[0].notes')?.message).toMatch(
      /^The inspection of .* by Ian Inspector: the report shows its notes "Silt fence holding; outlet clear\.", its logged record "Silt Fence/,
    );
  });

  it('reads the key as pasted: the line, broken over lines, or the whole answer of /api/evidence/key', async () => {
    expect(keyFromText(`  ${real.key}\n`)).toBe(real.key);
    expect(keyFromText(`${real.key.slice(0, 20)}\n${real.key.slice(20)}`)).toBe(real.key);
    expect(keyFromText(JSON.stringify({ origin: 'x', verifierKey: real.key }))).toBe(real.key);
    const v = await verifyReport(real.report, 'not a key');
    expect(v.problems).toEqual([
      { field: 'key', message: expect.stringMatching(/^The public key you pasted cannot be used: /) },
    ]);
  });

  it('refuses a file that is not a report, saying so', () => {
    expect(() => readReport([1, 2])).toThrow(/not the verifiable copy \(JSON\) of a compliance report/);
    expect(() => readReport({ storms: [] })).toThrow(/carries no signed checkpoint/);
  });
});
