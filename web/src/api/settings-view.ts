import { queryOptions, useQuery } from '@tanstack/react-query';
import { staffApi, unwrap } from './http.ts';
import type { paths } from './schema';

type Endpoint = paths['/rest-api/settings/view']['get'];
export type SettingsResponse = Endpoint['responses'][200]['content']['application/json'];
export type SettingRow = SettingsResponse['result'][number];

export const SETTINGS_KEY = ['settings', 'view'] as const;

/** Every setting at once: the list is short, so the table pages it in the browser. */
export const fetchSettings = (signal?: AbortSignal) => unwrap(staffApi.GET('/rest-api/settings/view', { signal }));

export const settingsQuery = queryOptions({
  queryKey: SETTINGS_KEY,
  queryFn: ({ signal }) => fetchSettings(signal),
});

export const useSettings = () => useQuery(settingsQuery);
