// Describes the formats of a field's sample values with a few fixed tokens (`email`, `card_number`, …)
// so that embeddings can use what the data looks like without ever seeing the values themselves.
// The output is built only from the closed set of class names below, never from sample text.

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
export const FORMAT_SIGNATURE_WORDS: readonly string[] = [...new Set(Object.values(FORMAT_CLASS_WORDS).join(' ').split(' '))];

const MAX_SAMPLES = 1000;
const MIN_SHARE = 0.2;
const MAX_CLASSES = 3;
const NULLISH = new Set(['', 'null', 'nil', 'none', 'n/a', 'na', '\\n', '-']);
const BOOLEAN = new Set(['true', 'false', 'yes', 'no', 'y', 'n', 't', 'f', 'on', 'off']);

// Canonical dashed form only: 32 bare hex digits are more often an MD5 hash.
const RE_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RE_EMAIL = /^[^\s@]+@[^\s@]+\.[a-z]{2,}$/i;
const RE_URL = /^(?:(?:https?|ftp):\/\/|www\.)[^\s]+$/i;
const RE_IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const RE_IPV6 = /^(?=.*:.*:)[0-9a-f:]{2,39}$/i;
const RE_MAC = /^[0-9a-f]{2}(?:[:-][0-9a-f]{2}){5}$/i;
const RE_IBAN = /^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/;
const RE_CARD = /^\d(?:[ -]?\d){12,18}$/;
const RE_ISO_DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$/i;
const RE_DATE_YMD = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$/;
const RE_DATE_DMY = /^(\d{1,2})[-/.](\d{1,2})[-/.](\d{4}|\d{2})$/;
const RE_DATE_COMPACT = /^(19|20)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])$/;
const RE_DATE_WORDS = /^(?:\d{1,2}\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+(?:\d{1,2},?\s+)?\d{4}$/i;
const RE_DMY_TIME = /^\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}[ T]\d{1,2}:\d{2}(?::\d{2})?$/;
const RE_TIME = /^\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s?[ap]m)?$/i;
const RE_PHONE = /^\+?[\d\s().-]{7,22}$/;
const RE_POSTAL = /^(?:\d{5}-\d{4}|[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}|[A-Z]\d[A-Z]\s?\d[A-Z]\d|\d{4}\s?[A-Z]{2}|\d{3}-\d{4})$/i;
const RE_MONEY = /^(?:[$€£¥₹]\s?-?[\d,]+(?:\.\d+)?|-?[\d,]+(?:\.\d+)?\s?(?:[$€£¥₹]|usd|eur|gbp|jpy|chf|cny))$/i;
const RE_DECIMAL = /^[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)?[.,]\d+$/;
const RE_INTEGER = /^[-+]?\d+$/;
const RE_HEX_HASH = /^(?:[0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{64}|[0-9a-f]{128})$/i;
const RE_BCRYPT = /^\$2[aby]?\$\d{2}\$[./A-Za-z0-9]{53}$/;
const RE_TOKEN = /^[A-Za-z0-9+/=_-]{20,}$/;
const RE_CODE = /^[A-Z0-9][A-Z0-9_.-]{0,15}$/;
const RE_SHORT_TEXT = /^[\p{L}][\p{L}'’.-]*(?:\s[\p{L}][\p{L}'’.-]*){0,3}$/u;

/** Luhn checksum, as used by payment card numbers. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

function passesIbanChecksum(iban: string): boolean {
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rem = 0;
  for (const ch of moved) {
    const code = ch.charCodeAt(0);
    const val = code >= 65 ? String(code - 55) : ch;
    for (const c of val) rem = (rem * 10 + (c.charCodeAt(0) - 48)) % 97;
  }
  return rem === 1;
}

function validDate(y: number, m: number, d: number): boolean {
  return m >= 1 && m <= 12 && d >= 1 && d <= 31 && y >= 0;
}

function isJson(v: string): boolean {
  if (!((v.startsWith('{') && v.endsWith('}')) || (v.startsWith('[') && v.endsWith(']')))) return false;
  try {
    JSON.parse(v);
    return true;
  } catch {
    return false;
  }
}

/** Classify one trimmed, non-empty sample value. */
export function classifySample(v: string): FormatClass {
  const lower = v.toLowerCase();
  if (BOOLEAN.has(lower)) return 'boolean';
  if (RE_UUID.test(v)) return 'uuid';
  if (RE_EMAIL.test(v)) return 'email';
  if (RE_URL.test(v)) return 'url';
  const ip = RE_IPV4.exec(v);
  if (ip && ip.slice(1).every((o) => Number(o) <= 255)) return 'ipv4';
  if (RE_MAC.test(v)) return 'mac_address';
  if (RE_IPV6.test(v) && !RE_TIME.test(v)) return 'ipv6';
  const compact = v.replace(/\s+/g, '').toUpperCase();
  if (RE_IBAN.test(compact) && passesIbanChecksum(compact)) return 'iban';
  if (RE_CARD.test(v)) {
    const digits = v.replace(/[ -]/g, '');
    if (digits.length >= 13 && /^[2-6]/.test(digits) && passesLuhn(digits)) return 'card_number';
  }
  if (RE_ISO_DATETIME.test(v) || RE_DMY_TIME.test(v)) return 'datetime';
  const ymd = RE_DATE_YMD.exec(v);
  if (ymd && validDate(Number(ymd[1]), Number(ymd[2]), Number(ymd[3]))) return 'date';
  const dmy = RE_DATE_DMY.exec(v);
  if (dmy && (validDate(0, Number(dmy[2]), Number(dmy[1])) || validDate(0, Number(dmy[1]), Number(dmy[2])))) return 'date';
  if (RE_DATE_COMPACT.test(v) || RE_DATE_WORDS.test(v)) return 'date';
  if (RE_TIME.test(v)) return 'time';
  if (RE_POSTAL.test(v) && /[A-Za-z -]/.test(v)) return 'postal_code';
  if (RE_MONEY.test(v)) return 'money';
  if (RE_DECIMAL.test(v)) return 'decimal';
  if (v.startsWith('+') && RE_PHONE.test(v)) {
    const digitCount = v.replace(/\D/g, '').length;
    if (digitCount >= 7 && digitCount <= 15) return 'phone';
  }
  if (RE_INTEGER.test(v)) {
    const digits = v.replace(/^[-+]/, '');
    // Leading zeros or very long digit strings are identifiers/codes rather than quantities.
    return (digits.length > 1 && digits.startsWith('0')) || digits.length > 15 ? 'numeric_code' : 'integer';
  }
  if (RE_PHONE.test(v)) {
    const digitCount = v.replace(/\D/g, '').length;
    if (digitCount >= 7 && digitCount <= 15) return 'phone';
  }
  if (RE_HEX_HASH.test(v) || RE_BCRYPT.test(v)) return 'hash';
  if (isJson(v)) return 'json';
  if (RE_CODE.test(v) && v.length <= 16) return 'short_code';
  if (RE_TOKEN.test(v) && /\d/.test(v) && /[A-Za-z]/.test(v)) return 'token';
  if (v.length <= 40 && RE_SHORT_TEXT.test(v)) return 'short_text';
  return 'free_text';
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
