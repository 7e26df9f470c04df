/**
 * SHA-256 and Ed25519 through WebCrypto (`globalThis.crypto.subtle`), which Node 20 and current browsers
 * both have: the report verifier's hashing and signature check, the same code in `npm run verify` and in
 * verify.html. Asynchronous, as WebCrypto is; the gateway's own hashing (building the log, signing) stays
 * on Node's synchronous `node:crypto` (`merkle.ts`, `checkpoint.ts`). No Node API.
 */
import { concat, utf8 } from './bytes.ts';

const subtle = (): SubtleCrypto => {
  const s = globalThis.crypto?.subtle;
  if (!s)
    throw new Error('this browser has no WebCrypto (crypto.subtle): open the page in a current browser');
  return s;
};

/** SHA-256 of some bytes. */
export async function sha256(data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await subtle().digest('SHA-256', data as Uint8Array<ArrayBuffer>));
}

const LEAF = new Uint8Array([0]);
const NODE = new Uint8Array([1]);

/** SHA-256(0x00 || UTF-8 body): a log entry's leaf hash. */
export const leafHashOf = (body: string): Promise<Uint8Array> => sha256(concat(LEAF, utf8(body)));

/** SHA-256(0x01 || left || right): an interior node of the log's tree. */
export const nodeHashOf = (left: Uint8Array, right: Uint8Array): Promise<Uint8Array> =>
  sha256(concat(NODE, left, right));

/** Whether `signature` is a valid Ed25519 signature of `message` by the raw 32-byte public key. */
export async function ed25519Verifies(
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  const key = await subtle()
    .importKey('raw', publicKey as Uint8Array<ArrayBuffer>, { name: 'Ed25519' }, false, ['verify'])
    .catch((e: Error) => {
      // Browsers added Ed25519 to WebCrypto in 2023-2024 (Chrome 113, Safari 17, Firefox 129).
      throw new Error(
        `this browser cannot check Ed25519 signatures (${e.message}): open the page in a current browser`,
      );
    });
  return subtle().verify(
    { name: 'Ed25519' },
    key,
    signature as Uint8Array<ArrayBuffer>,
    message as Uint8Array<ArrayBuffer>,
  );
}
