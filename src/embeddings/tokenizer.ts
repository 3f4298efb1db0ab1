// Splits identifiers and free text into lowercase English-ish words for the embedder.
// Conventions (documented in docs/embeddings.md):
//  - identifiers split on any non-alphanumeric character, camelCase/PascalCase boundaries, acronym runs
//    (`HTTPStatus` → http, status) and letter/digit boundaries (`addr2` → address, 2);
//  - digit runs are kept as tokens (they are cheap to ignore later, and `line_1` vs `line_2` stays visible);
//  - schema abbreviations are expanded (`cust_dob` → customer, birth, date);
//  - stop words are dropped (`created_at` → created) unless nothing else is left;
//  - CJK runs are matched longest-first against a small glossary, unmatched characters become single tokens.
import { ABBREVIATIONS } from '../text/abbreviations.js';
import { CJK_GLOSSARY, DATA_TYPE_WORDS, STOP_WORDS } from './lexicon.js';

// Han, Hiragana, Katakana (incl. prolonged sound mark), Hangul.
const CJK_RUN =
  /[\u3005\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\uff66-\uff9f]+/gu;
const CJK_CHAR = /[\u3005\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\uff66-\uff9f]/u;
// Alphanumeric words that must not be split at the letter/digit boundary.
const KNOWN_ALNUM = /(ipv4|ipv6|sha256|sha512|sha1|md5|base64|utf8)/i;
// Acronym run not followed by lowercase | Capitalised or lowercase word | digit run.
// Unicode-aware so that Cyrillic, Greek and similar scripts split the same way; `\p{L}+` catches
// caseless scripts (Arabic, Thai, …).
const CAMEL_PART = /\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{N}+|\p{L}+/gu;
const NON_WORD = /[^\p{L}\p{N}]+/u;
// Latin letters that NFKD does not decompose.
const LATIN_FOLD: Readonly<Record<string, string>> = {
  ß: 'ss',
  ø: 'o',
  Ø: 'O',
  æ: 'ae',
  Æ: 'AE',
  œ: 'oe',
  Œ: 'OE',
  ł: 'l',
  Ł: 'L',
  đ: 'd',
  Đ: 'D',
  þ: 'th',
  Þ: 'TH',
};

const GLOSSARY_MAX_LEN = Math.max(...Object.keys(CJK_GLOSSARY).map((k) => k.length));

function stripDiacritics(s: string): string {
  // Fast path: most identifiers are plain ASCII and need no Unicode normalisation.
  if (/^[ -~]*$/.test(s)) return s;
  // NFKD splits accents off Latin letters (and full-width forms); NFKC recomposes kana and Hangul.
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .normalize('NFKC')
    .replace(/[ßøØæÆœŒłŁđĐþÞ]/g, (c) => LATIN_FOLD[c] ?? c);
}

function splitCjk(run: string, out: string[]): void {
  let i = 0;
  while (i < run.length) {
    let matched = false;
    for (let len = Math.min(GLOSSARY_MAX_LEN, run.length - i); len >= 1; len--) {
      const english = CJK_GLOSSARY[run.slice(i, i + len)];
      if (english !== undefined) {
        for (const w of english.split(' ')) out.push(w);
        i += len;
        matched = true;
        break;
      }
    }
    if (!matched) {
      out.push(run[i] as string);
      i += 1;
    }
  }
}

function splitLatinChunk(chunk: string, out: string[]): void {
  for (const piece of chunk.split(KNOWN_ALNUM)) {
    if (!piece) continue;
    if (KNOWN_ALNUM.test(piece) && piece.length <= 6) {
      out.push(piece.toLowerCase());
      continue;
    }
    const parts = piece.match(CAMEL_PART);
    if (parts) for (const p of parts) out.push(p.toLowerCase());
  }
}

/** Raw split of a string into lowercase word pieces, CJK glossary applied, no abbreviation expansion. */
export function splitWords(input: string): string[] {
  const s = stripDiacritics(input);
  const out: string[] = [];
  let last = 0;
  for (const m of s.matchAll(CJK_RUN)) {
    const start = m.index;
    for (const chunk of s.slice(last, start).split(NON_WORD)) if (chunk) splitLatinChunk(chunk, out);
    splitCjk(m[0], out);
    last = start + m[0].length;
  }
  for (const chunk of s.slice(last).split(NON_WORD)) if (chunk) splitLatinChunk(chunk, out);
  // `e_mail`, `eMail`, `e-mail` → email
  for (let i = 0; i + 1 < out.length; i++) {
    if (out[i] === 'e' && out[i + 1] === 'mail') out.splice(i, 2, 'email');
  }
  return out;
}

const SUFFIX_MEANING: Readonly<Record<string, string>> = { at: 'time', on: 'date', by: 'user' };
const FLAG_PREFIXES: ReadonlySet<string> = new Set(['is', 'has', 'can', 'should', 'allow', 'enable']);

function expand(words: string[], identifier: boolean): string[] {
  const out: string[] = [];
  for (const w of words) {
    const exp = ABBREVIATIONS[w];
    if (exp === undefined) {
      out.push(w);
    } else if (exp.startsWith('!')) {
      if (identifier) for (const e of exp.slice(1).split(' ')) out.push(e);
      else out.push(w);
    } else {
      for (const e of exp.split(' ')) out.push(e);
    }
  }
  if (identifier && out.length > 1) {
    // Schema conventions carried by otherwise empty words: `created_at` is a time, `shipped_on` a date,
    // `approved_by` a user, `is_active` a flag.
    const last = out[out.length - 1] as string;
    const suffix = SUFFIX_MEANING[last];
    if (suffix !== undefined) out[out.length - 1] = suffix;
    if (FLAG_PREFIXES.has(out[0] as string)) out.push('flag');
  }
  // `IPv4Address` → ip address address → ip address
  for (let i = out.length - 1; i > 0; i--) if (out[i] === out[i - 1]) out.splice(i, 1);
  const kept = out.filter((w) => !STOP_WORDS.has(w));
  return kept.length > 0 ? kept : out;
}

/** Split a schema identifier (table or column name) into lowercase words, abbreviations expanded. */
export function tokenizeIdentifier(name: string): string[] {
  return expand(splitWords(name), true);
}

/** Split a comment or description into lowercase content words: stop words and bare numbers dropped. */
export function tokenizeText(text: string): string[] {
  const words = expand(splitWords(text), false);
  return words.filter((w) => !STOP_WORDS.has(w) && !/^[0-9]+$/.test(w));
}

/** Describe a SQL data type (`varchar(255)`, `TIMESTAMP WITH TIME ZONE`, `int[]`) in plain words. */
export function tokenizeDataType(dataType: string): string[] {
  const base = dataType.toLowerCase().replace(/\(.*?\)/g, ' ');
  const out: string[] = [];
  for (const w of base.split(/[^a-z0-9]+/)) {
    if (!w) continue;
    const words = DATA_TYPE_WORDS[w];
    if (words !== undefined) {
      for (const x of words.split(' ')) if (!out.includes(x)) out.push(x);
    }
  }
  if (base.includes('[]') && !out.includes('list')) out.push('list');
  return out;
}

/** True if the token is a single CJK character left over after glossary matching. */
export function isCjkToken(token: string): boolean {
  return CJK_CHAR.test(token);
}
