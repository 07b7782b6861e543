import { inflateSync } from 'node:zlib';

/**
 * The colour of one pixel of a PNG, as Chromium writes screenshots (8-bit
 * RGB or RGBA, not interlaced): for tests that must see what is painted,
 * such as whether a backdrop dims something.
 */
export function pngPixel(png: Buffer, x: number, y: number): { r: number; g: number; b: number } {
  const width = png.readUInt32BE(16);
  const [bitDepth, colourType, , , interlace] = png.subarray(24, 29);
  if (bitDepth !== 8 || (colourType !== 2 && colourType !== 6) || interlace !== 0) throw new Error('only 8-bit RGB(A), non-interlaced PNGs');
  const channels = colourType === 6 ? 4 : 3;
  const chunks: Buffer[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    if (png.toString('latin1', at + 4, at + 8) === 'IDAT') chunks.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const data = inflateSync(Buffer.concat(chunks));
  const stride = width * channels;
  // Undo each row's filter (PNG spec section 9) down to row y.
  let previous = Buffer.alloc(stride);
  let row = previous;
  for (let line = 0; line <= y; line++) {
    const filter = data[line * (stride + 1)]!;
    const raw = data.subarray(line * (stride + 1) + 1, (line + 1) * (stride + 1));
    row = Buffer.alloc(stride);
    for (let i = 0; i < stride; i++) {
      const left = i >= channels ? row[i - channels]! : 0;
      const up = previous[i]!;
      const upLeft = i >= channels ? previous[i - channels]! : 0;
      const paeth = () => {
        const p = left + up - upLeft;
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
        return pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
      };
      const predictor = [0, left, up, (left + up) >> 1, paeth()][filter]!;
      row[i] = (raw[i]! + predictor) & 0xff;
    }
    previous = row;
  }
  return { r: row[x * channels]!, g: row[x * channels + 1]!, b: row[x * channels + 2]! };
}
