/** docs/behaviour.md#error-messages: the sign-in wrapper renders errors as 'name: message'. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return `Error: ${String(error)}`;
}
