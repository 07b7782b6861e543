import { createHash } from 'node:crypto';

/**
 * Bitcoin addresses, decoded and checked against a network: segwit addresses
 * in bech32 (BIP 173, witness version 0) or bech32m (BIP 350, versions 1 to
 * 16), and legacy P2PKH/P2SH addresses in base58check. Used to refuse a
 * setting the portal could never match (a payout address of another network,
 * a typo) before it is stored.
 */

export type AddressNetwork = 'mainnet' | 'testnet' | 'testnet4' | 'signet' | 'regtest';

interface NetworkPrefixes {
  /** The bech32 human-readable part (BIP 173; Core's chainparams.cpp bech32_hrp). */
  hrp: string;
  /** base58 version bytes: PUBKEY_ADDRESS and SCRIPT_ADDRESS of chainparams.cpp. */
  p2pkh: number;
  p2sh: number;
}

const TEST_PREFIXES = { hrp: 'tb', p2pkh: 0x6f, p2sh: 0xc4 };

export const NETWORK_PREFIXES: Record<AddressNetwork, NetworkPrefixes> = {
  mainnet: { hrp: 'bc', p2pkh: 0x00, p2sh: 0x05 },
  testnet: TEST_PREFIXES,
  testnet4: TEST_PREFIXES,
  signet: TEST_PREFIXES,
  regtest: { hrp: 'bcrt', p2pkh: 0x6f, p2sh: 0xc4 },
};

/** `address` in canonical form (bech32 in lower case, as the node writes it) and the output script it pays (hex). */
export type AddressCheck = { ok: true; address: string; scriptPubKey: string } | { ok: false; reason: string };

// ---- bech32 / bech32m (BIP 173, BIP 350) ----

const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BECH32_CONST = 1;
const BECH32M_CONST = 0x2bc830a3;

function polymod(values: number[]): number {
  const generator = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
  let chk = 1;
  for (const value of values) {
    const top = chk >>> 25;
    chk = (((chk & 0x1ffffff) << 5) ^ value) >>> 0;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk = (chk ^ generator[i]!) >>> 0;
  }
  return chk;
}

function hrpExpand(hrp: string): number[] {
  const codes = [...hrp].map((c) => c.charCodeAt(0));
  return [...codes.map((c) => c >> 5), 0, ...codes.map((c) => c & 31)];
}

type Bech32Decoded = { hrp: string; data: number[]; encoding: 'bech32' | 'bech32m' };

/** A bech32 or bech32m string's parts, or why it is none (BIP 173 "Bech32", BIP 350 "Bech32m"). */
export function decodeBech32(text: string): Bech32Decoded | string {
  if (text.length > 90) return 'is longer than 90 characters';
  if (text !== text.toLowerCase() && text !== text.toUpperCase()) return 'mixes upper and lower case';
  const lower = text.toLowerCase();
  for (const c of lower) {
    const code = c.charCodeAt(0);
    if (code < 33 || code > 126) return 'has a character outside printable ASCII';
  }
  const separator = lower.lastIndexOf('1');
  if (separator < 1 || separator + 7 > lower.length) return 'has no bech32 separator and checksum';
  const hrp = lower.slice(0, separator);
  const data: number[] = [];
  for (const c of lower.slice(separator + 1)) {
    const value = CHARSET.indexOf(c);
    if (value === -1) return `has '${c}', which bech32 does not use`;
    data.push(value);
  }
  const check = polymod([...hrpExpand(hrp), ...data]);
  const encoding = check === BECH32_CONST ? 'bech32' : check === BECH32M_CONST ? 'bech32m' : undefined;
  if (!encoding) return 'has a wrong checksum (a typo?)';
  return { hrp, data: data.slice(0, -6), encoding };
}

/** Regroups `bits`-bit values into `to`-bit values; undefined when padding is invalid (BIP 173 reference convertbits). */
function convertBits(data: number[], from: number, to: number): number[] | undefined {
  let acc = 0;
  let bits = 0;
  const out: number[] = [];
  const maxv = (1 << to) - 1;
  for (const value of data) {
    acc = (acc << from) | value;
    bits += from;
    while (bits >= to) {
      bits -= to;
      out.push((acc >> bits) & maxv);
    }
  }
  if (bits >= from || ((acc << (to - bits)) & maxv) !== 0) return undefined;
  return out;
}

