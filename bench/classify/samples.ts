// Seeded synthetic sample values for the own labelled set (bench/classify/own-set.txt names a generator per
// field). Synthetic on purpose: no real person's data. Card numbers, IBANs and national ids are built with valid
// check digits so the detectors see what a real column holds.
import { mulberry32 } from '../support/random.js';

type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const digits = (r: Rng, n: number): string => Array.from({ length: n }, () => Math.floor(r() * 10)).join('');
const pad = (n: number, w: number): string => String(n).padStart(w, '0');

const FIRST = [
  'Anna',
  'Jonas',
  'Maria',
  'Pierre',
  'Lucia',
  'Sven',
  'Aiko',
  'Omar',
  'Ingrid',
  'Tomás',
  'Chloé',
  'Femke',
  'João',
  'Priya',
  'Liam',
];
const LAST = [
  'Schmidt',
  'Dupont',
  'García',
  'de Vries',
  'Silva',
  'Okafor',
  'Nakamura',
  'Larsen',
  'Rossi',
  'Novak',
  'Byrne',
  'Kowalski',
];
const CITIES = ['Berlin', 'Lyon', 'Sevilla', 'Utrecht', 'Porto', 'Leeds', 'Austin', 'Osaka', 'Graz', 'Gent'];
const COUNTRIES = ['Germany', 'France', 'Spain', 'Netherlands', 'Portugal', 'United Kingdom', 'Japan'];
const STREETS = [
  'Hauptstraße',
  'Rue de la Paix',
  'Calle Mayor',
  'Kerkstraat',
  'Rua Augusta',
  'High Street',
  'Elm Street',
];
const WORDS = ['alpha', 'bravo', 'delta', 'orbit', 'maple', 'cedar', 'falcon', 'harbor', 'summit', 'quartz'];
const STATUS = ['active', 'pending', 'closed', 'cancelled', 'shipped', 'failed'];

function luhnComplete(prefix: string, len: number, r: Rng): string {
  let body = prefix + digits(r, len - prefix.length - 1);
  for (let c = 0; c < 10; c++) {
    const cand = body + c;
    let sum = 0;
    let dbl = false;
    for (let i = cand.length - 1; i >= 0; i--) {
      let d = Number(cand[i]);
      if (dbl) {
        d *= 2;
        if (d > 9) d -= 9;
      }
      sum += d;
      dbl = !dbl;
    }
    if (sum % 10 === 0) return cand;
  }
  body = '';
  return body;
}

function iban(r: Rng): string {
  const bban = digits(r, 18);
  const country = 'DE';
  const rearranged = bban + '1314' + '00';
  const check = 98 - Number(BigInt(rearranged) % 97n);
  return `${country}${pad(check, 2)}${bban}`;
}

function ssn(r: Rng): string {
  return `${100 + Math.floor(r() * 560)}-${pad(1 + Math.floor(r() * 98), 2)}-${pad(1 + Math.floor(r() * 9998), 4)}`;
}

function date(r: Rng, y0: number, y1: number): string {
  return `${y0 + Math.floor(r() * (y1 - y0))}-${pad(1 + Math.floor(r() * 12), 2)}-${pad(1 + Math.floor(r() * 28), 2)}`;
}

function bsn(r: Rng): string {
  for (;;) {
    const d = digits(r, 8);
    let s = 0;
    for (let i = 0; i < 8; i++) s += Number(d[i]) * (9 - i);
    const last = s % 11;
    if (last <= 9) return d + String(last);
  }
}

const hex = (r: Rng, n: number): string =>
  Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(r() * 16)]).join('');
const b64 = (r: Rng, n: number): string =>
  Array.from(
    { length: n },
    () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(r() * 62)],
  ).join('');

