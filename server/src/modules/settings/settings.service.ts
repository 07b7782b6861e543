import type { Database } from '../../db/database.ts';
import { ApiError } from '../../http/errors.ts';
import { FieldErrors } from '../../http/forms.ts';
import { actorOf, logSettingChange, type ChangeActor } from '../change-logs/change-logs.repository.ts';
import { checkSettingValue } from './setting-values.ts';
import { listSettings, lockSettings, updateSetting } from './settings.repository.ts';
import type { SettingsResponse, SettingsUpdateBody } from './settings.schemas.ts';
import type { SettingsStore } from './settings.store.ts';

/**
 * The Settings screen (docs/behaviour.md#settings). An update applies every
 * setting sent or none: the values are checked first, then written with their
 * setting log entries in one transaction. The settings cache is dropped after
 * the commit, so pricing and the maintenance switch follow at once on this
 * instance (and within the cache's few seconds on the others).
 */

export const settingNotFoundMessage = (id: number) => `Setting ${id} does not exist.`;
export const itemMismatchMessage = (id: number, item: string, sent: string) =>
  `Setting ${id} is '${item}', not '${sent}'. Reload the settings and try again.`;

export interface SettingsService {
  view(): Promise<SettingsResponse>;
  update(body: SettingsUpdateBody, who: string | ChangeActor): Promise<SettingsResponse>;
}

/** `network`: the node's, which the pool's payout addresses must belong to. */
export function createSettingsService(deps: { db: Database; settings: SettingsStore; network: string }): SettingsService {
  const { db, settings, network } = deps;
  return {
    async view() {
      return { result: await listSettings(db) };
    },

    async update(body, who) {
      const { username, email } = actorOf(who);
      const ids = body.map((s) => s.id);
      const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
      if (repeated !== undefined) throw new ApiError(400, `Setting ${repeated} is listed more than once.`);

      await db.transaction(async (tx) => {
        const current = await lockSettings(tx, ids);
        const errors = new FieldErrors();
        const changes: Array<{ id: number; item: string; previous: string; value: string; description: string; previousDescription: string }> = [];
        for (const sent of body) {
          const setting = current.get(sent.id);
          if (!setting) throw new ApiError(404, settingNotFoundMessage(sent.id));
          if (setting.item !== sent.item.trim()) throw new ApiError(400, itemMismatchMessage(sent.id, setting.item, sent.item));
          // Saving a setting unchanged never fails, whatever is stored (a value from before a rule existed, say).
          const unchanged = sent.value !== undefined && sent.value !== null && String(sent.value).trim() === setting.value;
          const checked = unchanged ? { ok: true as const, value: setting.value } : checkSettingValue(setting, sent.value, { network });
          if (!checked.ok) {
            errors.add(setting.item, checked.message);
            continue;
          }
          changes.push({
            id: setting.id,
            item: setting.item,
            previous: setting.value,
            value: checked.value,
            previousDescription: setting.description,
            description: sent.description === undefined ? setting.description : sent.description.trim(),
          });
        }
        errors.throwIfAny();
        for (const c of changes) {
          if (c.value === c.previous && c.description === c.previousDescription) continue;
          await updateSetting(tx, c.id, c.value, c.description);
          // The setting log records values (docs/behaviour.md#data-shapes); a new description alone is not a change of value.
          if (c.value !== c.previous) {
            await logSettingChange(tx, { settingId: c.id, item: c.item, username, email, previousValue: c.previous, updatedValue: c.value });
          }
        }
      });
      settings.invalidate();
      const updated = new Map((await listSettings(db, ids)).map((s) => [s.id, s]));
      return { result: ids.map((id) => updated.get(id)!) };
    },
  };
}
