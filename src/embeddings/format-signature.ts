// Describes the formats of a field's sample values with a few fixed tokens (`email`, `card_number`, …)
// so that embeddings can use what the data looks like without ever seeing the values themselves.
// Each value is read by the shared detector (src/text/value-kinds.ts, the classifier's too) and its kind put in
// one of the coarser classes below; the output is built only from these class names, never from sample text.
import { detectValueKind, NULLISH, type ValueKind } from '../text/value-kinds.js';

/** Format classes, most specific first, with the plain words the embedder uses for each. */
export const FORMAT_CLASS_WORDS = {
  empty: 'empty',
  boolean: 'boolean flag',
  uuid: 'unique id',
  email: 'email address',
  url: 'url web link',
  ipv4: 'ip address',
  ipv6: 'ip address',
  mac_address: 'hardware address',
  iban: 'bank account number',
  card_number: 'credit card number',
  national_id: 'national id number',
  datetime: 'date time',
  date: 'date',
  time: 'time',
  phone: 'phone number',
  postal_code: 'postal code',
  money: 'money amount',
  decimal: 'decimal number',
  integer: 'integer number',
  numeric_code: 'numeric code',
  hash: 'hash',
  json: 'json document',
  token: 'token',
  short_code: 'code',
  short_text: 'text',
  free_text: 'text sentence',
} as const;

export type FormatClass = keyof typeof FORMAT_CLASS_WORDS;

/** Every word `formatSignatureWords` can return (the vector file must contain them). */
export const FORMAT_SIGNATURE_WORDS: readonly string[] = [
  ...new Set(Object.values(FORMAT_CLASS_WORDS).join(' ').split(' ')),
];

const MAX_SAMPLES = 1000;
const MIN_SHARE = 0.2;
const MAX_CLASSES = 3;

/** The format class of each value kind of the shared detector: the embedder's coarser vocabulary. */
const CLASS_OF_KIND: Readonly<Record<ValueKind, FormatClass>> = {
  email: 'email',
  phone: 'phone',
  card_number: 'card_number',
  iban: 'iban',
  ipv4: 'ipv4',
  ipv6: 'ipv6',
  mac_address: 'mac_address',
  uuid: 'uuid',
  datetime: 'datetime',
  date: 'date',
  time: 'time',
  us_ssn: 'national_id',
  national_id: 'national_id',
  url: 'url',
  jwt: 'token',
  api_key: 'token',
  password_hash: 'hash',
  hex_hash: 'hash',
  coordinate: 'decimal',
  coordinate_pair: 'decimal',
  postal_code: 'postal_code',
  boolean: 'boolean',
  gender_code: 'short_code',
  country_code: 'short_code',
  us_state: 'short_code',
  currency_code: 'short_code',
  language_code: 'short_code',
  money: 'money',
  integer: 'integer',
  decimal: 'decimal',
  digits: 'numeric_code',
  person_name: 'short_text',
  word: 'short_text',
  code: 'short_code',
  free_text: 'free_text',
  json: 'json',
  time_zone: 'short_code',
  file_path: 'free_text',
  marital_status: 'short_text',
  other: 'free_text',
};

/** Classify one trimmed, non-empty sample value. */
export function classifySample(v: string): FormatClass {
  // A lone 0 or 1 among other numbers is a number; a column of only 0 and 1 is a flag (see formatSignature).
  if (v === '0' || v === '1') return 'integer';
  return CLASS_OF_KIND[detectValueKind(v)];
}

/**
 * Short, stable description of the dominant formats of sample values, e.g. `email` or `date integer`;
 * null when there are no samples. Never contains sample text.
 */
export function formatSignature(samples: readonly string[]): string | null {
  if (samples.length === 0) return null;
  const counts = new Map<FormatClass, number>();
  let nonEmpty = 0;
  let allBinaryDigits = true;
  const n = Math.min(samples.length, MAX_SAMPLES);
  for (let i = 0; i < n; i++) {
    const raw = samples[i];
    const v = typeof raw === 'string' ? raw.trim() : '';
    if (NULLISH.has(v.toLowerCase())) continue;
    nonEmpty++;
    if (v !== '0' && v !== '1') allBinaryDigits = false;
    const c = classifySample(v);
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  if (nonEmpty === 0) return 'empty';
  // A column holding only 0 and 1 is a flag, not a quantity.
  if (allBinaryDigits) return 'boolean';
  const ranked = [...counts.entries()]
    .filter(([, c]) => c / nonEmpty >= MIN_SHARE)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_CLASSES)
    .map(([k]) => k);
  // Many classes and none dominant: the values are heterogeneous text.
  return ranked.length > 0 ? ranked.join(' ') : 'free_text';
}

/** Plain words describing a signature produced by `formatSignature`, for the embedder. */
export function formatSignatureWords(signature: string): string[] {
  const out: string[] = [];
  for (const cls of signature.split(/\s+/)) {
    const words = (FORMAT_CLASS_WORDS as Record<string, string>)[cls];
    if (words !== undefined) for (const w of words.split(' ')) if (!out.includes(w)) out.push(w);
  }
  return out;
}
