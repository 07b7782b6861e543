/** The /verify page's verdict words (docs/behaviour.md#quotes-and-receipts), shared with its tests. */
export const VALID_TEXT = 'Valid receipt';
export const INVALID_TEXT = 'Invalid receipt.';
export const KEYS_UNAVAILABLE = "The pool's published keys could not be fetched. Check your connection and try again.";
export const KEYS_PATH = '/.well-known/jwks.json';
