import { Type, type Static } from 'typebox';
import { MAX_RECEIPT_CHARS, RECEIPT_TYPE } from './receipt-token.ts';

/** Wire shapes of receipts: the field submissions answer with, the proof route, the published keys. */

const RECEIPT_DESCRIPTION =
  `The pool's signed receipt: a compact JWS (ES256, typ ${RECEIPT_TYPE}) whose payload is JSON {v, pool, network, txid, wtxid, fee (sats), vsize, threshold (sat/vB applied), ` +
  'quote ({quote_id, threshold, expires_at} or null), accepted_at (ISO 8601)}. Check it with the keys at /.well-known/jwks.json (or on the /verify page); ' +
  'once mined, POST it to /api/receipts/proof for the merkle proof. Nobody else can look it up: keep it.';

/** The receipt of a single submission (absent when another copy of the transaction, not this one, is what the node holds). */
export const ReceiptField = Type.Optional(Type.String({ description: RECEIPT_DESCRIPTION }));

/** A package's receipts: one for each member the node accepted, by txid. */
export const ReceiptsField = Type.Optional(
  Type.Record(Type.String(), Type.String(), { description: `One receipt for each member the node accepted, by txid. ${RECEIPT_DESCRIPTION}` }),
);

export const ProofBody = Type.Object(
  { receipt: Type.String({ minLength: 1, maxLength: MAX_RECEIPT_CHARS, description: 'A receipt a submission answered with' }) },
  { additionalProperties: false },
);

export const ProofResponse = Type.Object({
  txid: Type.String(),
  block_hash: Type.String({ description: 'The block that holds the transaction' }),
  block_height: Type.Integer(),
  header: Type.String({ description: "The block's 80-byte header, hex: its double SHA-256, byte-reversed, is block_hash" }),
  proof: Type.String({
    description:
      "The node's gettxoutproof for the txid in that block: a serialized merkle block (BIP 37: the header, the block's transaction count, hashes and flag bits), hex. " +
      "Walking its partial merkle tree gives the header's merkle root and the txid among the matched leaves; anyone checks it offline",
  }),
});
export type ProofResponse = Static<typeof ProofResponse>;

const Jwk = Type.Object(
  {
    kty: Type.String(),
    crv: Type.String(),
    x: Type.String(),
    y: Type.String(),
    kid: Type.String(),
    alg: Type.String(),
    use: Type.String(),
  },
  { additionalProperties: true },
);

export const JwksResponse = Type.Object(
  { keys: Type.Array(Jwk) },
  {
    description:
      "The pool's receipt keys (RFC 7517 JWK Set): the one that signs now and every retired one, whose receipts stay valid. A key the pool withdrew (its private half may have leaked) is not here, and receipts it signed no longer verify",
  },
);
