/** The people of a site among its recipients, by role, and accounts on a real store. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChangeLog } from '../../gateway/src/admin/changes.ts';
import { parseConfig } from '../../gateway/src/config/load.ts';
import { routeRecipients } from '../../gateway/src/notify/routing.ts';
import { Accounts, EmailTaken } from '../../gateway/src/people/accounts.ts';
import { withPeople } from '../../gateway/src/people/index.ts';
import { openDatabase } from '../../gateway/src/store/db.ts';
import { EvidenceLog } from '../../gateway/src/store/evidenceLog.ts';
import { testConfigInput } from '../helpers/gateway.ts';

describe('people', () => {
  it('route a site’s notifications to its people by role, as configured recipients are', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-people-'));
    const db = openDatabase(dir);
    try {
      const accounts = new Accounts(db, new ChangeLog(db, new EvidenceLog(db), Date.now), Date.now);
      const mk = (name: string, email: string, role: 'owner' | 'contractor' | 'viewer', sites: string[]) =>
        accounts.create({ name, email, role, sites, password: 'a long password' }, 'test');
      mk('Olive Owner', 'olive@oak.example', 'owner', ['oak-lane']);
      mk('Carl Contractor', 'carl@build.example', 'contractor', ['oak-lane']);
      mk('Vic Viewer', 'vic@town.example', 'viewer', ['oak-lane']);
      mk('Mia Maple', 'mia@maple.example', 'owner', ['maple-ridge']);
      expect(() => mk('Olive Again', 'OLIVE@oak.example', 'owner', [])).toThrow(EmailTaken);
      expect(await accounts.check('Olive@Oak.example', 'a long password')).toMatchObject({
        name: 'Olive Owner',
      });
      expect(await accounts.check('olive@oak.example', 'wrong')).toBeUndefined();

      const site = parseConfig(testConfigInput()).sites.find((s) => s.id === 'oak-lane')!;
      const routed = withPeople(site, accounts.ofSite('oak-lane'))!;
      expect(routed.recipients).toEqual([
        { role: 'owner', name: 'Olive Owner', email: 'olive@oak.example' },
        { role: 'developer', name: 'Carl Contractor', email: 'carl@build.example' },
      ]);
      // A reminder of a rule the owner must act on goes to the owner alone.
      expect(routeRecipients(routed, 'reminder', 'equipment-remedy').map((t) => t.target)).toEqual([
        'olive@oak.example',
      ]);
      expect(routeRecipients(routed, 'raise', 'equipment-remedy')).toHaveLength(2);
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
