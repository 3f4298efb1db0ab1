// Value kinds: what one sample value looks like (`email`, `phone`, `card_number`, `date` …), the one value-format
// detector the classifier (its majority rule, src/modules/classifier/detectors.ts) and the embedder (its format
// signature, src/embeddings/format-signature.ts) both read.
// Library checks are used where a well-kept one exists (validator for e-mail, URL, IP, UUID, JWT, country and
// currency codes, card brands; libphonenumber-js for phone numbers; ibantools for IBAN checksums); the
// national-id check digits, card sequences and secret shapes below have no such library and are written here.
// Nothing in this file returns, logs or keeps a sample value: only the closed set of kind names below.
import validator from 'validator';
import { isValidIBAN } from 'ibantools';
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';

export type ValueKind =
  | 'email'
  | 'phone'
  | 'card_number'
  | 'iban'
  | 'ipv4'
  | 'ipv6'
  | 'mac_address'
  | 'uuid'
  | 'datetime'
  | 'date'
  | 'time'
  | 'us_ssn'
  | 'national_id'
  | 'url'
  | 'jwt'
  | 'api_key'
  | 'password_hash'
  | 'hex_hash'
  | 'coordinate'
  | 'coordinate_pair'
  | 'postal_code'
  | 'boolean'
  | 'gender_code'
  | 'country_code'
  | 'us_state'
  | 'currency_code'
  | 'language_code'
  | 'money'
  | 'integer'
  | 'decimal'
  | 'digits'
  | 'person_name'
  | 'word'
  | 'code'
  | 'free_text'
  | 'json'
  | 'time_zone'
  | 'file_path'
  | 'marital_status'
  | 'other';

/** Values that stand for no value: skipped by every summary of samples. */
export const NULLISH: ReadonlySet<string> = new Set([
  '',
  'null',
  'nil',
  'none',
  'n/a',
  'na',
  '\\n',
  '-',
  'undefined',
  'nan',
]);
const BOOLEAN = new Set(['true', 'false', 'yes', 'no', 'y', 'n', 't', 'f', 'on', 'off', '0', '1']);
const GENDER = new Set([
  'm',
  'f',
  'male',
  'female',
  'x',
  'u',
  'other',
  'unknown',
  'nonbinary',
  'non-binary',
  'diverse',
  'w',
  'd',
  'man',
  'woman',
  'h',
  'homme',
  'femme',
  'masculino',
  'femenino',
  'mannlich',
  'weiblich',
  'männlich',
  'divers',
]);
const US_STATES = new Set(
  (
    'AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC ' +
    'alabama alaska arizona arkansas california colorado connecticut delaware florida georgia hawaii idaho illinois indiana iowa kansas kentucky ' +
    'louisiana maine maryland massachusetts michigan minnesota mississippi missouri montana nebraska nevada ohio oklahoma oregon pennsylvania ' +
    'tennessee texas utah vermont virginia washington wisconsin wyoming'
  ).split(' '),
);
const US_STATE_TWO_WORDS =
  /^(?:new (?:hampshire|jersey|mexico|york)|north (?:carolina|dakota)|south (?:carolina|dakota)|west virginia|rhode island)$/i;
