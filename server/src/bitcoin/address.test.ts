import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { checkAddress, NETWORK_PREFIXES, type AddressNetwork } from './address.ts';

/**
 * Checked against Bitcoin Core's own address vectors (src/test/data/
 * key_io_valid.json and key_io_invalid.json), copied to test-data/: the
 * script each valid address pays, and the refusal of each invalid one on
 * every network.
 */

interface Vectors {
  valid: Array<{ address: string; scriptPubKey: string; chain: 'main' | 'testnet4' | 'signet' | 'regtest' }>;
  invalid: string[];
}

const vectors = JSON.parse(readFileSync(new URL('./test-data/key-io-addresses.json', import.meta.url), 'utf8')) as Vectors;
const NETWORKS = Object.keys(NETWORK_PREFIXES) as AddressNetwork[];
const networkOf = (chain: Vectors['valid'][number]['chain']): AddressNetwork => (chain === 'main' ? 'mainnet' : chain);

const flipCase = (text: string) => [...text].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');

test('every valid address of Core vectors decodes on its network to the script Core gives, in either case for bech32', () => {
  assert.ok(vectors.valid.length >= 50);
  for (const { address, scriptPubKey, chain } of vectors.valid) {
    const network = networkOf(chain);
    assert.deepEqual(checkAddress(address, network), { ok: true, address, scriptPubKey }, address);
    if (!/^[13mn2]/.test(address)) {
      assert.deepEqual(checkAddress(flipCase(address), network), { ok: true, address, scriptPubKey }, `${address} in upper case`);
    }
  }
});

test('an address is refused on a network whose prefixes it does not carry, saying which network it belongs to', () => {
  for (const { address, chain } of vectors.valid) {
    const own = NETWORK_PREFIXES[networkOf(chain)];
    const bech32 = /^(bc|tb|bcrt)1/.test(address);
    for (const network of NETWORKS) {
      const prefixes = NETWORK_PREFIXES[network];
      const shared = bech32 ? prefixes.hrp === own.hrp : prefixes.p2pkh === own.p2pkh && prefixes.p2sh === own.p2sh;
      const checked = checkAddress(address, network);
      assert.equal(checked.ok, shared, `${address} on ${network}`);
      if (!checked.ok) assert.match(checked.reason, new RegExp(`address, not ${network}$`), `${address} on ${network}`);
    }
  }
  assert.deepEqual(checkAddress('bc1qvyq0cc6rahyvsazfdje0twl7ez82ndmuac2lhv', 'regtest'), { ok: false, reason: 'is a mainnet address, not regtest' });
});

test('every invalid string of Core vectors is refused on every network, with a reason', () => {
  assert.ok(vectors.invalid.length >= 60);
  for (const text of vectors.invalid) {
    for (const network of NETWORKS) {
      const checked = checkAddress(text, network);
      assert.equal(checked.ok, false, `${JSON.stringify(text)} on ${network}`);
      if (!checked.ok) assert.ok(checked.reason.length > 0);
    }
  }
});

test('what a typo gets told', () => {
  assert.deepEqual(checkAddress('notanaddress', 'mainnet'), { ok: false, reason: 'is not an address' });
  assert.deepEqual(checkAddress('bc1 q', 'mainnet'), { ok: false, reason: 'has a character outside printable ASCII' });
  assert.deepEqual(checkAddress('0xdeadbeef', 'mainnet'), { ok: false, reason: "has '0', which is neither bech32 nor base58" });
  // One character changed in a valid regtest address.
  assert.deepEqual(checkAddress('bcrt1qdavt4j2sd7dlhqsavtnfxvzppw6k7qy97tmnu8', 'regtest'), { ok: false, reason: 'has a wrong checksum (a typo?)' });
  assert.deepEqual(checkAddress('mfhE6jAUwjUDNZhaX1PAsDTKfneQF2Nshd', 'regtest'), { ok: false, reason: 'has a wrong checksum (a typo?)' });
});
