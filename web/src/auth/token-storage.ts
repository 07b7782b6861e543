/**
 * Where the sign-in layer keeps the staff token set (SPEC.md section 6): browser
 * local storage under this key. Only its presence is read here: the server
 * verifies every token it is sent.
 */
export const TOKEN_STORAGE_KEY = 'okta-token-storage';

export function hasStoredToken(): boolean {
  try {
    const stored = window.localStorage.getItem(TOKEN_STORAGE_KEY);
    return stored !== null && stored !== '' && stored !== '{}';
  } catch {
    return false; // storage disabled: treated as signed out
  }
}
