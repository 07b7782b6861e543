import { mutationOptions, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { apiCall } from './http.ts';
import type { paths } from './schema';
import { SETTING_LOGS_KEY } from './setting-logs-list.ts';
import { SETTINGS_KEY } from './settings-view.ts';

type Endpoint = paths['/rest-api/settings/update']['post'];
export type SettingsUpdateBody = Endpoint['requestBody']['content']['application/json'];
export type SettingsUpdateResponse = Endpoint['responses'][200]['content']['application/json'];

/** SPEC.md section 8: what a failed save says, whatever the reason (the field's own message shows in the form). */
export const SETTINGS_SAVE_FAILED = 'Failed to update setting. Please try again.';

/** SPEC.md section 7: an array of {id, item, value, description}, applied together or not at all. */
export const updateSettings = (body: SettingsUpdateBody) =>
  apiCall<SettingsUpdateResponse>('/rest-api/settings/update', { method: 'POST', body, staff: true });

export const updateSettingsMutation = (client: QueryClient) =>
  mutationOptions({
    mutationFn: updateSettings,
    // The dashboard's failure toast says this instead of the server's message.
    meta: { errorToast: SETTINGS_SAVE_FAILED },
    onSuccess: () =>
      Promise.all([client.invalidateQueries({ queryKey: SETTINGS_KEY }), client.invalidateQueries({ queryKey: SETTING_LOGS_KEY })]),
  });

export function useUpdateSettings() {
  const client = useQueryClient();
  return useMutation(updateSettingsMutation(client));
}
