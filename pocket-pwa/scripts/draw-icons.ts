/**
 * Draws Pocket's icons (an amber burrow entrance with a prompt cursor inside) as real PNGs into public/icons/.
 * Run with `npm run icons -w pocket-pwa` after changing the drawing; the PNGs are committed so a build needs
 * no image tooling. Pure Node: a 4×4 supersampled shape function, PNG written with zlib.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

type Rgb = readonly [number, number, number];
const BACKGROUND: Rgb = [0x1b, 0x1d, 0x23];
const AMBER: Rgb = [0xe8, 0xa8, 0x4c];
const HOLE: Rgb = [0x0e, 0x0f, 0x13];
const CURSOR: Rgb = [0x9c, 0xe0, 0x8c];

/** Colour at a point of the unit square; `inset` shrinks the drawing into a maskable icon's safe zone. */
function shade(x: number, y: number, inset: number): Rgb {
  const s = 1 - 2 * inset;
  const u = (x - inset) / s;
  const v = (y - inset) / s;
  const cx = 0.5;
  const groundY = 0.74;
  const archR = 0.42;
  const holeR = 0.3;
  const d = Math.hypot(u - cx, v - groundY);
  if (v <= groundY && d <= holeR) {
    const inCursor = u > 0.5 && u < 0.64 && v > 0.63 && v < 0.675;
    const inChevron = Math.abs(u - 0.46 + Math.abs(v - 0.6) * 0.9) < 0.03 && v > 0.52 && v < 0.68;
    return inCursor || inChevron ? CURSOR : HOLE;
  }
  if (v <= groundY && d <= archR) return AMBER;
  if (v > groundY && v < groundY + 0.05 && u > 0.1 && u < 0.9) return AMBER;
  return BACKGROUND;
}

function drawRgba(size: number, inset: number): Uint8Array {
  const px = new Uint8Array(size * size * 4);
  const n = 4;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (let j = 0; j < n; j++) {
        for (let i = 0; i < n; i++) {
          const c = shade((x + (i + 0.5) / n) / size, (y + (j + 0.5) / n) / size, inset);
          r += c[0];
          g += c[1];
          b += c[2];
        }
      }
      const o = (y * size + x) * 4;
      px[o] = Math.round(r / (n * n));
      px[o + 1] = Math.round(g / (n * n));
      px[o + 2] = Math.round(b / (n * n));
      px[o + 3] = 255;
    }
  }
  return px;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}
function encodePng(size: number, rgba: Uint8Array): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++)
    raw.set(rgba.subarray(y * size * 4, (y + 1) * size * 4), y * (size * 4 + 1) + 1);
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    sig,
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', new Uint8Array()),
  ]);
}

const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'public', 'icons');
// Maskable icons keep their content inside the central 80 % circle (W3C manifest "safe zone").
const ICONS = [
  { file: 'icon-192.png', size: 192, inset: 0.04 },
  { file: 'icon-512.png', size: 512, inset: 0.04 },
  { file: 'icon-maskable-512.png', size: 512, inset: 0.14 },
  { file: 'apple-touch-icon-180.png', size: 180, inset: 0.06 },
];
for (const { file, size, inset } of ICONS)
  writeFileSync(join(out, file), encodePng(size, drawRgba(size, inset)));
console.log(`wrote ${ICONS.length} icons to ${out}`);
