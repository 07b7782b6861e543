import { parseArgs } from 'node:util';
import { WALLET_NAME } from '../bitcoin/node-launcher.ts';
import { ConfigError } from '../../src/config/config.ts';
import { findPortal } from './find-portal.ts';

/**
 * `npm run -s mine -- N`: mines N blocks (default 1) on the regtest node the
 * portal started, to its `portal` wallet, and prints the new height and the
 * blocks' hashes. It talks to the node over JSON-RPC with the project's own
 * client, found as demo:tx finds it (find-portal.ts): the shipped
 * bitcoin-cli needs the private loader and does not run on its own.
 */

const USAGE = 'Usage: npm run -s mine -- [N]   (N blocks, 1 to 1000; default 1)';
const MAX_BLOCKS = 1_000;

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ options: { help: { type: 'boolean' } }, allowPositionals: true });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (positionals.length > 1) throw new Error(USAGE);
  const text = positionals[0] ?? '1';
  const count = Number(text);
  if (!/^[0-9]+$/.test(text) || count < 1 || count > MAX_BLOCKS) throw new Error(`Not a number of blocks: '${text}'.\n${USAGE}`);

  const { rpc } = await findPortal();
  const { chain } = await rpc.call<{ chain: string }>('getblockchaininfo');
  if (chain !== 'regtest') throw new Error(`mine only runs against a regtest node; this one runs ${chain}.`);
  const wallet = rpc.wallet(WALLET_NAME);
  const address = await wallet.call<string>('getnewaddress', ['', 'bech32']);
  const hashes = await wallet.call<string[]>('generatetoaddress', [count, address]);
  const height = await rpc.call<number>('getblockcount');
  console.log(`Mined ${count} block${count === 1 ? '' : 's'}; the chain is at height ${height}.`);
  for (const hash of hashes) console.log(hash);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError || error instanceof Error ? error.message : String(error));
  process.exit(1);
});