export const GENERATORS: Readonly<Record<string, (r: Rng) => string>> = {
  email: (r) =>
    `${pick(r, FIRST)
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z]/g, '')}.${pick(r, WORDS)}@example.${pick(r, ['com', 'de', 'fr', 'org'])}`,
  phone_us: (r) => `(${200 + Math.floor(r() * 700)}) ${200 + Math.floor(r() * 700)}-${digits(r, 4)}`,
  phone_intl: (r) =>
    pick(r, [
      `+49 30 ${digits(r, 7)}`,
      `+33 6 ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)}`,
      `+34 6${digits(r, 2)} ${digits(r, 3)} ${digits(r, 3)}`,
      `+31 6 ${digits(r, 8)}`,
      `+44 7700 ${digits(r, 6)}`,
    ]),
  card: (r) => luhnComplete(pick(r, ['4', '51', '52', '55', '37']), 16, r),
  card_spaced: (r) => luhnComplete('4', 16, r).replace(/(\d{4})(?=\d)/g, '$1 '),
  iban: iban,
  ssn: ssn,
  bsn: bsn,
  uuid: (r) => `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-a${hex(r, 3)}-${hex(r, 12)}`,
  ts: (r) =>
    `${date(r, 2019, 2026)}T${pad(Math.floor(r() * 24), 2)}:${pad(Math.floor(r() * 60), 2)}:${pad(Math.floor(r() * 60), 2)}Z`,
  epoch_ms: (r) => String(1_600_000_000_000 + Math.floor(r() * 100_000_000_000)),
  date: (r) => date(r, 2015, 2026),
  dob: (r) => date(r, 1940, 2006),
  int: (r) => String(Math.floor(r() * 500)),
  id: (r) => String(1000 + Math.floor(r() * 900000)),
  bool: (r) => pick(r, ['true', 'false']),
  yn: (r) => pick(r, ['Y', 'N']),
  bit: (r) => pick(r, ['0', '1']),
  gender: (r) => pick(r, ['M', 'F', 'F', 'M', 'X']),
  full_name: (r) => `${pick(r, FIRST)} ${pick(r, LAST)}`,
  first: (r) => pick(r, FIRST),
  last: (r) => pick(r, LAST),
  city: (r) => pick(r, CITIES),
  country: (r) => pick(r, COUNTRIES),
  cc2: (r) => pick(r, ['DE', 'FR', 'ES', 'NL', 'PT', 'GB', 'US', 'JP']),
  ccy: (r) => pick(r, ['EUR', 'USD', 'GBP', 'JPY', 'CHF']),
  lang: (r) => pick(r, ['en', 'de', 'fr-FR', 'es', 'nl-NL', 'pt-BR']),
  street: (r) => `${pick(r, STREETS)} ${1 + Math.floor(r() * 200)}`,
  zip: (r) =>
    pick(r, [digits(r, 5), `${digits(r, 4)} ${pick(r, ['AB', 'KL', 'XZ'])}`, `SW1A ${Math.floor(r() * 9)}AA`]),
  ip4: (r) =>
    `${10 + Math.floor(r() * 200)}.${Math.floor(r() * 255)}.${Math.floor(r() * 255)}.${1 + Math.floor(r() * 250)}`,
  ip6: (r) => `2001:db8:${hex(r, 4)}:${hex(r, 4)}::${hex(r, 3)}`,
  url: (r) => `https://www.example.com/${pick(r, WORDS)}/${Math.floor(r() * 999)}`,
  jwt: (r) => `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx${b64(r, 20)}.${b64(r, 43)}`,
  apikey: (r) => `sk_live_${b64(r, 24)}`,
  bcrypt: (r) => `$2b$12$${b64(r, 53)}`,
  md5: (r) => hex(r, 32),
  sha256: (r) => hex(r, 64),
  lat: (r) => (r() * 140 - 70).toFixed(6),
  lon: (r) => (r() * 340 - 170).toFixed(6),
  money: (r) => (r() * 900 + 1).toFixed(2),
  dec: (r) => (r() * 100).toFixed(3),
  text: (r) => `The ${pick(r, WORDS)} request was ${pick(r, STATUS)} after review by the ${pick(r, WORDS)} team.`,
  status: (r) => pick(r, STATUS),
  word: (r) => pick(r, WORDS),
  code: (r) => `${pick(r, ['A', 'B', 'K', 'X'])}${digits(r, 3)}`,
  sku: (r) => `SKU-${digits(r, 6)}`,
  version: (r) => `${Math.floor(r() * 5)}.${Math.floor(r() * 20)}.${Math.floor(r() * 10)}`,
  ua: (r) =>
    `Mozilla/5.0 (${pick(r, ['Windows NT 10.0; Win64; x64', 'Macintosh; Intel Mac OS X 14_1', 'X11; Linux x86_64'])}) AppleWebKit/537.36 Chrome/${100 + Math.floor(r() * 30)}.0`,
  path: (r) => `/srv/uploads/${pick(r, WORDS)}/${hex(r, 8)}.pdf`,
  json: (r) => `{"theme":"${pick(r, WORDS)}","size":${Math.floor(r() * 20)}}`,
  dni: (r) => {
    const n = 10_000_000 + Math.floor(r() * 89_999_999);
    return `${n}${'TRWAGMYFPDXBNJZSQVHLCKE'[n % 23]}`;
  },
  tz: (r) => pick(r, ['Europe/Berlin', 'America/New_York', 'Asia/Tokyo', 'UTC']),
  amount_eur: (r) => `${(r() * 500).toFixed(2)} EUR`,
  age: (r) => String(18 + Math.floor(r() * 70)),
  marital: (r) => pick(r, ['single', 'married', 'divorced', 'widowed', 'separated']),
  tzoffset: (r) => pick(r, ['+01:00', '-05:00', '+09:00', '+00:00', '+05:30']),
  s3key: (r) => `s3://media-${pick(r, WORDS)}/${hex(r, 12)}/${pick(r, WORDS)}.${pick(r, ['jpg', 'png', 'pdf'])}`,
};

/** `n` samples from a named generator, seeded by the field's position so every run sees the same values. */
export function samplesFor(gen: string, seed: number, n = 8): string[] {
  const g = GENERATORS[gen];
  if (!g) throw new Error(`unknown sample generator ${gen}`);
  const r = mulberry32(seed * 7919 + 17);
  return Array.from({ length: n }, () => g(r));
}
