/** `npm run hash-password -- <password>`: prints the hash to put in the configuration (passwordHash). */
import { createHash } from 'node:crypto';
import { hashPassword } from '../../../shared/src/password.ts';

const [kind, value] =
  process.argv[2] === '--token' ? ['token', process.argv[3]] : ['password', process.argv[2]];
if (!value) {
  process.stderr.write(
    'usage: npm run hash-password -- <password>\n       npm run hash-password -- --token <api token>\n',
  );
  process.exit(2);
}
process.stdout.write(
  kind === 'token'
    ? `tokenSha256: ${createHash('sha256').update(value).digest('hex')}\n`
    : `passwordHash: ${hashPassword(value)}\n`,
);
