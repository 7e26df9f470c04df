/**
 * The evidence log: its state and the audit of the store, the public key, signed checkpoints, inclusion
 * and consistency proofs, and the entries themselves (bodies as hashed), so that anyone can check a
 * report or a store without trusting the gateway. Hashes and proofs are base64, like the checkpoint.
 */
import type { FastifyPluginAsync } from 'fastify';
import {
  checkpointQuery,
  consistencyQuery,
  entriesQuery,
  inclusionQuery,
} from '../../../../shared/src/api/requests.ts';
import { publicKeyFromRaw, verifierKeyFingerprint } from '../../ledger/checkpoint.ts';
import { readingBody } from '../../ledger/records.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { parseWith } from '../query.ts';
import { type RouteDoc, route } from '../routes.ts';

const MAX_ENTRIES = 1000;
/**
 * An answer stops after this many characters of bodies (an inspection's record is up to about 110,000):
 * the rest follow by the Link header, so no answer holds the bodies of a thousand large records.
 */
const MAX_BODY_CHARS = 2_000_000;

const b64 = (b: Buffer) => b.toString('base64');
const doc = (summary: string, extra: Partial<RouteDoc> = {}) => ({
  schema: { tags: ['evidence'], summary, ...extra },
});

/** What the evidence routes use. */
export type EvidenceServices = Pick<ApiContext, 'auth' | 'compliance' | 'evidence' | 'log' | 'readings'>;

export const evidencePlugin: FastifyPluginAsync<EvidenceServices> = async (app, ctx) => {
  const { evidence, log } = ctx;
  const sizeOr = (size: number | undefined) => {
    const n = size ?? log.size();
    if (n > log.size()) throw new ApiError('BAD_REQUEST', `the log has ${log.size()} entries, not ${n}`);
    return n;
  };

  app.route(
    route(
      'GET /api/evidence',
      doc('The evidence log: its size, head, latest checkpoint and the audit of the store', {}),
      async (req) => {
        ctx.auth.requireRead(req);
        const cp = evidence.checkpoint();
        return {
          size: log.size(),
          root: b64(log.root()),
          checkpoint: { size: cp.size, root: b64(cp.root), at: new Date(cp.at).toISOString(), note: cp.note },
          audit: evidence.health(),
        };
      },
    ),
  );

  app.route(
    route('GET /api/evidence/key', doc('The public key that signs the checkpoints'), async () => {
      const k = evidence.key;
      return {
        origin: k.name,
        verifierKey: k.verifierKey,
        fingerprint: verifierKeyFingerprint(k.verifierKey),
        publicKey: b64(k.publicKey),
        pem: publicKeyFromRaw(k.publicKey).export({ format: 'pem', type: 'spki' }),
      };
    }),
  );

  app.route(
    route(
      'GET /api/evidence/checkpoint',
      doc('The latest signed checkpoint (signed now if the log grew), or the one of a size', {
        media: {
          description: 'The checkpoint (format=json), or its signed note alone (format=note)',
          content: { 'text/plain': 'text' },
        },
      }),
      async (req, reply) => {
        ctx.auth.requireRead(req);
        const q = parseWith(checkpointQuery, req.query);
        const cp = evidence.checkpoint(q.size === undefined ? undefined : sizeOr(q.size));
        if (q.format === 'note') return reply.type('text/plain; charset=utf-8').send(cp.note);
        return { size: cp.size, root: b64(cp.root), at: new Date(cp.at).toISOString(), note: cp.note };
      },
    ),
  );

  app.route(
    route(
      'GET /api/evidence/consistency',
      doc('A consistency proof from an earlier tree size to a later one (RFC 9162)', {}),
      async (req) => {
        ctx.auth.requireRead(req);
        const q = parseWith(consistencyQuery, req.query);
        const to = sizeOr(q.to);
        if (q.from > to) throw new ApiError('BAD_REQUEST', 'from must not be after to');
        return { from: q.from, to, proof: log.consistency(q.from, to).map(b64) };
      },
    ),
  );

  app.route(
    route(
      'GET /api/evidence/inclusion',
      doc('An inclusion proof of one entry in the tree of a size (RFC 9162)', {}),
      async (req) => {
        ctx.auth.requireRead(req);
        const q = parseWith(inclusionQuery, req.query);
        const size = sizeOr(q.size);
        if (q.index >= size)
          throw new ApiError('BAD_REQUEST', `entry ${q.index} is not in a tree of ${size}`);
        const e = log.entry(q.index);
        if (!e) throw new ApiError('NOT_FOUND', `no entry ${q.index}`);
        return { index: q.index, size, leaf: b64(e.leaf), proof: log.inclusion(q.index, size).map(b64) };
      },
    ),
  );

  app.route(
    route(
      'GET /api/evidence/entries',
      doc(
        `Entries [from, to) with their bodies as hashed, oldest first as the log is verified: at most ${MAX_ENTRIES}, and fewer when their bodies are long; the Link header names the rest`,
        {},
      ),
      async (req, reply) => {
        const caller = ctx.auth.requireRead(req);
        // The log holds every site's records: an owner or contractor verifies with their reports' proofs.
        if (caller?.sites !== undefined)
          throw new ApiError('FORBIDDEN', "the log's entries hold every site's records");
        const q = parseWith(entriesQuery, req.query);
        const end = sizeOr(q.to);
        const to = Math.min(end, q.from + MAX_ENTRIES);
        const out = [];
        let chars = 0;
        for (const e of log.entries(q.from, to)) {
          if (chars > MAX_BODY_CHARS) break;
          let body = e.body;
          if (body === null && e.kind === 'reading') {
            const r = ctx.readings.byId(Number(e.ref));
            body = r ? readingBody(r) : null;
          }
          out.push({
            index: e.idx,
            kind: e.kind,
            ref: e.ref,
            at: new Date(e.at).toISOString(),
            body,
            leaf: b64(e.leaf),
          });
          chars += body === null ? 0 : JSON.stringify(body).length;
        }
        const next = q.from + out.length;
        if (next < end) {
          const url = new URL(req.url, 'http://gateway');
          url.searchParams.set('from', String(next));
          url.searchParams.set('to', String(end));
          reply.header('link', `<${url.pathname}${url.search}>; rel="next"`);
        }
        return out;
      },
    ),
  );
};
