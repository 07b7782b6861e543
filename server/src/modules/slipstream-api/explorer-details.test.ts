import { test } from 'node:test';
import assert from 'node:assert/strict';
import { explorerOutput } from './explorer-details.ts';

test("an output script starting with OP_RETURN is op_return, as Esplora says, even when Core's type is nonstandard", () => {
  // OP_RETURN OP_CHECKSIG: not push-only after the OP_RETURN, so Core's decodescript says "nonstandard".
  assert.equal(explorerOutput({ hex: '6aac', type: 'nonstandard' }, 0).scriptpubkey_type, 'op_return');
  // A truncated push: Core cannot parse it as pushes either.
  assert.equal(explorerOutput({ hex: '6a05ff', type: 'nonstandard' }, 0).scriptpubkey_type, 'op_return');
  assert.equal(explorerOutput({ hex: '6a0401020304', type: 'nulldata' }, 0).scriptpubkey_type, 'op_return');
  // Other nonstandard scripts stay unknown; 0x6a elsewhere than first does not count.
  assert.equal(explorerOutput({ hex: 'ac6a', type: 'nonstandard' }, 0).scriptpubkey_type, 'unknown');
  assert.equal(explorerOutput({ hex: '', type: 'nonstandard' }, 0).scriptpubkey_type, 'empty');
  assert.equal(explorerOutput({ hex: `0014${'6a'.repeat(20)}`, type: 'witness_v0_keyhash' }, 0).scriptpubkey_type, 'v0_p2wpkh');
});
