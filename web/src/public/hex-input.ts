/**
 * SPEC.md section 5: the input is trimmed; a comma means a package; items are
 * split on commas, trimmed, and empty items dropped.
 */
export interface HexInput {
  items: string[];
  isPackage: boolean;
}

export function splitHexInput(text: string): HexInput {
  const trimmed = text.trim();
  const isPackage = trimmed.includes(',');
  const items = (isPackage ? trimmed.split(',') : [trimmed]).map((item) => item.trim()).filter((item) => item !== '');
  return { items, isPackage };
}
