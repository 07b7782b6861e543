import { mutationOptions, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { staffApi, unwrap } from './http.ts';
import { listKey } from './list-query.ts';
import { SETTING_LOGS } from './lists.ts';
import type { paths } from './schema';
import { SETTINGS_KEY } from './settings-view.ts';

type Endpoint = paths['/rest-api/settings/update']['post'];
export type SettingsUpdateBody = Endpoint['requestBody']['content']['application/json'];
export type SettingsUpdateResponse = Endpoint['responses'][200]['content']['application/json'];

/** docs/behaviour.md#error-messages: what a failed save says, whatever the reason (the field's own message shows in the form). */
export const SETTINGS_SAVE_FAILED = 'Failed to update setting. Please try again.';

/** docs/behaviour.md#staff-calls: an array of {id, item, value, description}, applied together or not at all. */
export const updateSettings = (body: SettingsUpdateBody) => unwrap(staffApi.POST('/rest-api/settings/update', { body }));

export const updateSettingsMutation = (client: QueryClient) =>
  mutationOptions({
    mutationFn: updateSettings,
    // The dashboard's failure toast says this instead of the server's message.
    meta: { errorToast: SETTINGS_SAVE_FAILED },
    onSuccess: () =>
      Promise.all([client.invalidateQueries({ queryKey: SETTINGS_KEY }), client.invalidateQueries({ queryKey: listKey(SETTING_LOGS) })]),
  });

export function useUpdateSettings() {
  const client = useQueryClient();
  return useMutation(updateSettingsMutation(client));
}