const LANGUAGE = /^[a-z]{2}(?:[-_][A-Za-z]{2})?$/;
const RE_DIGITS_SEP = /^\d[\d -]{10,22}\d$/;
const RE_SSN = /^(\d{3})-(\d{2})-(\d{4})$/;
const RE_ISO_DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s?(?:Z|[+-]\d{2}:?\d{2}|UTC)?$/i;
/** The time of day of a date-time is midnight (and, when an offset is written, UTC): the value is a date. */
const RE_MIDNIGHT = /[T ]0?0:00(?::00(?:\.0+)?)?\s?(?:Z|[+-]00:?00|UTC)?$/i;
const RE_DMY_TIME = /^\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}[ T]\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]m)?$/i;
const RE_DATE_YMD = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$/;
const RE_DATE_DMY = /^(\d{1,2})[-/.](\d{1,2})[-/.](\d{4}|\d{2})$/;
const RE_DATE_WORDS =
  /^(?:\d{1,2}\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+(?:\d{1,2},?\s+)?\d{4}$/i;
const RE_TIME = /^\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s?[ap]m)?$/i;
const RE_MAC = /^[0-9a-f]{2}(?:[:-][0-9a-f]{2}){5}$/i;
const RE_NANP_WRITTEN = /^\(\d{3}\) ?\d{3}-\d{4}$/;
const RE_HEX = /^[0-9a-f]+$/i;
// Modular crypt formats, each with its full shape: bcrypt, Argon2, and the $id$… family (MD5-crypt, SHA-crypt,
// scrypt, PBKDF2) with a salt and digest of realistic length.
const RE_CRYPT =
  /^(?:\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}|\$argon2(?:id|i|d)\$v=\d+\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+|\$(?:[156]|scrypt|pbkdf2[-_a-z0-9]*)\$\S{20,})$/i;
const RE_API_KEY_PREFIX =
  /^(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{10,}$|^AKIA[0-9A-Z]{16}$|^gh[pousr]_[A-Za-z0-9]{30,}$|^xox[abprs]-[A-Za-z0-9-]{10,}$|^AIza[0-9A-Za-z_-]{30,}$|^glpat-[A-Za-z0-9_-]{20}$|^sk-[A-Za-z0-9_-]{20,}$/;
const RE_TOKEN = /^[A-Za-z0-9+/=_.-]{24,}$/;
const RE_DECIMAL = /^[-+]?\d*[.,]\d+$/;
const RE_INTEGER = /^[-+]?\d+$/;
const RE_MONEY = /^(?:[$€£¥₹]\s?-?[\d,]+(?:\.\d+)?|-?[\d.,]+\s?(?:[$€£¥₹]|usd|eur|gbp|jpy|chf))$/i;
const RE_COORD_PAIR = /^\(?\s*-?\d{1,2}\.\d{3,}\s*[,; ]\s*-?\d{1,3}\.\d{3,}\s*\)?$/;
const RE_POSTAL =
  /^(?:\d{5}(?:-\d{4})?|[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}|[A-Z]\d[A-Z]\s?\d[A-Z]\d|\d{4}\s?[A-Z]{2}|\d{3}-\d{4}|\d{2}-\d{3})$/i;
const RE_PERSON_NAME =
  /^\p{Lu}[\p{Ll}'’-]+(?:\s\p{Lu}\.?)?(?:\s(?:van|von|de|der|da|del|la|le|di)\b)?(?:\s\p{Lu}[\p{Ll}'’-]+){1,2}$/u;
