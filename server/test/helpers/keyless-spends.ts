import { createHash } from 'node:crypto';
import { encodeTxHex } from '../../src/bitcoin/tx-codec.ts';

/**
 * Transactions anyone can write without a key: what a stranger probing the
 * pool's private mempool sends. They decode, and the node judges them, but
 * their scripts fail (or, for OP_TRUE outputs, need no signature to spend).
 */

/** P2WSH of OP_TRUE: a standard output no wallet watches. */
export const OP_TRUE_P2WSH = `0020${createHash('sha256').update(Buffer.from([0x51])).digest('hex')}`;

/** An unsigned spend of `txid:vout` worth `value`, paying 10,000 sats of fee, with a one-byte OP_RETURN output as in a review's reproduction. */
export function unsignedSpendOf(txid: string, vout: number, value: number, locktime = 0): string {
  return encodeTxHex({
    version: 2,
    locktime,
    inputs: [{ txid, vout, scriptSig: '', sequence: 0xffff_fffd, witness: [] }],
    outputs: [
      { value: value - 10_000, scriptPubKey: OP_TRUE_P2WSH },
      { value: 0, scriptPubKey: '6a0100' },
    ],
  });
}
