/**
 * docs/behaviour.md#submit-page: the input is trimmed; a comma means a package; items are
 * split on commas, trimmed, and empty items dropped. Whitespace inside an
 * item (a hex wrapped over lines by the tool it came from) is not part of the
 * hex either: it is removed, as the server does.
 */
export interface HexInput {
  items: string[];
  isPackage: boolean;
}

export function splitHexInput(text: string): HexInput {
  const trimmed = text.trim();
  const isPackage = trimmed.includes(',');
  const items = (isPackage ? trimmed.split(',') : [trimmed]).map((item) => item.replace(/\s+/g, '')).filter((item) => item !== '');
  return { items, isPackage };
}