const RE_WORD = /^[\p{L}][\p{L}'’-]*$/u;
const RE_CODE = /^[A-Z0-9][A-Z0-9_.:/-]{0,19}$/i;
// Time zones: the IANA names this runtime knows (from its ICU data, so they follow tz releases), plus UTC/GMT and
// signed offsets written as offsets (`+02:00`, `UTC+5:30`); a bare `-5` is an integer, not evidence of a zone.
const TIME_ZONES: ReadonlySet<string> = new Set(
  [
    ...(typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : []),
    'UTC',
    'GMT',
    'Etc/UTC',
    'Etc/GMT',
  ].map((z) => z.toLowerCase()),
);
const RE_TZ_OFFSET = /^(?:[+-](?:0\d|1[0-4]):[0-5]\d|(?:utc|gmt)\s?[+-](?:0?\d|1[0-4])(?::?[0-5]\d)?)$/i;
// File paths: a name with a common file extension (optionally under folders), a storage URI, or a Windows drive or
// UNC path. Page paths without an extension (`/products/42`) are left alone: they are as often URL paths.
const FILE_EXTENSIONS: ReadonlySet<string> = new Set(
  (
    'pdf doc docx xls xlsx xlsm csv tsv txt rtf odt ods odp ppt pptx md json xml yaml yml ini log jpg jpeg png gif webp svg bmp tif tiff heic ' +
    'ico mp3 mp4 m4a mov avi mkv wav flac ogg webm zip gz tgz tar bz2 xz 7z rar parquet avro orc sql bak dat bin eml msg html htm css js ts py java'
  ).split(' '),
);
const RE_FILE_PATH =
  /^(?:[a-z]:[\\/]|\\\\|~?\/|\.{1,2}\/)?(?:[^\s\\/:*?"<>|]+[\\/])*[^\\/:*?"<>|]*[^\s\\/:*?"<>|.]\.([a-z0-9]{1,5})$/i;
const RE_EXT_TAIL = /\.[A-Za-z][A-Za-z0-9]{0,4}$/;
const RE_STORAGE_URI = /^(?:s3a?|gs|file|hdfs|abfss?|wasbs?|az):\/\/\S+$/i;
const RE_WINDOWS_PATH = /^(?:[a-z]:\\|\\\\[^\\]+\\)\S/i;
// Marital status words (English, German, French, Spanish, Portuguese, Dutch, Italian), compared without accents.
const MARITAL = new Set(
  (
    'single married divorced widowed separated widow widower unmarried engaged partnered ledig verheiratet geschieden verwitwet ' +
    'celibataire marie mariee divorce divorcee veuf veuve pacse soltero soltera casado casada divorciado divorciada viudo viuda ' +
    'solteiro solteira viuvo viuva ongehuwd gehuwd gescheiden weduwe weduwnaar celibe nubile coniugato coniugata divorziato vedovo vedova'
  ).split(' '),
);
const RE_MARITAL_PHRASE =
  /^(?:domestic partner(?:ship)?|civil partner(?:ship)?|registered partner(?:ship)?|never married|common[- ]law|living together|getrennt lebend|union libre|union civil|uniao estavel)$/i;

// Area/Location names the runtime lists under another spelling (`Asia/Kolkata` where ICU lists `Asia/Calcutta`).
const RE_TZ_NAME =
  /^(?:Africa|America|Antarctica|Arctic|Asia|Atlantic|Australia|Europe|Indian|Pacific|Etc|US|Canada|Brazil|Mexico|Chile)\/[A-Za-z0-9_+/-]{2,30}$/i;

/** An IANA time zone name (or alias) or a UTC offset written as one. */
export function isTimeZone(v: string): boolean {
  if (v.length > 40) return false;
  // Cheap gates first: every zone name but UTC/GMT has a slash; offsets start with a sign, UTC or GMT.
  if (!v.includes('/')) {
    if (v.length > 12) return false;
    const c = v.charCodeAt(0) | 0x20;
    if (c !== 0x2b && c !== 0x2d && c !== 0x75 && c !== 0x67) return false;
    return RE_TZ_OFFSET.test(v) || TIME_ZONES.has(v.toLowerCase());
  }
  if (TIME_ZONES.has(v.toLowerCase())) return true;
  if (!RE_TZ_NAME.test(v)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: v });
    return true;
  } catch {
    return false;
  }
}

/** A file name with a common extension, a storage URI, or a Windows drive or UNC path. */
export function isFilePath(v: string): boolean {
  if (v.length > 400 || v.length < 4) return false;
  if (RE_STORAGE_URI.test(v) || RE_WINDOWS_PATH.test(v)) return true;
  const m = RE_FILE_PATH.exec(v);
  return m !== null && FILE_EXTENSIONS.has((m[1] as string).toLowerCase());
}

/** A marital status word or phrase (several languages, accents ignored). */
export function isMaritalStatus(v: string): boolean {
  if (v.length > 25) return false;
  const lower = v.toLowerCase();
  if (MARITAL.has(lower)) return true;
  // Accents and the French `(e)` only when there are any: most samples are plain ASCII words that are not statuses.
  const plain = /[^\x20-\x7e]|\(e\)$/.test(lower)
    ? lower
        .normalize('NFD')
        .replace(/\p{M}/gu, '')
        .replace(/\(e\)$/, '')
    : lower;
  return MARITAL.has(plain) || RE_MARITAL_PHRASE.test(plain);
}

const RE_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Luhn (mod 10) over a digit string. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let dbl = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (dbl) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    dbl = !dbl;
  }
  return sum % 10 === 0;
}

