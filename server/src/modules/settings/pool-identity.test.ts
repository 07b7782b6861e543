import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CoinbaseInfo } from '@slipstream/mempool-engine';
import { poolRecogniser } from './pool-identity.ts';

/** Mainnet addresses from Bitcoin Core's key_io_valid.json. */
const POOL_ADDRESS = 'bc1qvyq0cc6rahyvsazfdje0twl7ez82ndmuac2lhv';
const OTHER_ADDRESS = '1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2mo';

/** A coinbase as the block tracker reads it: a BIP 34 height push, then the miner's tag; one paying output. */
const coinbase = (tag: string, address: string): CoinbaseInfo => ({ scriptSig: Buffer.from(`\x03abc${tag}`), addresses: [address] });
const ours = coinbase('/pool/', POOL_ADDRESS);
const theirs = coinbase('/other/', OTHER_ADDRESS);

test('a block is the pool\'s by its coinbase tag or by a payout address, written as the settings screen may hold it', () => {
  const byTag = poolRecogniser({ coinbaseTag: ' /pool/ ', payoutAddresses: [], network: 'mainnet' });
  assert.deepEqual([byTag?.(ours), byTag?.(theirs)], [true, false]);
  const byAddress = poolRecogniser({ coinbaseTag: '', payoutAddresses: [` ${POOL_ADDRESS.toUpperCase()} `, ''], network: 'mainnet' });
  assert.deepEqual([byAddress?.(coinbase('/x/', POOL_ADDRESS)), byAddress?.(theirs)], [true, false]);
});

test('blank settings identify nothing on a real network, and every block on regtest (the project\'s own node mines them)', () => {
  assert.equal(poolRecogniser({ coinbaseTag: '', payoutAddresses: [], network: 'mainnet' }), undefined);
  const regtest = poolRecogniser({ coinbaseTag: '', payoutAddresses: [], network: 'regtest' });
  assert.deepEqual([regtest?.(ours), regtest?.(theirs)], [true, true]);
  const tagged = poolRecogniser({ coinbaseTag: 'NeverMined', payoutAddresses: [], network: 'regtest' });
  assert.deepEqual([tagged?.(ours), tagged?.(theirs)], [false, false]);
});

test('a stored payout address the network cannot have identifies nothing: odds unknown, never 0%', () => {
  for (const bad of [['notanaddress'], ['bcrt1qdavt4j2sd7dlhqsavtnfxvzppw6k7qy97tmnu9'], [`${POOL_ADDRESS.slice(0, -1)}w`]]) {
    assert.equal(poolRecogniser({ coinbaseTag: '', payoutAddresses: bad, network: 'mainnet' }), undefined, bad[0]);
  }
  // Beside a good one, a bad one is left out and the good one still counts.
  const mixed = poolRecogniser({ coinbaseTag: '', payoutAddresses: ['notanaddress', POOL_ADDRESS], network: 'mainnet' });
  assert.equal(mixed?.(ours), true);
  // A tag no coinbase can hold is no identification either.
  assert.equal(poolRecogniser({ coinbaseTag: 'x'.repeat(101), payoutAddresses: [], network: 'mainnet' }), undefined);
});