function checkSegwit(text: string, network: AddressNetwork, decoded: Bech32Decoded): AddressCheck {
  const { hrp } = NETWORK_PREFIXES[network];
  if (decoded.hrp !== hrp) {
    const other = (Object.keys(NETWORK_PREFIXES) as AddressNetwork[]).filter((n) => NETWORK_PREFIXES[n].hrp === decoded.hrp);
    return { ok: false, reason: other.length > 0 ? `is a ${other.join('/')} address, not ${network}` : `starts with '${decoded.hrp}1', not '${hrp}1' as ${network} addresses do` };
  }
  const [version, ...words] = decoded.data;
  if (version === undefined || version > 16) return { ok: false, reason: 'has no valid witness version' };
  // BIP 350: version 0 uses bech32, versions 1 to 16 bech32m.
  if ((version === 0) !== (decoded.encoding === 'bech32')) return { ok: false, reason: `has a ${decoded.encoding} checksum, wrong for witness version ${version}` };
  const program = convertBits(words, 5, 8);
  if (!program) return { ok: false, reason: 'has invalid padding' };
  if (program.length < 2 || program.length > 40) return { ok: false, reason: `has a witness program of ${program.length} bytes (2 to 40 allowed)` };
  if (version === 0 && program.length !== 20 && program.length !== 32) return { ok: false, reason: `has a version 0 program of ${program.length} bytes (20 or 32 allowed)` };
  // BIP 141: OP_0 or OP_1..OP_16, then a push of the program. The node prints addresses in lower case.
  const opcode = version === 0 ? 0 : 0x50 + version;
  return { ok: true, address: text.toLowerCase(), scriptPubKey: Buffer.from([opcode, program.length, ...program]).toString('hex') };
}

// ---- base58check ----

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function decodeBase58(text: string): Buffer | string {
  let value = 0n;
  for (const c of text) {
    const digit = BASE58.indexOf(c);
    if (digit === -1) return `has '${c}', which is neither bech32 nor base58`;
    value = value * 58n + BigInt(digit);
  }
  const bytes: number[] = [];
  while (value > 0n) {
    bytes.unshift(Number(value & 0xffn));
    value >>= 8n;
  }
  // Each leading '1' is a leading zero byte.
  for (const c of text) {
    if (c !== '1') break;
    bytes.unshift(0);
  }
  return Buffer.from(bytes);
}

const sha256d = (data: Buffer) => createHash('sha256').update(createHash('sha256').update(data).digest()).digest();

function checkBase58(text: string, network: AddressNetwork): AddressCheck {
  if (text.length > 40) return { ok: false, reason: 'is too long for a legacy address' };
  const decoded = decodeBase58(text);
  if (typeof decoded === 'string') return { ok: false, reason: decoded };
  if (decoded.length !== 25) return { ok: false, reason: 'is not an address' };
  const payload = decoded.subarray(0, 21);
  if (!sha256d(payload).subarray(0, 4).equals(decoded.subarray(21))) return { ok: false, reason: 'has a wrong checksum (a typo?)' };
  const version = payload[0]!;
  const { p2pkh, p2sh } = NETWORK_PREFIXES[network];
  const hash = payload.subarray(1).toString('hex');
  // OP_DUP OP_HASH160 <20> OP_EQUALVERIFY OP_CHECKSIG, or OP_HASH160 <20> OP_EQUAL (BIP 16).
  if (version === p2pkh) return { ok: true, address: text, scriptPubKey: `76a914${hash}88ac` };
  if (version === p2sh) return { ok: true, address: text, scriptPubKey: `a914${hash}87` };
  const other = (Object.keys(NETWORK_PREFIXES) as AddressNetwork[]).filter((n) => NETWORK_PREFIXES[n].p2pkh === version || NETWORK_PREFIXES[n].p2sh === version);
  return { ok: false, reason: other.length > 0 ? `is a ${other.join('/')} address, not ${network}` : 'is not an address' };
}

/**
 * Whether `text` is an address of `network`, and its canonical form (bech32 in
 * lower case, as the node writes it), or why not, in words.
 */
export function checkAddress(text: string, network: AddressNetwork): AddressCheck {
  const decoded = decodeBech32(text);
  if (typeof decoded !== 'string') return checkSegwit(text, network, decoded);
  // Not bech32. A string with a '1' after a known prefix was meant as bech32: say what is wrong with it as such.
  const lower = text.toLowerCase();
  const meantBech32 = Object.values(NETWORK_PREFIXES).some((p) => lower.startsWith(`${p.hrp}1`));
  if (meantBech32) return { ok: false, reason: decoded };
  return checkBase58(text, network);
}

export function isAddressNetwork(network: string): network is AddressNetwork {
  return Object.hasOwn(NETWORK_PREFIXES, network);
}