/** Runs of one digit, ascending or descending steps, or a repeated block: test numbers, not real ones. */
export function isSequentialDigits(digits: string): boolean {
  if (/^(\d)\1+$/.test(digits)) return true;
  let asc = 0;
  let desc = 0;
  for (let i = 1; i < digits.length; i++) {
    const a = digits.charCodeAt(i - 1);
    const b = digits.charCodeAt(i);
    if ((b - a + 10) % 10 === 1) asc++;
    if ((a - b + 10) % 10 === 1) desc++;
  }
  if (asc >= digits.length * 0.7 || desc >= digits.length * 0.7) return true;
  for (const block of [2, 4, 8]) {
    if (
      digits.length % block === 0 &&
      digits.length > block &&
      digits.slice(0, block).repeat(digits.length / block) === digits
    )
      return true;
  }
  return false;
}

// Issuer identification ranges of the major card networks with their lengths.
function cardBrandFits(d: string): boolean {
  const n = d.length;
  const p2 = Number(d.slice(0, 2));
  const p3 = Number(d.slice(0, 3));
  const p4 = Number(d.slice(0, 4));
  const p6 = Number(d.slice(0, 6));
  if (d[0] === '4') return n === 13 || n === 16 || n === 19; // Visa
  if ((p2 >= 51 && p2 <= 55) || (p4 >= 2221 && p4 <= 2720)) return n === 16; // Mastercard
  if (p2 === 34 || p2 === 37) return n === 15; // American Express
  if (p4 === 6011 || p2 === 65 || (p3 >= 644 && p3 <= 649) || (p6 >= 622126 && p6 <= 622925)) return n >= 16 && n <= 19; // Discover
  if (p4 >= 3528 && p4 <= 3589) return n >= 16 && n <= 19; // JCB
  if (p2 === 36 || p2 === 38 || p2 === 39 || (p3 >= 300 && p3 <= 305) || p3 === 309) return n >= 14 && n <= 19; // Diners
  if (p2 === 62) return n >= 16 && n <= 19; // UnionPay
  if (p2 === 50 || (p2 >= 56 && p2 <= 69)) return n >= 12 && n <= 19; // Maestro
  return false;
}

/** A payment card number: 12–19 digits (spaces or dashes allowed), known brand range and length, Luhn, not a test sequence. */
export function isCardNumber(v: string): boolean {
  if (!RE_DIGITS_SEP.test(v) && !/^\d{12,19}$/.test(v)) return false;
  const d = v.replace(/[ -]/g, '');
  if (d.length < 12 || d.length > 19) return false;
  return cardBrandFits(d) && luhnValid(d) && !isSequentialDigits(d);
}

/** A US social security number in its printed shape: area not 000, 666 or 9xx; group not 00; serial not 0000. */
export function isUsSsn(v: string): boolean {
  const m = RE_SSN.exec(v);
  if (!m) return false;
  const area = m[1] as string;
  return area !== '000' && area !== '666' && area[0] !== '9' && m[2] !== '00' && m[3] !== '0000';
}

/** An IBAN (spaces allowed) whose country length and mod-97 checksum are right. */
export function isIban(v: string): boolean {
  if (v.length < 15 || v.length > 42 || !/^[A-Za-z]{2}\d{2}/.test(v)) return false;
  return isValidIBAN(v.replace(/\s+/g, '').toUpperCase());
}

function mod11Weighted(digits: string, weights: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < weights.length; i++) s += (digits.charCodeAt(i) - 48) * (weights[i] as number);
  return s % 11;
}

