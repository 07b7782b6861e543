import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { ApiError } from '../api/http.ts';
import { DASHBOARD_TOAST, notify } from '../lib/toasts.tsx';

/** Fired on any 401, for the page that ends the session (docs/behaviour.md#error-messages). */
export const UNAUTHORIZED_EVENT = 'portal:unauthorized';

/** What a staff page says when it ends the session on a 401. */
export const SESSION_EXPIRED = 'Session expired. Please log in again.';

/**
 * Every failed dashboard call goes through one place (docs/behaviour.md#error-messages): a
 * 401 ends the session; anything else toasts the server's message or
 * 'Something went wrong', or a mutation's own `meta.errorToast`.
 */
export function createDashboardQueryClient(): QueryClient {
  const onError = (error: Error, toastText = error.message) => {
    if (error instanceof ApiError && error.status === 401) window.dispatchEvent(new Event(UNAUTHORIZED_EVENT));
    else notify.error(toastText, DASHBOARD_TOAST);
  };
  return new QueryClient({
    queryCache: new QueryCache({ onError: (error) => onError(error) }),
    mutationCache: new MutationCache({
      // A mutation may name its own failure toast (docs/behaviour.md#error-messages: 'Failed to update setting. Please try again.').
      onError: (error, _variables, _context, mutation) => {
        const own = mutation.meta?.errorToast;
        onError(error, typeof own === 'string' ? own : error.message);
      },
    }),
    defaultOptions: {
      // A 4xx will not change on retry; the network or a 5xx might.
      queries: { retry: (count, error) => count < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500) },
    },
  });
}
