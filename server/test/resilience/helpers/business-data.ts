import assert from 'node:assert/strict';
import type { StaffTestApp } from '../../helpers/staff-app.ts';
import { fakeTxid, insertPackage, insertTx } from '../../helpers/submission-fixtures.ts';

/**
 * A little of everything the staff lists show, so that a filter that leaked
 * would have rows to leak, and every admin route has a record to act on:
 * clients (one that can be deleted), a discount code, a changed setting and
 * its log, a failed transaction, a submitted transaction and a package, and
 * the client and discount logs the API writes along the way.
 */

export interface BusinessData {
  clientId: number;
  /** A delivered webhook event of the client. */
  webhookDeliveryId: number;
  deletableClientId: number;
  discountId: number;
  discountCode: string;
  settingId: number;
  failedTxId: number;
}

export const BASE_CLIENT = 'Base Client';

export const discountBody = (fields: Record<string, unknown> = {}) => ({
  client_name: BASE_CLIENT,
  description: 'ten percent',
  discount_percentage: 10,
  valid_from: '2026-01-01 00:00:00',
  valid_until: '2099-12-31 23:59:59',
  ...fields,
});

export async function seedBusinessData(t: StaffTestApp): Promise<BusinessData> {
  const ok = <T>(res: { statusCode: number; body: T }, what: string): T => {
    assert.equal(res.statusCode, 200, `${what}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const client = ok(await t.call<{ id: number }>('POST', '/rest-api/client/add', { body: { name: BASE_CLIENT, email: 'base@example.com', organization_name: 'Base Org' } }), 'client');
  const deletable = ok(await t.call<{ id: number }>('POST', '/rest-api/client/add', { body: { name: 'Deletable Client' } }), 'deletable client');
  const discount = ok(await t.call<{ id: number; code: string }>('POST', '/rest-api/client-code/add', { body: discountBody() }), 'discount');
  const settings = ok(await t.call<{ result: Array<{ id: number; item: string; description: string | null }> }>('GET', '/rest-api/settings/view'), 'settings');
  const tag = settings.result.find((s) => s.item === 'pool_coinbase_tag');
  assert.ok(tag, 'the pool_coinbase_tag setting');
  ok(await t.call('POST', '/rest-api/settings/update', { body: [{ id: tag.id, item: tag.item, value: 'seeded tag', description: tag.description ?? '' }] }), 'setting');
  const { rows } = await t.db.query<{ id: number }>(
    `INSERT INTO failed_txs (txid, tx_hex, submission_type, client_code, status, errors)
     VALUES ($1, '0200', 'tx', $2, 'Failed', ARRAY['min relay fee not met']) RETURNING id`,
    [fakeTxid('security-failed'), discount.code],
  );
  await insertTx(t.db, { txid: fakeTxid('security-tx'), txHex: '0200aa', clientCode: discount.code, vsize: 200, fee: 2000, marketRate: 2, status: 'accepted', createdAt: '2026-02-01T10:00:00.000Z' });
  await insertPackage(t.db, { txids: [fakeTxid('security-p1'), fakeTxid('security-p2')], txHexes: ['0200bb', '0200cc'], clientCode: discount.code, totalVsize: 400, totalFee: 4000, marketRate: 2, createdAt: '2026-02-01T11:00:00.000Z' });
  // A delivered webhook event of the client: its delivery log has a row, and redeliver has one to send again.
  const delivery = await t.db.query<{ id: string }>(
    `WITH s AS (INSERT INTO webhook_subscriptions (txid, client_id, url, secret_salt) VALUES ($1, $2, 'https://hooks.example.com/x', 'salt') RETURNING id)
     INSERT INTO webhook_deliveries (subscription_id, event, payload, state) SELECT id, 'accepted', '{}'::jsonb, 'delivered' FROM s RETURNING id`,
    [fakeTxid('security-tx'), client.id],
  );
  return {
    clientId: client.id,
    deletableClientId: deletable.id,
    discountId: discount.id,
    discountCode: discount.code,
    settingId: tag.id,
    failedTxId: rows[0]!.id,
    webhookDeliveryId: Number(delivery.rows[0]!.id),
  };
}