/** Dutch BSN: 9 digits, "elfproef" with the last weight −1. */
export function isDutchBsn(d: string): boolean {
  if (!/^\d{9}$/.test(d) || d === '000000000') return false;
  let s = 0;
  for (let i = 0; i < 8; i++) s += (d.charCodeAt(i) - 48) * (9 - i);
  s -= d.charCodeAt(8) - 48;
  return s % 11 === 0;
}

/** Brazilian CPF: 11 digits (dots and dash allowed), two mod-11 check digits, not all one digit. */
export function isBrazilCpf(v: string): boolean {
  if (!/^\d{3}\.?\d{3}\.?\d{3}-?\d{2}$/.test(v)) return false;
  const d = v.replace(/\D/g, '');
  if (/^(\d)\1{10}$/.test(d)) return false;
  const check = (len: number): number => {
    let s = 0;
    for (let i = 0; i < len; i++) s += (d.charCodeAt(i) - 48) * (len + 1 - i);
    const r = (s * 10) % 11;
    return r === 10 ? 0 : r;
  };
  return check(9) === d.charCodeAt(9) - 48 && check(10) === d.charCodeAt(10) - 48;
}

/** Spanish DNI/NIE: 8 digits (NIE: X/Y/Z + 7) and the mod-23 control letter. */
export function isSpanishDni(v: string): boolean {
  const m = /^([XYZ]?)(\d{7,8})-?([A-Z])$/i.exec(v);
  if (!m) return false;
  const prefix = { '': '', X: '0', Y: '1', Z: '2' }[(m[1] as string).toUpperCase()] ?? '';
  const num = prefix + (m[2] as string);
  if (num.length !== 8) return false;
  return 'TRWAGMYFPDXBNJZSQVHLCKE'[Number(num) % 23] === (m[3] as string).toUpperCase();
}

/** French NIR (numéro de sécurité sociale): 13 digits + 2-digit key = 97 − (n mod 97); Corsica 2A/2B handled. */
export function isFrenchNir(v: string): boolean {
  const c = v.replace(/\s+/g, '').toUpperCase();
  if (!/^[12]\d{2}(?:0[1-9]|1[0-2]|[2-9]\d)(?:\d{2}|2A|2B)\d{6}\d{2}$/.test(c)) return false;
  const body = c.slice(0, 13).replace('2A', '19').replace('2B', '18');
  const key = Number(c.slice(13));
  return 97 - Number(BigInt(body) % 97n) === key;
}

/** UK National Insurance number: two prefix letters (excluding the invalid ones), six digits, suffix A–D. */
export function isUkNino(v: string): boolean {
  const c = v.replace(/\s+/g, '').toUpperCase();
  if (!/^(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]\d{6}[A-D]$/.test(c)) return false;
  return true;
}

/** Canadian SIN: 9 digits (spaces or dashes), Luhn, first digit not 0 or 8. */
export function isCanadianSin(v: string): boolean {
  if (!/^\d{3}[ -]?\d{3}[ -]?\d{3}$/.test(v)) return false;
  const d = v.replace(/\D/g, '');
  return d[0] !== '0' && d[0] !== '8' && luhnValid(d) && !isSequentialDigits(d);
}

/** German tax id (Steuer-IdNr.): 11 digits, ISO 7064 MOD 11,10 check digit. */
export function isGermanTaxId(d: string): boolean {
  if (!/^[1-9]\d{10}$/.test(d)) return false;
  let product = 10;
  for (let i = 0; i < 10; i++) {
    let sum = (d.charCodeAt(i) - 48 + product) % 10;
    if (sum === 0) sum = 10;
    product = (sum * 2) % 11;
  }
  const check = (11 - product) % 10;
  return check === d.charCodeAt(10) - 48;
}

/** Portuguese NIF: 9 digits, mod-11 check digit. */
export function isPortugueseNif(d: string): boolean {
  if (!/^[1235689]\d{8}$/.test(d)) return false;
  const r = mod11Weighted(d, [9, 8, 7, 6, 5, 4, 3, 2]);
  const check = r < 2 ? 0 : 11 - r;
  return check === d.charCodeAt(8) - 48;
}

