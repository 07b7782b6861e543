import { randomBytes } from 'node:crypto';
import { encodeTxHex } from '../src/bitcoin/tx-codec.ts';

/**
 * Consensus-sized transactions for decode and event-loop measurements. They
 * spend outputs nobody has, so the node refuses them (missing inputs), but
 * every byte has to be read, hashed and answered for like a real one.
 */

const P2WPKH_SCRIPT = `0014${'11'.repeat(20)}`;
const RBF_SEQUENCE = 0xffff_fffd;

const fakeTxid = (): string => randomBytes(32).toString('hex');

/**
 * One input whose witness is a single item of `witnessBytes` bytes: close to
 * 4,000,000 bytes and 4,000,000 weight units with the default (the base part
 * is 82 bytes = 246 WU of extra weight, the witness overhead a few bytes).
 */
export function hugeWitnessTx(witnessBytes = 3_999_000): string {
  return encodeTxHex({
    version: 2,
    locktime: 0,
    inputs: [{ txid: fakeTxid(), vout: 0, scriptSig: '', sequence: RBF_SEQUENCE, witness: [randomBytes(witnessBytes).toString('hex')] }],
    outputs: [{ value: 10_000, scriptPubKey: P2WPKH_SCRIPT }],
  });
}

/**
 * `inputs` inputs from distinct made-up parents, each with a P2WSH-like
 * witness (signature, key, 500-byte script): with 5,000 inputs about
 * 3.9 million weight units in 3.3 MB, the many-small-parts shape.
 */
export function manyInputsTx(inputs = 5_000): string {
  return encodeTxHex({
    version: 2,
    locktime: 0,
    inputs: Array.from({ length: inputs }, (_, i) => ({
      txid: fakeTxid(),
      vout: i % 4,
      scriptSig: '',
      sequence: RBF_SEQUENCE,
      witness: [randomBytes(72).toString('hex'), `02${randomBytes(32).toString('hex')}`, randomBytes(500).toString('hex')],
    })),
    outputs: [{ value: 10_000, scriptPubKey: P2WPKH_SCRIPT }],
  });
}
