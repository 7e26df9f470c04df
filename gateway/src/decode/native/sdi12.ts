/** The sdi12 decoder (being written). */
import { reject } from '../decode.ts';
import type { NativeDecoder } from './types.ts';

export const decodeSdi12: NativeDecoder = (msg) => reject('bad_topic', `no decoder yet for ${msg.transport}`);