function isNationalId(v: string): boolean {
  const c = v.replace(/\s+/g, '');
  if (/^[A-Za-z]/.test(c)) return isUkNino(c) || isSpanishDni(c);
  if (isBrazilCpf(v) || isSpanishDni(c) || isFrenchNir(c)) return true;
  // Bare 9-digit strings pass some check by chance too often to count on their own.
  if (/^\d{3}[ -]\d{3}[ -]\d{3}$/.test(v)) return isCanadianSin(v);
  return false;
}

function validDate(y: number, m: number, d: number): boolean {
  return m >= 1 && m <= 12 && d >= 1 && d <= 31 && y >= 1800 && y <= 2200;
}

function isDate(v: string): boolean {
  const ymd = RE_DATE_YMD.exec(v);
  if (ymd) return validDate(Number(ymd[1]), Number(ymd[2]), Number(ymd[3]));
  const dmy = RE_DATE_DMY.exec(v);
  if (dmy) {
    const y = (dmy[3] as string).length === 2 ? 1900 + Number(dmy[3]) : Number(dmy[3]);
    return validDate(y, Number(dmy[2]), Number(dmy[1])) || validDate(y, Number(dmy[1]), Number(dmy[2]));
  }
  return RE_DATE_WORDS.test(v);
}

function looksLikeSecret(v: string): boolean {
  if (v.length < 24 || v.length > 200 || !RE_TOKEN.test(v)) return false;
  let lower = 0;
  let upper = 0;
  let digit = 0;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c >= 97 && c <= 122) lower++;
    else if (c >= 65 && c <= 90) upper++;
    else if (c >= 48 && c <= 57) digit++;
  }
  // Random keys mix cases and digits; a long slug or sentence-in-one-word does not.
  return digit >= 2 && lower >= 2 && upper >= 2;
}

