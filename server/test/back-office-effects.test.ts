import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { DiscountRow } from '../src/modules/discounts/discounts.schemas.ts';
import type { SettingsResponse } from '../src/modules/settings/settings.schemas.ts';
import { FEE_TOO_LOW_MESSAGE, MAINTENANCE_MESSAGE } from '../src/modules/submission/submission.service.ts';
import { startTestNode, type TestNode } from './helpers/regtest.ts';
import { testDatabases, type TestDatabase } from './helpers/test-db.ts';
import { get, post, withoutReceipt } from './helpers/test-app.ts';
import { startStaffTestApp, type StaffTestApp } from './helpers/staff-app.ts';

/**
 * What the back office changes, seen from the public side at once: settings
 * saved through /rest-api/settings/update price and pause the next
 * submission, and a code issued through /rest-api/client-code/add discounts a
 * submission to a real regtest node.
 */

interface SubmitBody {
  status: string;
  message: string;
  notice?: string;
}

let node: TestNode;

before(async () => {
  node = await startTestNode();
  await node.ensureUtxos(30);
});

after(async () => {
  await node?.stop();
});

for (const engine of testDatabases()) {
  describe(`back office changes take effect at once (${engine.name})`, () => {
    let db: TestDatabase;
    let t: StaffTestApp;

    before(async () => {
      db = await engine.open();
      t = await startStaffTestApp(db, node);
    });
    after(async () => {
      await t?.close();
      await db?.close();
    });

    /** Saves settings through the staff API, as the Settings screen does. */
    async function saveSettings(values: Record<string, string>): Promise<{ statusCode: number; body: SettingsResponse & { message?: string } }> {
      const current = (await t.call<SettingsResponse>('GET', '/rest-api/settings/view')).body.result;
      const body = Object.entries(values).map(([item, value]) => ({ id: current.find((s) => s.item === item)!.id, item, value }));
      return t.call<SettingsResponse & { message?: string }>('POST', '/rest-api/settings/update', { body });
    }
    const minimum = async () => (await get<{ fee_rate: number }>(t.app, '/rest-api/getinfo')).body.fee_rate;

    test('maintenance_mode saved as true refuses the next submission with 503; saved as false accepts it again', async () => {
      const on = await saveSettings({ maintenance_mode: 'true' });
      assert.equal(on.statusCode, 200, on.body.message);
      const tx = await node.buildTx({ feeRate: 3 });
      try {
        const refused = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex });
        assert.equal(refused.statusCode, 503);
        assert.equal(refused.body.message, MAINTENANCE_MESSAGE);
        assert.equal((await get<{ maintenance: boolean }>(t.app, '/rest-api/site-info')).body.maintenance, true);
        await assert.rejects(node.rpc.call('getmempoolentry', [tx.txid]));
      } finally {
        assert.equal((await saveSettings({ maintenance_mode: 'false' })).statusCode, 200);
      }
      const accepted = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex });
      assert.deepEqual(withoutReceipt(accepted.body), { status: 'success', message: tx.txid });
      assert.equal((await get<{ maintenance: boolean }>(t.app, '/rest-api/site-info')).body.maintenance, false);
    });

    test('fee_rate_floor saved through the API prices the next submission; a value out of its bounds is refused and changes nothing', async () => {
      assert.equal(await minimum(), 2);
      try {
        assert.equal((await saveSettings({ fee_rate_floor: '5' })).statusCode, 200);
        assert.equal(await minimum(), 5);
        const cheap = await node.buildTx({ feeRate: 3 });
        const refused = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: cheap.hex });
        assert.equal(refused.statusCode, 422);
        assert.equal(refused.body.message, FEE_TOO_LOW_MESSAGE);

        const negative = await saveSettings({ fee_rate_floor: '-1' });
        assert.equal(negative.statusCode, 400);
        assert.equal(negative.body.message, 'Value must be at least 0');
        const multiplier = await saveSettings({ slipstream_multiplier: '0' });
        assert.equal(multiplier.body.message, 'Value must be between 1 and 100');
        assert.equal(await minimum(), 5, 'the refused values changed nothing');
      } finally {
        assert.equal((await saveSettings({ fee_rate_floor: '2' })).statusCode, 200);
      }
      assert.equal(await minimum(), 2);
    });

    test('a code issued through the API lowers the threshold of a public submission; made inactive or deleted, it no longer does', async () => {
      // As in submission.test.ts: no floor, and a multiple that puts the minimum at 4 sat/vB, so a 50% code brings it to 2.
      assert.equal((await saveSettings({ fee_rate_floor: '0' })).statusCode, 200);
      const market = (await minimum()) / 2;
      const multiple = String(4 / market);
      const saved = await saveSettings({ slipstream_multiplier: multiple });
      assert.equal(saved.statusCode, 200, `multiple ${multiple}: ${saved.body.message}`);
      try {
        assert.ok(Math.abs((await minimum()) - 4) < 1e-9);
        assert.equal((await t.call('POST', '/rest-api/client/add', { body: { name: `Discounted ${engine.name}` } })).statusCode, 200);
        const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
        const form = { client_name: `Discounted ${engine.name}`, description: 'half price', discount_percentage: '50', valid_from: `${day(-1)} 00:00:00`, valid_until: `${day(1)} 23: 59: 59` };
        const issued = await t.call<DiscountRow & { message?: string }>('POST', '/rest-api/client-code/add', { body: form });
        assert.equal(issued.statusCode, 200, issued.body.message);
        const { id, code } = issued.body;

        const tx = await node.buildTx({ feeRate: 3 });
        assert.equal((await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex })).statusCode, 422, 'without the code, 3 sat/vB is under 4');
        const ok = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: tx.hex, client_code: code });
        assert.deepEqual(withoutReceipt(ok.body), { status: 'success', message: tx.txid });
        await t.records.idle();
        const recorded = await db.query<{ client_code: string; discount_code_id: number }>('SELECT client_code, discount_code_id FROM tx_submissions WHERE txid = $1', [tx.txid]);
        assert.deepEqual(recorded.rows, [{ client_code: code, discount_code_id: id }]);
        const tooCheap = await node.buildTx({ feeRate: 1.5 });
        assert.equal((await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: tooCheap.hex, client_code: code })).statusCode, 422, 'the discount halves the minimum, no more');

        // The client now has a code (and a submission through it): it cannot be deleted.
        const client = (await t.call<{ result: Array<{ id: number; is_deletable: boolean }> }>('GET', '/rest-api/client/view', { query: { client_name: `Discounted ${engine.name}` } })).body.result[0]!;
        assert.equal(client.is_deletable, false);
        assert.equal((await t.call('DELETE', `/rest-api/client/delete/${client.id}`)).statusCode, 409);

        assert.equal((await t.call('POST', `/rest-api/client-code/update/${id}`, { body: { ...form, status: false } })).statusCode, 200);
        const inactive = await node.buildTx({ feeRate: 3 });
        const refused = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: inactive.hex, client_code: code });
        assert.equal(refused.statusCode, 422);
        assert.equal(refused.body.notice, `Client code ${code} is inactive; no discount was applied.`);

        assert.equal((await t.call('DELETE', `/rest-api/client-code/delete/${id}`)).statusCode, 200);
        const deleted = await post<SubmitBody>(t.app, '/rest-api/submit-tx', { tx_hex: inactive.hex, client_code: code });
        assert.equal(deleted.body.notice, `Client code ${code} is not recognised; no discount was applied.`);
        const kept = await db.query<{ client_code: string; discount_code_id: number | null }>('SELECT client_code, discount_code_id FROM tx_submissions WHERE txid = $1', [tx.txid]);
        assert.deepEqual(kept.rows, [{ client_code: code, discount_code_id: null }], 'the submission keeps its code text');
        assert.equal((await t.call('DELETE', `/rest-api/client/delete/${client.id}`)).statusCode, 200, 'deletable once its code is gone');
      } finally {
        assert.equal((await saveSettings({ fee_rate_floor: '2', slipstream_multiplier: '2' })).statusCode, 200);
      }
    });
  });
}
