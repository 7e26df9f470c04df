/** The lorawan decoder (being written). */
import { reject } from '../decode.ts';
import type { NativeDecoder } from './types.ts';

export const decodeLorawan: NativeDecoder = (msg) =>
  reject('bad_topic', `no decoder yet for ${msg.transport}`);