function isPhone(v: string): boolean {
  // Only values written like phone numbers: a leading + or 00, or digits grouped with spaces, dots, dashes or
  // brackets. A bare digit run is far more often an id or an amount.
  if (!/^(?:\+|00|\()?[\d\s().-]{6,22}$/.test(v)) return false;
  const plus = v.startsWith('+') || v.startsWith('00');
  if (!plus && !/[\s().-]/.test(v)) return false;
  const digits = v.replace(/\D/g, '').length;
  if (digits < 7 || digits > 15) return false;
  // `(415) 555-2671`: written the North American way, a number is a phone number whatever its area code (the
  // fictional 555 numbers of demos and test data are not valid in any plan, yet a column of them holds phones).
  if (RE_NANP_WRITTEN.test(v)) return true;
  const parsed = plus
    ? parsePhoneNumberFromString(v.startsWith('00') ? `+${v.slice(2)}` : v)
    : parsePhoneNumberFromString(v, 'US');
  if (parsed?.isValid()) return true;
  if (plus) return false;
  // National formats of other countries (leading trunk 0): accept when the number is possible in some common plan.
  if (v.startsWith('0')) {
    for (const cc of ['GB', 'DE', 'FR', 'NL', 'ES', 'IT', 'AU', 'BR', 'IN'] as const) {
      if (parsePhoneNumberFromString(v, cc)?.isValid()) return true;
    }
  }
  return false;
}

/** The kind of one trimmed, non-null sample value. Most specific checks first. */
export function detectValueKind(v: string): ValueKind {
  const first = v.charCodeAt(0);
  const lower = v.toLowerCase();
  if (v.length <= 11 && GENDER.has(lower) && !/^[01]$/.test(v)) {
    if (BOOLEAN.has(lower) && lower !== 'f' && lower !== 'm') return 'boolean';
    return 'gender_code';
  }
  if (BOOLEAN.has(lower)) return 'boolean';
  if (v.includes('@') && !v.includes(' ') && validator.isEmail(v)) return 'email';
  if (v.length === 36 && RE_UUID.test(v)) return 'uuid';
  if (v.startsWith('eyJ') && validator.isJWT(v)) return 'jwt';
  if (first === 36 /* $ */ && RE_CRYPT.test(v)) return 'password_hash';
  if (/^(?:https?|ftp):\/\/|^www\./i.test(v) && validator.isURL(v)) return 'url';
  if (isTimeZone(v)) return 'time_zone';
  if ((RE_EXT_TAIL.test(v) || v.includes('\\') || v.includes('://')) && isFilePath(v)) return 'file_path';
  if (v.includes(':') || v.includes('.')) {
    if (v.length <= 45 && validator.isIP(v, 4)) return 'ipv4';
    if (v.length <= 45 && v.includes(':') && validator.isIP(v, 6)) return 'ipv6';
  }
  if (v.length === 17 && RE_MAC.test(v)) return 'mac_address';
  // A date kept in a date-time column (`1962-02-18 00:00:00`, as SQLite and MySQL `datetime` hold birth dates) is a date.
  if (RE_ISO_DATETIME.test(v) || RE_DMY_TIME.test(v)) return RE_MIDNIGHT.test(v) ? 'date' : 'datetime';
  if (isDate(v)) return 'date';
  if (RE_TIME.test(v)) return 'time';
  if (isUsSsn(v)) return 'us_ssn';
  if (/^[A-Za-z]{2}\d{2}/.test(v) && isIban(v)) return 'iban';
  if (first >= 48 && first <= 57 && isCardNumber(v)) return 'card_number';
  if (isNationalId(v)) return 'national_id';
  if (RE_COORD_PAIR.test(v)) return 'coordinate_pair';
  if (RE_API_KEY_PREFIX.test(v)) return 'api_key';
  if (
    (v.length === 32 || v.length === 40 || v.length === 64 || v.length === 128) &&
    RE_HEX.test(v) &&
    !RE_INTEGER.test(v)
  )
    return 'hex_hash';
  if (isPhone(v)) return 'phone';
  if (RE_MONEY.test(v)) return 'money';
  if (RE_DECIMAL.test(v)) {
    return /^[-+]?\d{1,3}\.\d{4,}$/.test(v) && Math.abs(Number(v)) <= 180 ? 'coordinate' : 'decimal';
  }
  if (RE_INTEGER.test(v)) {
    const digits = v.replace(/^[-+]/, '');
    return digits.length > 1 && digits.startsWith('0') ? 'digits' : digits.length >= 9 ? 'digits' : 'integer';
  }
  if (RE_POSTAL.test(v) && /[A-Za-z\s-]/.test(v)) return 'postal_code';
  // A two-letter US state code is read as a state even where it is also a country code (DE, CA, IN).
  if (v.length === 2 && US_STATES.has(v)) return 'us_state';
  if (v.length === 2 && /^[A-Z]{2}$/.test(v) && validator.isISO31661Alpha2(v)) return 'country_code';
  if (v.length <= 14 && (US_STATES.has(lower) || US_STATE_TWO_WORDS.test(v))) return 'us_state';
  if (v.length === 3 && /^[A-Z]{3}$/.test(v)) {
    if (validator.isISO4217(v)) return 'currency_code';
    if (validator.isISO31661Alpha3(v)) return 'country_code';
  }
  if (v.length <= 5 && LANGUAGE.test(v) && validator.isLocale(v)) return 'language_code';
  if (looksLikeSecret(v)) return 'api_key';
  if ((first === 123 || first === 91) && /[}\]]$/.test(v)) return 'json';
  if (v.length <= 25 && isMaritalStatus(v)) return 'marital_status';
  if (v.length <= 40 && RE_PERSON_NAME.test(v)) return 'person_name';
  if (v.length <= 30 && RE_WORD.test(v)) return 'word';
  if (v.length <= 20 && RE_CODE.test(v)) return 'code';
  if (v.length > 25 && v.includes(' ')) return 'free_text';
  return 'other';
}
