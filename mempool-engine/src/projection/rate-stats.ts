/** Summary statistics of a block's functional rates, without sorting the whole list. */

export function minOf(values: Float64Array): number {
  let low = Number.POSITIVE_INFINITY;
  for (let k = 0; k < values.length; k++) if (values[k]! < low) low = values[k]!;
  return low;
}

export function maxOf(values: Float64Array): number {
  let high = Number.NEGATIVE_INFINITY;
  for (let k = 0; k < values.length; k++) if (values[k]! > high) high = values[k]!;
  return high;
}

/** Median by count (the mean of the middle two for an even count); reorders `values`. Quickselect: O(length). */
export function median(values: Float64Array): number {
  const length = values.length;
  const middle = (length - 1) >> 1;
  select(values, middle);
  if (length % 2 === 1) return values[middle]!;
  let next = Number.POSITIVE_INFINITY;
  for (let k = middle + 1; k < length; k++) if (values[k]! < next) next = values[k]!;
  return (values[middle]! + next) / 2;
}

/** Puts the k-th smallest at index k, smaller ones before it and larger ones after (Hoare's selection). */
function select(values: Float64Array, k: number): void {
  let low = 0;
  let high = values.length - 1;
  while (high > low) {
    const pivot = values[(low + high) >> 1]!;
    let i = low;
    let j = high;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const t = values[i]!;
        values[i] = values[j]!;
        values[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) high = j;
    else if (k >= i) low = i;
    else return;
  }
}
