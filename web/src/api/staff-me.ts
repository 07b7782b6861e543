import { queryOptions, useQuery } from '@tanstack/react-query';
import { staffApi, unwrap } from './http.ts';
import type { paths } from './schema';

export type StaffMe = paths['/rest-api/staff/me']['get']['responses'][200]['content']['application/json'];

export const fetchStaffMe = (signal?: AbortSignal) => unwrap(staffApi.GET('/rest-api/staff/me', { signal }));

/** docs/behaviour.md#staff-session: authentication is checked on load; the server says who is an admin. */
export const staffMeQuery = queryOptions({
  queryKey: ['staff', 'me'],
  queryFn: ({ signal }) => fetchStaffMe(signal),
  staleTime: 60_000,
  retry: false,
});

export const useStaffMe = () => useQuery(staffMeQuery);
