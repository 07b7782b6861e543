import { randomInt } from 'node:crypto';

/**
 * Client codes are made by the server, never typed by staff: a code is what a
 * stranger presents to get a discount, so it must not be guessable from
 * another code, a client name or a sequence.
 *
 * Ten symbols drawn uniformly (crypto.randomInt, no modulo bias) from 31
 * letters and digits that cannot be misread for one another when a code is
 * read out or copied by hand: no 0/O, no 1/I/L. That is 31^10 ≈ 8.2e14 codes
 * (49.5 bits), so guessing one among even a million issued codes takes about
 * 8e8 tries on average, far beyond what the public rate limit lets through.
 */
export const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const CODE_LENGTH = 10;
export const CODE_PATTERN = new RegExp(`^[${CODE_ALPHABET}]{${CODE_LENGTH}}$`);

export type CodeGenerator = () => string;

export const generateClientCode: CodeGenerator = () => {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
};
