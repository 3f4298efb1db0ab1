// The classifier's reading of a column's samples: the kind of each value (src/text/value-kinds.ts, shared with the
// embedder's format signature), the majority over a column's non-null samples, and the stored fingerprint of it.
// Nothing in this file returns, logs or keeps a sample value: only kind names and shares.
import { detectValueKind, isCardNumber, NULLISH, type ValueKind } from '../../text/value-kinds.js';

export type { ValueKind } from '../../text/value-kinds.js';

/** A short phrase per kind for evidence sentences (never a value). */
export const KIND_PHRASE: Readonly<Record<ValueKind, string>> = {
  email: 'e-mail addresses',
  phone: 'phone numbers',
  card_number: 'payment card numbers (Luhn, brand prefix and length valid, not a sequence)',
  iban: 'IBANs with a valid checksum',
  ipv4: 'IPv4 addresses',
  ipv6: 'IPv6 addresses',
  mac_address: 'MAC addresses',
  uuid: 'UUIDs',
  datetime: 'date-times',
  date: 'calendar dates',
  time: 'times of day',
  us_ssn: 'US social security numbers (valid area, group and serial)',
  national_id: 'national id numbers with valid check digits',
  url: 'URLs',
  jwt: 'JSON web tokens',
  api_key: 'API keys or secret tokens',
  password_hash: 'password hashes (crypt format)',
  hex_hash: 'hexadecimal digests',
  coordinate: 'latitude/longitude values',
  coordinate_pair: 'latitude,longitude pairs',
  postal_code: 'postal codes',
  boolean: 'boolean values',
  gender_code: 'gender codes',
  country_code: 'ISO country codes',
  us_state: 'US state codes or names',
  currency_code: 'ISO currency codes',
  language_code: 'language or locale codes',
  money: 'money amounts',
  integer: 'integers',
  decimal: 'decimal numbers',
  digits: 'digit strings',
  person_name: 'capitalised two- or three-word names',
  word: 'single words',
  code: 'short codes',
  free_text: 'free text',
  json: 'JSON documents',
  time_zone: 'time zone names or UTC offsets',
  file_path: 'file paths or file names',
  marital_status: 'marital status words',
  other: 'mixed values',
};

export interface ValueSummary {
  /** Non-null samples looked at (at most `MAX_SAMPLES`). */
  readonly considered: number;
  /** Count per kind over the considered samples. */
  readonly counts: ReadonlyMap<ValueKind, number>;
  /** The kind that holds a majority of the considered samples, if any. */
  readonly majority: ValueKind | null;
  readonly majorityShare: number;
}

/** At most this many non-null samples are looked at: enough for a majority, cheap enough for a scan. */
export const MAX_SAMPLES = 25;
/** Share of non-null samples a kind needs to speak for the column. */
export const MAJORITY = 0.5;

/** Classifies each non-null sample and finds the majority kind. Non-string samples are read by their type. */
export function summarizeValues(samples: readonly unknown[] | undefined): ValueSummary {
  const counts = new Map<ValueKind, number>();
  let considered = 0;
  if (samples) {
    // Local to the call: no sample value outlives it in module state.
    const detectCache = new Map<string, ValueKind>();
    const seen = new Set<string>();
    for (const raw of samples) {
      if (considered >= MAX_SAMPLES) break;
      let kind: ValueKind;
      if (raw === null || raw === undefined) continue;
      if (typeof raw === 'boolean') kind = 'boolean';
      else if (typeof raw === 'number' || typeof raw === 'bigint') {
        const s = String(raw);
        kind = Number.isInteger(Number(raw))
          ? isCardNumber(s)
            ? 'card_number'
            : s.replace('-', '').length >= 9
              ? 'digits'
              : 'integer'
          : /^-?\d{1,3}\.\d{4,}$/.test(s) && Math.abs(Number(raw)) <= 180
            ? 'coordinate'
            : 'decimal';
      } else if (typeof raw === 'string') {
        const v = raw.trim();
        if (NULLISH.has(v.toLowerCase())) continue;
        // Repeated values count once each time they occur (the majority is over rows), but the detectors run once.
        if (seen.has(v)) {
          const k = detectCache.get(v);
          if (k !== undefined) {
            counts.set(k, (counts.get(k) ?? 0) + 1);
            considered++;
            continue;
          }
        }
        seen.add(v);
        kind = detectValueKind(v);
        detectCache.set(v, kind);
      } else if (raw instanceof Date) kind = 'datetime';
      else kind = 'json';
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
      considered++;
    }
  }
  let majority: ValueKind | null = null;
  let best = 0;
  for (const [k, c] of counts) {
    if (c > best) {
      best = c;
      majority = k;
    }
  }
  const share = considered === 0 ? 0 : best / considered;
  // Free text and mixed values are a majority of their own kind only if nothing else is.
  return { considered, counts, majority: share >= MAJORITY ? majority : null, majorityShare: share };
}

/**
 * A stable summary of the value formats of a column, e.g. `email:0.9,other:0.1`, for "value format changed"
 * detection: built only from kind names and rounded shares, never from sample text. Null with no samples.
 */
export function formatFingerprint(samples: readonly unknown[] | undefined): string | null {
  const s = summarizeValues(samples);
  if (s.considered === 0) return null;
  return [...s.counts.entries()]
    .map(([k, c]) => [k, Math.round((c / s.considered) * 10) / 10] as const)
    .filter(([, share]) => share >= 0.2)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([k, share]) => `${k}:${share}`)
    .join(',');
}

const KINDS = new Set<string>(Object.keys(KIND_PHRASE));

/**
 * The value summary a stored fingerprint stands for (shares in tenths, as formatFingerprint rounds them), so that a
 * field can be classified again without its samples, which are never stored. Null for no or an unreadable fingerprint.
 */
export function summaryFromFingerprint(fingerprint: string | null | undefined): ValueSummary | null {
  if (!fingerprint) return null;
  const counts = new Map<ValueKind, number>();
  for (const part of fingerprint.split(',')) {
    const [kind, share] = part.split(':');
    const n = Math.round(Number(share) * 10);
    if (kind === undefined || !KINDS.has(kind) || !Number.isFinite(n) || n <= 0) return null;
    counts.set(kind as ValueKind, n);
  }
  let majority: ValueKind | null = null;
  let best = 0;
  for (const [k, c] of counts) {
    if (c > best) {
      best = c;
      majority = k;
    }
  }
  const share = best / 10;
  return { considered: 10, counts, majority: share >= MAJORITY ? majority : null, majorityShare: share };
}
