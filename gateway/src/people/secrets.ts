/**
 * Secrets handed out once (session cookies, personal API tokens, setup codes, device passwords): random,
 * URL-safe, and kept only as their SHA-256 (a token, a cookie, a code) or scrypt hash (a device password,
 * which MQTT clients present on every login and the broker checks against scrypt).
 */
import { createHash, randomBytes } from 'node:crypto';

/** 32 random bytes as base64url (43 characters), with a readable prefix. */
export function newSecret(prefix = ''): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

export const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
