/**
 * The deployment's `.env` from `deploy/.env.example`: every secret of the example (a variable left empty,
 * or a `change-me` placeholder) given a random value of its own, every other line kept as it is.
 */
import { randomBytes } from 'node:crypto';

/** A random secret: 32 characters of base64url (192 bits), safe in a `.env` file, a URL and a password file. */
export const randomSecret = (): string => randomBytes(24).toString('base64url');

/** Whether the example's value is a secret to generate. */
export const isSecretSlot = (value: string): boolean => value === '' || /^change-me/i.test(value);

/** The `.env` text: the example's lines, each secret filled by `secret()`; the names it filled. */
export function envFromExample(
  example: string,
  secret: () => string = randomSecret,
): { text: string; generated: string[] } {
  const generated: string[] = [];
  const lines = example.split('\n').map((line) => {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (!m || !isSecretSlot(m[2]!.trim())) return line;
    generated.push(m[1]!);
    return `${m[1]}=${secret()}`;
  });
  return { text: lines.join('\n'), generated };
}
