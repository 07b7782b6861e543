import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse } from '../../http/errors.ts';
import { JwksResponse, ProofBody, ProofResponse } from './receipts.schemas.ts';
import type { ReceiptService } from './receipts.service.ts';

/** The well-known path of the receipt keys (RFC 8615), and the tag both routes share in the API document. */
export const JWKS_PATH = '/.well-known/jwks.json';
export const RECEIPTS_TAG = 'receipts';

/**
 * POST /api/receipts/proof: registered in the /api public scope (its
 * per-address budget, and its node-call budget: one call,
 * http/node-call-budget.ts). The receipt is the only key to the answer:
 * there is no lookup by txid.
 */
export function receiptProofRoutes(receipts: ReceiptService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post('/receipts/proof', {
      bodyLimit: 16 * 1024,
      schema: {
        tags: [RECEIPTS_TAG],
        summary: 'For a receipt of a mined transaction: its block and a merkle inclusion proof from the node',
        description:
          'The receipt is checked first (its signature against the published keys): an altered or unknown one gets 400 and costs the node nothing. ' +
          "404 while no block holds the transaction. Check the answer offline: the header's double SHA-256 (byte-reversed) is block_hash, and the proof's partial merkle tree gives the header's merkle root with the receipt's txid among its matches.",
        body: ProofBody,
        response: { 200: ProofResponse, 400: ErrorResponse, 404: ErrorResponse, 413: ErrorResponse, 429: ErrorResponse, 503: ErrorResponse },
      },
    }, (request) => receipts.proof(request.body.receipt));
  };
}

/**
 * GET /.well-known/jwks.json: the keys that check receipts. A public scope
 * of its own (the per-address budget, CORS for any origin so that a page
 * anywhere can check a receipt), cached by browsers for a few minutes.
 */
export function jwksRoutes(receipts: ReceiptService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/jwks.json', {
      schema: {
        tags: [RECEIPTS_TAG],
        summary: "The pool's receipt keys (JWK Set): check a receipt's signature with them",
        response: { 200: JwksResponse, 429: ErrorResponse, 503: ErrorResponse },
      },
    }, async (_request, reply) => {
      // A rotation is seen within minutes by anyone who cached it; a receipt naming a newer kid makes a checker fetch again.
      void reply.header('cache-control', 'public, max-age=300');
      return receipts.jwks();
    });
  };
}
