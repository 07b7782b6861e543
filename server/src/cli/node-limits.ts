/**
 * The line `npm start` prints once about the node's limits: which of the
 * transaction classes a pool is asked to mine this node takes
 * (docs/production.md#which-node-for-which-transactions). For the Knots the
 * project runs with the pool's flags (`-acceptnonstdtxn=1 -corepolicy=1`)
 * the figures are the ones `server/test/node-acceptance.test.ts` records
 * from the node itself; for any other node, its name and where to look.
 */

export interface NodeIdentity {
  /** getnetworkinfo's `subversion`, e.g. "/Satoshi:29.5.0/Knots:20260508/". */
  subversion: string;
  /** Started by the portal with the pool's flags (the embedded regtest node). */
  embedded: boolean;
}

export function nodeName(subversion: string): string {
  const core = /Satoshi:([\d.]+)/.exec(subversion)?.[1];
  const knots = /Knots:(\d+)/.exec(subversion)?.[1];
  if (knots !== undefined) return `Bitcoin Knots ${core ?? '?'} (${knots})`;
  if (core !== undefined) return `Bitcoin Core ${core}`;
  return subversion || 'an unnamed node';
}

export function nodeLimitsLine({ subversion, embedded }: NodeIdentity): string {
  const name = nodeName(subversion);
  const where = 'docs/production.md#which-node-for-which-transactions';
  if (embedded && /Knots:/.test(subversion)) {
    return (
      `${name} with -acceptnonstdtxn=1 -corepolicy=1: takes transactions over 400,000 WU, several OP_RETURN outputs, P2A anchors, ` +
      `TRUC and 0-fee TRUC parents in packages; refuses output scripts over 34 bytes (OP_RETURN data over 80 bytes, bare multisig), ` +
      `tapscript OP_IF envelopes (inscriptions) and 0-fee parents that are not TRUC (${where})`
    );
  }
  return `${name}: what it takes depends on its version and policy flags (${where})`;
}
