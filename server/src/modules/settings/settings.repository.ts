import type { Queryable } from '../../db/database.ts';
import type { SettingRow, SettingType } from './settings.schemas.ts';

/** The settings table (migration 001_settings.sql). */

interface SettingRecord {
  id: number;
  item: string;
  value: string;
  description: string;
  value_type: SettingType;
  min_value: number | null;
  max_value: number | null;
  required: boolean;
  updated_at: Date;
}

export type LockedSetting = Omit<SettingRecord, 'updated_at'>;

const COLUMNS = 'id, item, value, description, value_type, min_value, max_value, required, updated_at';

const toRow = (r: SettingRecord): SettingRow => ({ ...r, updated_at: r.updated_at.toISOString() });

export async function listSettings(db: Queryable, ids?: number[]): Promise<SettingRow[]> {
  const { rows } = ids
    ? await db.query<SettingRecord>(`SELECT ${COLUMNS} FROM settings WHERE id = ANY($1::int[]) ORDER BY id`, [ids])
    : await db.query<SettingRecord>(`SELECT ${COLUMNS} FROM settings ORDER BY id`);
  return rows.map(toRow);
}

/** The settings of `ids`, locked until the transaction ends; locked in id order, so two updates cannot deadlock. */
export async function lockSettings(tx: Queryable, ids: number[]): Promise<Map<number, LockedSetting>> {
  const { rows } = await tx.query<LockedSetting>(
    'SELECT id, item, value, description, value_type, min_value, max_value, required FROM settings WHERE id = ANY($1::int[]) ORDER BY id FOR UPDATE',
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r]));
}

export async function updateSetting(tx: Queryable, id: number, value: string, description: string): Promise<void> {
  await tx.query('UPDATE settings SET value = $2, description = $3, updated_at = now() WHERE id = $1', [id, value, description]);
}

/** Every setting's name and stored value, as the settings store reads them. */
export async function settingValues(db: Queryable): Promise<Array<{ item: string; value: string }>> {
  const { rows } = await db.query<{ item: string; value: string }>('SELECT item, value FROM settings');
  return rows;
}
