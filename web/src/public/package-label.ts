/** 'Package of 2 transactions', but 'of 1 transaction'. */
export function packageLabel(size: number): string {
  return `Package of ${size} ${size === 1 ? 'transaction' : 'transactions'}`;
}
