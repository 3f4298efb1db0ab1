// Name evidence: the column name, the table name and the comment, split as real schemas write them
// (snake_case, camelCase, PascalCase, ALLCAPS legacy run-togethers like EMPSSN or CUSTNM, non-English words),
// brought to canonical English words and matched against the phrase rules of the lexicon. Structural
// conventions decide the head of a name: `*_id` is a key, `*_at` a time, `is_*` a flag, whatever else it names.
import { splitWords } from '../../embeddings/tokenizer.js';
import { declaredClass, typeFamily, type TypeFamily } from './data-type-gate.js';
import {
  ADDRESS_WORDS,
  CARD_WORDS,
  CONFIG_TABLE_WORDS,
  FLAG_PREFIX,
  HEALTH_WORDS,
  KEY_WORDS,
  MAIL_WORDS,
  NON_PAYMENT_CARD,
  ORG_WORDS,
  PERSON_WORDS,
  PLACE_WORDS,
  PRODUCT_WORDS,
  RULES,
  TRANSLATE,
} from './lexicon.js';

export interface Phrase {
  readonly leaf: string;
  readonly words: readonly string[];
  readonly text: string;
  readonly weight: number;
}

export interface NameMatch {
  readonly leaf: string;
  readonly score: number;
  /** `context`: read from the other columns of the table (a `state` among `city` and `zip`). */
  readonly factor: 'name' | 'table' | 'comment' | 'context';
  readonly detail: string;
}

/**
 * What the other columns of a table say about it: how many name a person's particulars (e-mail, phone, birth date,
 * gender, first or last name…) and how many an address part (city, zip, street…), with a few of their names to quote.
 * Computed once per table, not per column.
 */
export interface TableColumnsSignal {
  /** Columns by their canonical words (a column's own entry is left out when it is read). */
  readonly person: ReadonlyMap<string, string>;
  readonly address: ReadonlyMap<string, string>;
  /** The first word most of the table's columns share (`eec` of `eec_name`, `eec_relationship` …): a namespace, or null. */
  readonly prefix: string | null;
}

/** Canonical words that, as a column's head, name a person's particulars. */
/** Trailing words that say how a value is stored, not what it is (`name_cached`, `email_normalized`). */
const STORAGE_QUALIFIERS: ReadonlySet<string> = new Set(
  'cached normalized normalised formatted canonical sanitized sanitised trimmed lowercase lowercased uppercase'.split(
    ' ',
  ),
);

/** Words that make `… key` a secret or cryptographic key rather than a key to another row. */
const SECRET_KEY_MODIFIERS: ReadonlySet<string> = new Set(
  'secure secret public private license licence api access auth authentication confirm confirmation activation encryption encrypted crypt signing signature session reset verification verify master ssh pgp gpg rsa hmac recovery'.split(
    ' ',
  ),
);

const PERSON_DETAIL_HEADS: ReadonlySet<string> = new Set([
  'email',
  'phone',
  'mobile',
  'birth',
  'dob',
  'gender',
  'sex',
  'surname',
  'ssn',
  'nationality',
  'salutation',
  'maiden',
  // identity documents' numbers (from 1.5.6)
  'rg',
  'cpf',
  'dni',
  'nie',
  'nino',
  'bsn',
  'curp',
  'aadhaar',
  'pesel',
  'passport',
]);
/** Words of an address part, as a column. */
const ADDRESS_PART_WORDS: ReadonlySet<string> = new Set([
  'city',
  'zip',
  'postcode',
  'postal',
  'street',
  'address',
  'town',
  'country',
]);
/**
 * Last words that decide what a compound name holds whatever the words before them (the head noun): a kind of
 * something, a format or template, a version, a count, a yes/no state.
 */
const HEAD_KINDS: ReadonlyMap<string, { leaf: string; what: string }> = new Map<string, { leaf: string; what: string }>(
  [
    ...['type', 'kind', 'category', 'method'].map(
      (w) => [w, { leaf: 'Category', what: 'a kind of something' }] as const,
    ),
    ...['format', 'template', 'pattern', 'mask', 'regex', 'regexp'].map(
      (w) => [w, { leaf: 'Configuration setting', what: 'a format or template' }] as const,
    ),
    ...['version'].map((w) => [w, { leaf: 'Version', what: 'a version' }] as const),
    ...['count'].map((w) => [w, { leaf: 'Metric value', what: 'a count' }] as const),
    // From 1.5.10: `billRateCurrency`, `subscription_currency`: the currency a money word is kept in, not the money.
    ...['currency'].map((w) => [w, { leaf: 'Currency code', what: 'a currency' }] as const),
    ...['enabled', 'disabled', 'verified', 'optin', 'optout', 'opted', 'confirmed', 'consented', 'agreed'].map(
      (w) => [w, { leaf: 'Status flag', what: 'a yes/no state' }] as const,
    ),
  ],
);

/** At most this many columns are read for a table's signal (a table of 5,000 columns says nothing more). */
const MAX_TABLE_COLUMNS = 400;

// A Map, so a column named `constructor` or `toString` is just a word, not an Object prototype member.

/** Words that name a person's picture when the table is about people. */
const PHOTO_WORDS: ReadonlySet<string> = new Set(['photo', 'picture', 'portrait', 'image', 'headshot', 'foto', 'bild']);
/** Words that make a column about a picture rather than the picture: its address, name, kind, size or time. */
const NOT_THE_IMAGE_ITSELF: ReadonlySet<string> = new Set([
  'url',
  'path',
  'file',
  'filename',
  'name',
  'type',
  'count',
  'size',
  'width',
  'height',
  'format',
  'mime',
  'caption',
  'date',
  'at',
  'time',
  'updated',
  'created',
  'uploaded',
  'flag',
  'consent',
  'credit',
  'alt',
  'key',
  'hash',
  'link',
]);

const TRANSLATIONS: ReadonlyMap<string, string> = new Map(Object.entries(TRANSLATE));

const DROP = new Set([
  'of',
  'the',
  'and',
  'de',
  'la',
  'le',
  'du',
  'des',
  'del',
  'da',
  'do',
  'dos',
  'das',
  'van',
  'der',
  'den',
  'a',
  'an',
  'to',
  'for',
  'in',
  'en',
  'y',
  'e',
  'et',
  'und',
  'het',
  'el',
  'los',
  'las',
  'les',
  'di',
  'il',
  'per',
  'tbl',
  'tb',
  'col',
  'fld',
  'c',
  'x',
  'vw',
  'v',
  'dim',
  'fact',
  'stg',
  'raw',
  'src',
  'tmp',
]);
// Bare key names: `id`, `pk`, `uuid` (not `key`, which is more often a settings key).
const BARE_KEYS = new Set(['id', 'pk', 'uuid', 'guid', 'oid', 'uid', 'identifier', 'rowid']);
// Leaves a modifier may match without settling what a `*_name` column is.
const ENTITY_NEUTRAL = new Set([
  'Full name',
  'Object name',
  'Foreign key',
  'Record ID',
  'Timestamp',
  'Status flag',
  'Customer ID',
  'Category',
  'Configuration setting',
]);
// Small words that carry structure in a column name but none in a sentence.
const COMMENT_STOP = new Set([
  'is',
  'has',
  'can',
  'was',
  'at',
  'on',
  'by',
  'if',
  'or',
  'not',
  'this',
  'that',
  'when',
  'with',
  'from',
  'used',
  'be',
  'are',
  'it',
  'as',
  'set',
  'value',
  'data',
  'time',
  'key',
  'type',
  'id',
]);
// Two-letter pieces allowed when splitting run-together legacy names (EMPNO, CUSTNM, BRTHDT).
const SHORT_PIECES = new Set([
  'nm',
  'dt',
  'no',
  'cd',
  'id',
  'tm',
  'ts',
  'ip',
  'cc',
  'dl',
  'pk',
  'fk',
  'yn',
  'nr',
  'tp',
  'st',
  'ph',
  'pw',
  'of',
  'at',
  'on',
  'by',
  'is',
]);

const PAYMENT_CARD_LEAVES = new Set(['Payment card number', 'Card expiry date', 'Card verification code']);
const MEASURE_LEAVES = new Set(['Monetary amount', 'Price', 'Account balance', 'Metric value', 'Quantity']);
const IDENTIFIER_LEAVES = new Set([
  'Payment card number',
  'Bank account number',
  'Transaction ID',
  'Order ID',
  'Customer ID',
  'Discount code',
  'Invoice number',
  'Product SKU',
  'Shipment tracking number',
  'Contract reference',
  'Employee ID',
]);
/** Documents whose number a `<document>_id` column holds (`passport_id`, `licence_id`): the number, not a key. */
const DOCUMENT_LEAVES = new Set([
  'Passport number',
  'Driver licence number',
  'National ID number',
  'Tax identification number',
  'Health insurance number',
]);
/**
 * Standard code lists whose entries are known by their code (ISO language and currency codes, zone names). A country
 * is left out: kept on an address it is the country someone is in, and the labels of a `country_id` differ.
 */
const CODE_LIST_LEAVES = new Set(['Language code', 'Currency code', 'Time zone']);
/** A text exactly a uuid wide (`varchar(36)`, `char(36)`, `max_length=36`): a uuid, not a code. */
const UUID_WIDE_TEXT = /\(\s*(max_length\s*=\s*)?36\s*\)/i;
/** Declared types that hold numbers: a key, never a document's number. */
const NUMERIC_FAMILIES: ReadonlySet<string> = new Set(['integer', 'decimal']);
/** Table words naming units of an organisation: their `name` is a department's. */
const UNIT_WORDS = new Set(['department', 'division', 'team']);
/** A run-together legacy key: 2–5 letters of abbreviation, then the key word (`STRID`, `ACCTKEY`, `CUSTNO`). */
const LEGACY_KEY = /^([A-Za-z]{2,5})(?:id|key|no|nr)$/i;
/** A leading word of 2–8 letters and an underscore: a column namespace when most columns of a table share it. */
const NAMESPACE_PREFIX = /^([A-Za-z]{2,8})_/;
/** Declared types that hold a calendar date. */
const DATE_FAMILIES: ReadonlySet<string> = new Set(['date', 'datetime']);
/**
 * A structural word glued to the front of an unknown one: `idlinea`, `codagente`, `totalirpf`; from 1.5.7 `last`
 * (`lastvisit`, `lastmark`: when something last happened, read as `last visit`).
 */
const GLUED_HEAD = /^(id|fk|cod|total|last)([a-z]{3,})$/;
/**
 * English words that start like a glued key but are not one (`idle`, `identity`, `codec`, `totally`, `lasting`).
 * `coda` only as the whole word: `codalmacen`, `codagente` are the Romance "code of" before a noun in `a`.
 */
const NOT_GLUED =
  /^(id(ea|le|ly|io|ol|em|ent|yl)|cod(e|ec|a$|ex|ing|on)|total(ly|ity|s|ed|led|izer)|last(ly|ing|ed|s\b|er))/;
/** Romance "code of …" at the start of a name (`cod_aluno`, `codcliente`, `codigo_pedido`): a reference to that row. */
const ROMANCE_CODE = /^(cod|codigo|codice)(?:$|[_\s-]|[a-z]{3,}$)/i;
/** `strName`, `szTitle`: a string-type prefix in camelCase before a capitalised word. */
const HUNGARIAN_PREFIX = /^(str|sz)(?=[A-Z][a-z])/;
/** A character column of at most three: a code (`char(2)`, `varchar(3)`), not a name. */
const SHORT_CODE_TYPE = /^\s*(n?char|n?varchar|varchar2|character(\s+varying)?)\s*\(\s*[1-3]\s*\)/i;
const CONTACT_LEAVES = new Set(['Email address', 'Phone number', 'Postal address', 'Full name']);
/** A person's attributes kept as a key into a short list of values (a gender, a civil state). */
const PERSONAL_ENUMERATIONS: ReadonlySet<string> = new Set(['Gender', 'Marital status']);
/** Values that never fit in a text of one to three characters. */
const NEVER_THREE_CHARACTERS: ReadonlySet<string> = new Set(['Email address', 'Postal address', 'URL']);
/** Words that name a time by the event it marks (`deleted`, `closed`): kept where no time fits, they say whether it happened. */
const EVENT_PARTICIPLES: ReadonlySet<string> = new Set(
  'created updated modified deleted completed processed sent received shipped delivered opened closed hired terminated registered joined cancelled canceled logged occurred inserted changed published archived'.split(
    ' ',
  ),
);
/** A tiny integer (at most 255) or a bit: no date or time fits in it. */
const TINY_NUMBER_TYPE = /^\s*(tiny_?int|bit)\b/i;
/**
 * How a row's number or code is written at the head of a name (`ClinicNum`, `debtor_no`, `depe_codi`, `nation_code`):
 * abbreviated, so that a spelled-out `number` (`delivery_number`, `attendants_number`) is left to the phrases.
 */
const ROW_NUMBER_HEADS = new Set(['num', 'no', 'nr', 'nro', 'code', 'cod', 'codi', 'codigo']);
/** The canonical words those heads become. */
const ROW_NUMBER_WORDS = new Set(['number', 'code', 'codi']);
/** What a code of a state or a kind holds itself (`status_code`, `error_code`). */
const STATE_OR_KIND_LEAVES = new Set(['Status flag', 'Category', 'Log message']);
// Raw words before `of` that make a count: `number_of_orders`, `count_of_items`, `num_of_seats`.
const COUNT_HEADS = new Set(['number', 'num', 'nbr', 'nb', 'no', 'count', 'cnt', 'total']);

/** Canonical phrase list, built once from the lexicon. */
export function buildPhrases(extra: ReadonlyArray<readonly [string, string]> = []): Phrase[] {
  const out: Phrase[] = [];
  for (const [leaf, list] of [...RULES, ...extra]) {
    for (const raw of list.split('|')) {
      const [text, w] = raw.split('*') as [string, string | undefined];
      const words = text.trim().split(/\s+/).filter(Boolean);
      if (words.length === 0) continue;
      out.push({ leaf, words, text: words.join(' '), weight: w !== undefined ? Number(w) : 2.5 + (words.length - 1) });
    }
  }
  return out;
}

/** Every word the rules and translations know: the vocabulary for splitting run-together names. */
function buildVocabulary(phrases: readonly Phrase[]): Set<string> {
  const v = new Set<string>();
  for (const p of phrases) for (const w of p.words) v.add(w);
  for (const k of TRANSLATIONS.keys()) v.add(k);
  for (const set of [
    PERSON_WORDS,
    ORG_WORDS,
    PRODUCT_WORDS,
    PLACE_WORDS,
    HEALTH_WORDS,
    CARD_WORDS,
    ADDRESS_WORDS,
    MAIL_WORDS,
  ])
    for (const w of set) v.add(w);
  for (const w of DROP) if (w.length >= 2) v.add(w);
  // The heads that decide a compound name split run-together ones too (`dateformat`, `notifytype`: from 1.5.7).
  for (const w of HEAD_KINDS.keys()) v.add(w);
  return v;
}

export class NameMatcher {
  private readonly byFirst = new Map<string, Phrase[]>();
  private readonly vocab: Set<string>;
  private readonly cache = new Map<string, string[]>();

  constructor(readonly phrases: readonly Phrase[]) {
    for (const p of phrases) {
      const list = this.byFirst.get(p.words[0] as string);
      if (list) list.push(p);
      else this.byFirst.set(p.words[0] as string, [p]);
    }
    this.vocab = buildVocabulary(phrases);
  }

  private known(w: string): boolean {
    return this.vocab.has(w) && (w.length >= 3 || SHORT_PIECES.has(w));
  }

  /** Splits a run-together word into known words (fewest pieces), or null when it cannot be split. */
  segment(word: string): string[] | null {
    const n = word.length;
    if (n < 4 || n > 32) return null;
    // Fewest pieces first; between as many pieces, the longer words (sum of squared lengths), so `tipoidfiscal` is
    // `tipo id fiscal`, not `tip oid fiscal`.
    const best: Array<{ pieces: number; squares: number; prev: number } | undefined> = new Array(n + 1);
    best[0] = { pieces: 0, squares: 0, prev: -1 };
    for (let i = 1; i <= n; i++) {
      for (let j = Math.max(0, i - 16); j < i; j++) {
        const b = best[j];
        if (!b) continue;
        const piece = word.slice(j, i);
        if (!this.known(piece)) continue;
        // A stop word as a piece costs more, so `lastip` is `last ip`, not `las tip`.
        const cand = b.pieces + (DROP.has(piece) ? 1.5 : 1);
        const squares = b.squares + piece.length * piece.length;
        const cur = best[i];
        if (!cur || cand < cur.pieces || (cand === cur.pieces && squares > cur.squares))
          best[i] = { pieces: cand, squares, prev: j };
      }
    }
    const end = best[n];
    if (!end || end.pieces < 2) return null;
    const out: string[] = [];
    for (let i = n; i > 0;) {
      const b = best[i] as { pieces: number; squares: number; prev: number };
      out.unshift(word.slice(b.prev, i));
      i = b.prev;
    }
    if (out.length > 4) return null;
    return out;
  }

  private push(w: string, out: string[]): void {
    const t = TRANSLATIONS.get(w);
    if (t !== undefined) {
      for (const x of t.split(' ')) out.push(x);
      return;
    }
    out.push(w);
  }

  private canonicalWord(w: string, out: string[]): void {
    if (TRANSLATIONS.has(w) || this.vocab.has(w)) return this.push(w, out);
    // Plurals: customers → customer, addresses → address, categories → category.
    if (w.length > 3 && w.endsWith('s')) {
      const cands = w.endsWith('ies')
        ? [w.slice(0, -3) + 'y', w.slice(0, -1)]
        : w.endsWith('es')
          ? [w.slice(0, -1), w.slice(0, -2)]
          : [w.slice(0, -1)];
      for (const c of cands) if (TRANSLATIONS.has(c) || this.vocab.has(c)) return this.push(c, out);
    }
    const pieces = this.segment(w);
    if (pieces) {
      for (const p of pieces) this.push(p, out);
      return;
    }
    // `idcontacto`, `codcliente`, `totaliva`: a structural word glued to a word the vocabulary does not know (a key,
    // a Romance "code of", a total). The known head is kept; the rest is read on its own.
    const glued = GLUED_HEAD.exec(w);
    if (glued && !NOT_GLUED.test(w)) {
      this.push(glued[1] as string, out);
      this.canonicalWord(glued[2] as string, out);
      return;
    }
    out.push(w);
  }

  /** Canonical English words of an identifier or short text, stop words and bare numbers dropped. */
  words(text: string): string[] {
    const hit = this.cache.get(text);
    if (hit) return hit;
    const out: string[] = [];
    for (const w of splitWords(text)) {
      if (/^\d+$/.test(w)) continue;
      this.canonicalWord(w, out);
    }
    let kept = out.filter((w) => !DROP.has(w));
    if (kept.length === 0) kept = out;
    // `IPv4Address` → ip address address → ip address
    kept = kept.filter((w, i) => i === 0 || kept[i - 1] !== w);
    if (this.cache.size > 50_000) this.cache.clear();
    this.cache.set(text, kept);
    return kept;
  }

  /**
   * A phrase must sit together in the name, in its own order (`card_id` is not an `id card`), or reversed at the
   * start of the name when it has two words, as Romance languages write them (`numero_tarjeta`, `id_cliente`).
   */
  private placed(words: readonly string[], tokens: readonly string[]): boolean {
    const k = words.length;
    if (k === 1) return true;
    for (let i = 0; i + k <= tokens.length; i++) {
      let fwd = true;
      for (let j = 0; j < k; j++) if (tokens[i + j] !== words[j]) fwd = false;
      if (fwd) return true;
    }
    return k === 2 && tokens[0] === words[1] && tokens[1] === words[0];
  }

  /** Phrases whose words all occur in `tokens`, with where they sit. */
  match(
    tokens: readonly string[],
  ): Array<{ phrase: Phrase; coversLast: boolean; coversFirst: boolean; covered: number }> {
    const set = new Set(tokens);
    const out: Array<{ phrase: Phrase; coversLast: boolean; coversFirst: boolean; covered: number }> = [];
    const seenFirst = new Set<string>();
    for (const t of tokens) {
      if (seenFirst.has(t)) continue;
      seenFirst.add(t);
      const list = this.byFirst.get(t);
      if (!list) continue;
      for (const p of list) {
        let ok = true;
        for (const w of p.words) if (!set.has(w)) ok = false;
        if (!ok || !this.placed(p.words, tokens)) continue;
        const last = tokens[tokens.length - 1] as string;
        out.push({
          phrase: p,
          coversLast: p.words.includes(last),
          coversFirst: p.words.includes(tokens[0] as string),
          covered: p.words.length,
        });
      }
    }
    return out;
  }
}

export interface NameEvidenceInput {
  readonly table_name: string;
  readonly field_name: string;
  readonly comment?: string | null;
  /** Declared type: a document number is never held in a numeric column. */
  readonly data_type?: string | null;
  /** What the table's other columns say (tableColumnsSignal of its column names). */
  readonly columns?: TableColumnsSignal | null;
}

/** Reads a table's column names once: which name a person's particulars, which an address part. */
export function tableColumnsSignal(matcher: NameMatcher, columnNames: readonly string[]): TableColumnsSignal {
  const person = new Map<string, string>();
  const address = new Map<string, string>();
  const firsts = new Map<string, number>();
  let read = 0;
  for (const name of columnNames.slice(0, MAX_TABLE_COLUMNS)) {
    if (typeof name !== 'string') continue;
    read++;
    const lead = NAMESPACE_PREFIX.exec(name)?.[1]?.toLowerCase();
    // `id_…`, `is_…`, `fk_…` before most columns are conventions of keys and flags, not a namespace.
    if (lead !== undefined && !KEY_WORDS.has(lead) && !FLAG_PREFIX.has(lead) && lead !== 'fk' && lead !== 'id')
      firsts.set(lead, (firsts.get(lead) ?? 0) + 1);
    const w = matcher.words(name);
    const last = w[w.length - 1];
    if (last === undefined || KEY_WORDS.has(last) || (w.length >= 2 && FLAG_PREFIX.has(w[0] as string))) continue;
    // `email`, `home_phone`, `birth_date`, `first_name`: the particulars of a person, by the column's own words.
    if (
      w.some((x) => PERSON_DETAIL_HEADS.has(x)) ||
      (last === 'name' && (w.includes('first') || w.includes('last') || w.includes('middle')))
    )
      person.set(name, name);
    else if (w.some((x) => ADDRESS_PART_WORDS.has(x))) address.set(name, name);
  }
  let prefix: string | null = null;
  for (const [lead, count] of firsts)
    if (count >= 3 && count >= 0.6 * read && (prefix === null || count > (firsts.get(prefix) ?? 0))) prefix = lead;
  return { person, address, prefix };
}

/** The table's person or address columns other than `own`. */
function columnsBut(columns: ReadonlyMap<string, string>, own: string): string[] {
  const out: string[] = [];
  for (const name of columns.keys()) if (name !== own) out.push(name);
  return out;
}
function quoteColumns(names: readonly string[]): string {
  return (
    names
      .slice(0, 3)
      .map((n) => `'${n.slice(0, 40)}'`)
      .join(', ') + (names.length > 3 ? ` and ${names.length - 3} more` : '')
  );
}

function quoteWords(words: readonly string[]): string {
  return `'${words.join(' ')}'`;
}

/** Adds `score` for `leaf` unless a higher score from the same factor is already there. */
function keep(map: Map<string, NameMatch>, m: NameMatch): void {
  const cur = map.get(m.leaf);
  if (!cur || cur.score < m.score) map.set(m.leaf, m);
}

function anyIn(words: readonly string[], set: ReadonlySet<string>): boolean {
  for (const w of words) if (set.has(w)) return true;
  return false;
}

/** A column name read for evidence: its canonical words and what its head says, with the four evidence maps. */
interface NameReading {
  readonly matcher: NameMatcher;
  readonly input: NameEvidenceInput;
  readonly rawField: string;
  readonly table: string[];
  readonly col: string[];
  readonly n: number;
  readonly first: string | undefined;
  readonly last: string | undefined;
  readonly colMatches: ReturnType<NameMatcher['match']>;
  readonly structural: 'key' | 'time' | 'flag' | 'by' | 'head' | null;
  readonly keyWord: string | undefined;
  readonly secretModifier: string | undefined;
  readonly prefixIsTable: boolean;
  readonly documentKey: boolean;
  /** `language_id varchar(10)`: a key into a standard code list, kept as text, holds the code itself. */
  readonly codeKey: boolean;
  readonly personColumns: string[];
  readonly addressColumns: string[];
  /** A table whose other columns hold a person's particulars is about people, whatever it is called (`t_rec`, `tbl1`). */
  readonly peopleByColumns: boolean;
  readonly byName: Map<string, NameMatch>;
  readonly byTable: Map<string, NameMatch>;
  readonly byComment: Map<string, NameMatch>;
  readonly byContext: Map<string, NameMatch>;
}

/** The column's canonical words, without a type prefix, a namespace or a storage qualifier; and the table's words. */
function columnWords(
  matcher: NameMatcher,
  input: NameEvidenceInput,
): { rawField: string; table: string[]; col: string[] } {
  // Callers validate types; a missing name still must not throw in the middle of a scan.
  // Hungarian notation (`strName`, `szPayGrade`): the type prefix is not a word of the name (`str` is not a street).
  const rawField = typeof input.field_name === 'string' ? input.field_name : '';
  const table = matcher.words(typeof input.table_name === 'string' ? input.table_name : '');
  let written = matcher.words(HUNGARIAN_PREFIX.test(rawField) ? rawField.replace(HUNGARIAN_PREFIX, '') : rawField);
  // A namespace before every column (`user_regdate` in `phpbb_users`, `eec_name` beside `eec_relationship`): the word
  // that repeats the table, or that most of the table's columns start with, is read as what it is, not as the meaning
  // — unless it makes a phrase with the next words (`user_name`, `customer_id`, `session_id` keep theirs).
  const lead = NAMESPACE_PREFIX.exec(rawField)?.[1]?.toLowerCase();
  const repeatsTable = written.length >= 2 && table.includes(written[0] as string);
  const namespace =
    written.length < 2
      ? 0
      : repeatsTable
        ? 1
        : lead !== undefined && input.columns?.prefix === lead
          ? matcher.words(lead).length
          : 0;
  if (namespace > 0 && namespace < written.length) {
    const rest = written.slice(namespace);
    // The rest must stand on its own: not a lone key word (`customer_sk`), nor a name or title that needs the table's
    // word as its modifier (`attendee_name_cached` in `attendee_profiles`; an opaque `eec_` before `name` is no modifier).
    const standsAlone =
      !(rest.length === 1 && KEY_WORDS.has(rest[0] as string)) &&
      // `allergy.AllergyNum`: the row's number after the table's word is its key, as `allergy_id` would be.
      !(
        rest.length === 1 &&
        rowNumberKey(written, lowerWords(rawField), typeFamily(input.data_type ?? null), matcher.match(written))
      ) &&
      !(repeatsTable && (rest.includes('name') || rest.includes('title')));
    if (
      standsAlone &&
      !matcher.match(written).some((m) => m.phrase.words.length >= 2 && m.phrase.words.includes(written[0] as string))
    )
      written = rest;
  }
  // `name_cached`, `email_normalized`, `phone_formatted`: a trailing word that says how a value is kept is not its
  // head; the word before it is.
  while (written.length >= 2 && STORAGE_QUALIFIERS.has(written[written.length - 1] as string))
    written = written.slice(0, -1);
  // `data_nascimento`, `data_cad` in a date column: the Portuguese and Italian `data` is a date, said first.
  const col =
    written.length >= 2 && written[0] === 'data' && DATE_FAMILIES.has(typeFamily(input.data_type ?? null))
      ? ['date', ...written.slice(1)]
      : written;
  return { rawField, table, col };
}

/** The head of the name decides: `customer_email_id` is a key, `email_sent_at` a time, `is_email_verified` a flag. */
function nameStructure(
  col: readonly string[],
  rawField: string,
  colMatches: NameReading['colMatches'],
): Pick<NameReading, 'structural' | 'keyWord' | 'secretModifier'> {
  const n = col.length;
  const last = col[n - 1];
  const first = col[0];
  // `secure_key`, `license_key`, `EncryptedUserKey`, `PublicKey`: a key of a cryptographic or secret kind is that key,
  // not a reference to another row (`customer_key` is).
  const secretModifier =
    n >= 2 && last === 'key' ? col.slice(0, -1).find((w) => SECRET_KEY_MODIFIERS.has(w)) : undefined;
  if (n >= 2 && last !== undefined && KEY_WORDS.has(last) && secretModifier === undefined)
    return { structural: 'key', keyWord: last, secretModifier };
  // `id_cliente`, `id_client`, `idcontacto`: the Romance order of `client_id`.
  if (n >= 2 && first === 'id') return { structural: 'key', keyWord: first, secretModifier };
  if (
    n >= 2 &&
    first === 'code' &&
    ROMANCE_CODE.test(rawField) &&
    !NOT_GLUED.test(rawField.toLowerCase()) &&
    !colMatches.some((m) => m.phrase.words.length >= 2 && m.phrase.words.includes('code'))
  ) {
    // `cod_aluno`, `codagente`, `codigo_pedido`: Romance "code of" a row is a reference to it, unless the words
    // make a known code together (`codigo_postal`, `codpais`).
    return { structural: 'key', keyWord: first, secretModifier };
  }
  let structural: NameReading['structural'] = null;
  if (n >= 2 && (last === 'at' || last === 'on')) structural = 'time';
  else if (n >= 2 && last === 'by' && !SORT_WORDS.has(col[n - 2] as string)) structural = 'by';
  else if (n >= 2 && first !== undefined && FLAG_PREFIX.has(first)) structural = 'flag';
  else if (n >= 2 && last !== undefined && HEAD_KINDS.has(last)) structural = 'head';
  return { structural, keyWord: undefined, secretModifier };
}

/**
 * `ClinicNum long`, `depe_codi smallint`, `nation_code int(4)`: the number or code of a singular noun kept as a whole
 * number is a key to that noun's row (or the row's own key when the noun is its table), as `clinic_id` would be. A
 * plural before it counts things (`failures_num`), and a number or code the phrases know keeps its reading
 * (`phone_no`, `zip_code`, `routing_num`, `line_no`).
 */
function rowNumberKey(
  col: readonly string[],
  raw: readonly string[],
  family: TypeFamily,
  colMatches: NameReading['colMatches'],
): boolean {
  if (col.length < 2 || !ROW_NUMBER_WORDS.has(col[col.length - 1] as string) || family !== 'integer') return false;
  const head = raw[raw.length - 1];
  const before = raw[raw.length - 2];
  if (head === undefined || before === undefined || !ROW_NUMBER_HEADS.has(head)) return false;
  if (PLURAL_WORD.test(before)) return false;
  // `status_code`, `type_no`: the code of a state or a kind is that state or kind, not a row of its own.
  const modifier = col[col.length - 2] as string;
  return !colMatches.some(
    (m) => m.coversLast || (m.phrase.words.includes(modifier) && STATE_OR_KIND_LEAVES.has(m.phrase.leaf)),
  );
}

/**
 * `num_notice int`, `num_fournisseur int`: the Romance "number of" a row said first (French and Italian `num_`,
 * Spanish `num_`), kept as a whole number, is a key to that row, as `id_cliente` is. A plural after it counts
 * (`num_comments`), a phrase that reads the pair keeps its reading, and in a table of documents the numbers are the
 * document's own (`documento.num_termo`, the entry of a civil register).
 */
function romanceNumberKey(
  col: readonly string[],
  raw: readonly string[],
  family: TypeFamily,
  colMatches: NameReading['colMatches'],
  table: readonly string[],
): boolean {
  if (col.length !== 2 || col[0] !== 'number' || family !== 'integer') return false;
  if (table.includes('document')) return false;
  if (raw.length !== 2 || raw[0] !== 'num' || PLURAL_WORD.test(raw[1] as string)) return false;
  const noun = col[1] as string;
  return !colMatches.some(
    (m) =>
      m.phrase.words.includes('number') ||
      (m.phrase.words.includes(noun) && (STATE_OR_KIND_LEAVES.has(m.phrase.leaf) || MEASURE_LEAVES.has(m.phrase.leaf))),
  );
}

/**
 * `default_billing int`, `defaultshipper int`: the default one among rows of a kind, kept as a whole number, is a key to
 * that row (the address billed by default, the usual carrier), not a yes/no. A measure or a setting after `default`
 * (`default_quantity`, `default_timeout`) keeps its reading, and a plural names many.
 */
function defaultRowKey(
  col: readonly string[],
  raw: readonly string[],
  family: TypeFamily,
  colMatches: NameReading['colMatches'],
): boolean {
  if (col.length < 2 || col[0] !== 'default' || family !== 'integer') return false;
  if (PLURAL_WORD.test(raw[raw.length - 1] ?? '')) return false;
  const rest = col.slice(1);
  return !colMatches.some(
    (m) =>
      m.phrase.words.some((w) => rest.includes(w)) &&
      (MEASURE_LEAVES.has(m.phrase.leaf) ||
        m.phrase.leaf === 'Configuration setting' ||
        m.phrase.leaf === 'Sort order'),
  );
}

/** Places of an organisation that have rows of their own (a library's locations, a company's work stations). */
const PLACE_ROW_HEADS: ReadonlySet<string> = new Set(['location', 'station', 'site', 'branch', 'office', 'warehouse']);

/**
 * `empr_location int(6)`, `work_station int(6)`: a place of the organisation kept as a whole number is a key to that
 * place's row, not where someone is; a coordinate, a count or a text keeps its reading.
 */
function placeRowKey(col: readonly string[], family: TypeFamily, colMatches: NameReading['colMatches']): boolean {
  const last = col[col.length - 1];
  if (col.length < 1 || col.length > 3 || last === undefined || !PLACE_ROW_HEADS.has(last)) return false;
  if (family !== 'integer') return false;
  return !colMatches.some((m) => m.phrase.words.length >= 2 && m.coversLast);
}

/**
 * The key shapes read from how a name is put together (from 1.5.11): the word that makes the column a key to another
 * row, or undefined when none of them fits.
 */
function keyShapeWord(
  col: readonly string[],
  raw: readonly string[],
  family: TypeFamily,
  colMatches: NameReading['colMatches'],
  table: readonly string[],
): string | undefined {
  // In this order: the first shape that fits names the key word.
  if (rowNumberKey(col, raw, family, colMatches)) return col[col.length - 1];
  if (romanceNumberKey(col, raw, family, colMatches, table) || defaultRowKey(col, raw, family, colMatches))
    return col[0];
  if (placeRowKey(col, family, colMatches)) return col[col.length - 1];
  return undefined;
}

/** A name's written words in lower case, before any reading (`ClinicNum` → `clinic`, `num`). */
function lowerWords(rawField: string): string[] {
  return splitWords(rawField).map((w) => w.toLowerCase());
}

/** A plural English word (`failures`, `comments`; not `status`, `bonus`): it counts or lists, it is no key. */
const PLURAL_WORD = /[^su]s$/;

/** Reads the column name once: its words, its head, and the table's columns of a person or an address. */
function readName(matcher: NameMatcher, input: NameEvidenceInput): NameReading {
  const { rawField, table, col } = columnWords(matcher, input);
  const n = col.length;
  const first = col[0];
  const colMatches = col.length > 0 ? matcher.match(col) : [];
  const family = typeFamily(input.data_type ?? null);
  const shapeKey = keyShapeWord(col, lowerWords(rawField), family, colMatches, table);
  const structure =
    shapeKey !== undefined
      ? { structural: 'key' as const, keyWord: shapeKey, secretModifier: undefined }
      : nameStructure(col, rawField, colMatches);
  const { structural, keyWord } = structure;
  const prefixIsTable = n >= 2 && table.includes(first as string);
  // `passport_id`, `licencia_id`: the identifier of a document is its number, not a key to another row.
  const documentKey =
    structural === 'key' &&
    !prefixIsTable &&
    !NUMERIC_FAMILIES.has(family) &&
    colMatches.some(
      (m) =>
        DOCUMENT_LEAVES.has(m.phrase.leaf) && m.phrase.weight >= 2.4 && !m.phrase.words.includes(keyWord as string),
    );
  // `language_id varchar(10)`, `currency_id varchar(6)`: the key of a row of a standard code list kept as text is the
  // entry's code (`en`, `EUR`); kept as a whole number or a uuid it is a key.
  const codeKey =
    structural === 'key' &&
    !documentKey &&
    n === 2 &&
    family === 'text' &&
    !UUID_WIDE_TEXT.test(input.data_type ?? '') &&
    colMatches.some(
      (m) =>
        CODE_LIST_LEAVES.has(m.phrase.leaf) &&
        m.phrase.weight >= 2.4 &&
        !m.phrase.words.includes(keyWord as string) &&
        m.phrase.words.includes(col.find((w) => w !== keyWord) as string),
    );
  const personColumns = input.columns ? columnsBut(input.columns.person, rawField) : [];
  const addressColumns = input.columns ? columnsBut(input.columns.address, rawField) : [];
  return {
    matcher,
    input,
    rawField,
    table,
    col,
    n,
    first,
    last: col[n - 1],
    colMatches,
    ...structure,
    prefixIsTable,
    documentKey,
    codeKey,
    personColumns,
    addressColumns,
    peopleByColumns: personColumns.length >= 2,
    byName: new Map(),
    byTable: new Map(),
    byComment: new Map(),
    byContext: new Map(),
  };
}

/**
 * A phrase `<person> <key word>` (`patient id`) on a whole number, in a table that is not that person's own: a key to
 * the person's row. A number the person holds (a record or member number) is not kept as the row's integer key.
 */
function personRowKey(r: NameReading, words: readonly string[]): boolean {
  if (r.structural !== 'key' || r.prefixIsTable || words.length !== 2) return false;
  if (words[1] !== r.keyWord || !PERSON_WORDS.has(words[0] as string)) return false;
  return NUMERIC_FAMILIES.has(typeFamily(r.input.data_type ?? null));
}

/** A table about people or health, by its name or by its other columns: where a person's matters are theirs. */
function aboutPeopleOrHealth(r: NameReading): boolean {
  return anyIn(r.table, PERSON_WORDS) || anyIn(r.table, HEALTH_WORDS) || r.peopleByColumns;
}

/** The phrase rules matched on the column's own words, weighed by where they sit and whether they hold the head. */
function addPhraseMatches(r: NameReading): void {
  const { col, n, first, last, structural, keyWord, documentKey, prefixIsTable } = r;
  // A measure at the head (`credit_card_amount`, `coupon_amount`, `order_total`) is that measure: the identifier
  // among its modifiers says what it is measured on, not what the column holds.
  const measureHead = r.colMatches.some((m) => m.coversLast && MEASURE_LEAVES.has(m.phrase.leaf));
  // `report_card`, `sim_card`, `loyalty_card`: a card that is not a payment card.
  const otherCard = col.some((w, i) => w === 'card' && i > 0 && NON_PAYMENT_CARD.has(col[i - 1] as string));
  // `tobacco_current_use` of a patient is a diagnosis; `products.contains_tobacco` says what is sold.
  const aboutPeople = aboutPeopleOrHealth(r);
  // `hipaa_allowemail varchar(3)`: no e-mail address, postal address or URL fits in three characters; the column
  // holds a code or a yes/no about it.
  const tooShort = SHORT_CODE_TYPE.test(r.input.data_type ?? '');
  for (const m of r.colMatches) {
    if (otherCard && PAYMENT_CARD_LEAVES.has(m.phrase.leaf)) continue;
    if (tooShort && NEVER_THREE_CHARACTERS.has(m.phrase.leaf)) continue;
    // `pnotes.deleted tinyint(4)`, `completed_ad varchar(3)`: no time fits in a tiny integer or three characters; a word
    // for the event the time would mark says whether it happened, a yes/no.
    if (
      m.phrase.leaf === 'Timestamp' &&
      (tooShort || TINY_NUMBER_TYPE.test(r.input.data_type ?? '')) &&
      m.phrase.words.every((w) => EVENT_PARTICIPLES.has(w))
    ) {
      keep(r.byName, {
        leaf: 'Status flag',
        score: m.coversLast ? 2.5 : 1.5,
        factor: 'name',
        detail: `'${m.phrase.text}' where no time fits: whether it happened`,
      });
      continue;
    }
    if (!aboutPeople && m.phrase.leaf === 'Diagnosis' && anyIn(m.phrase.words, SUBSTANCE_WORDS)) continue;
    const pos =
      m.coversLast ||
      (documentKey && DOCUMENT_LEAVES.has(m.phrase.leaf)) ||
      (r.codeKey && CODE_LIST_LEAVES.has(m.phrase.leaf))
        ? 1
        : (m.coversFirst ? 0.78 : 0.6) * (measureHead && IDENTIFIER_LEAVES.has(m.phrase.leaf) ? 0.75 : 1);
    const coverage = m.covered / Math.max(1, n);
    let score = m.phrase.weight * pos * (0.85 + 0.15 * coverage);
    const includesHead =
      structural === 'key'
        ? m.phrase.words.includes(keyWord as string)
        : structural === 'flag'
          ? m.phrase.words.includes(first as string)
          : m.coversLast;
    // `amt_name`, `price_label`: a name or title of something is not a measure of it.
    if (!m.coversLast && MEASURE_LEAVES.has(m.phrase.leaf) && (last === 'name' || last === 'title' || last === 'label'))
      score *= 0.35;
    if (
      structural !== null &&
      !includesHead &&
      !(documentKey && DOCUMENT_LEAVES.has(m.phrase.leaf)) &&
      !(r.codeKey && CODE_LIST_LEAVES.has(m.phrase.leaf))
    )
      score *= 0.35;
    // `patient_id` stored as a whole number in another table: the key of a person's row, not a number the person holds.
    if (personRowKey(r, m.phrase.words)) score *= 0.35;
    // `comment_author` in `wp_comments`, `CUST_…` in `CUST_MSTR`: a leading table prefix is not what the column means.
    if (prefixIsTable && m.phrase.words.length === 1 && m.phrase.words[0] === first) score *= 0.5;
    keep(r.byName, {
      leaf: m.phrase.leaf,
      score,
      factor: 'name',
      detail: `column name words ${quoteWords(col)} match '${m.phrase.text}'`,
    });
  }
}

/** What the head of the name says on its own: a count, a secret key, the row's key, a reference, a time, a flag, a kind. */
function addStructuralEvidence(r: NameReading): void {
  const { col, n, first, last, structural, keyWord, table, rawField } = r;
  // `number_of_orders`, `NumberOfLogins`, `count_of_items`: a count, whatever is counted.
  const fieldName = typeof r.input.field_name === 'string' ? r.input.field_name : '';
  const raw = structural === null && /of/i.test(fieldName) ? splitWords(fieldName) : [];
  if (raw.some((w, i) => w === 'of' && i > 0 && COUNT_HEADS.has(raw[i - 1] as string) && i + 1 < raw.length)) {
    keep(r.byName, {
      leaf: 'Metric value',
      score: 4.2,
      factor: 'name',
      detail: `column name starts '${raw[raw.indexOf('of') - 1]} of': a count`,
    });
  }
  if (r.secretModifier !== undefined) {
    keep(r.byName, {
      leaf: 'API key or token',
      score: 3.6,
      factor: 'name',
      detail: `column name is a '${r.secretModifier} key': a secret or cryptographic key, not a reference to a row`,
    });
  }
  if (n === 1 && last !== undefined && BARE_KEYS.has(last)) {
    keep(r.byName, {
      leaf: 'Record ID',
      score: 4.2,
      factor: 'name',
      detail: `column is named '${last}': the row's own key`,
    });
  } else if (structural === 'key' && !r.documentKey && !r.codeKey) {
    const modifier = col.filter((w) => w !== keyWord);
    // `STRMAST.STRID`, `PRODMAST.PRODKEY`: in legacy master tables the key repeats the table's own abbreviation.
    const rawTable = (typeof r.input.table_name === 'string' ? r.input.table_name : '')
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '');
    const abbreviation = LEGACY_KEY.exec(rawField)?.[1]?.toLowerCase();
    const legacySelf =
      abbreviation !== undefined && rawTable.startsWith(abbreviation) && rawTable.length > abbreviation.length;
    const self = modifier.length > 0 && (modifier.every((w) => table.includes(w)) || legacySelf);
    if (self)
      keep(r.byName, {
        leaf: 'Record ID',
        score: 3.9,
        factor: 'name',
        detail: `column ${quoteWords(col)} is the key of its own table`,
      });
    else {
      keep(r.byName, {
        leaf: 'Foreign key',
        score: 3.2,
        factor: 'name',
        detail: `column name has '${keyWord}' as its head: a key to another row, not the thing itself`,
      });
      // `gender_id`, `id_gender`, `marital_status_id`: a key into a list of genders or civil states holds the person's
      // gender or civil state as a code; the row it points to is the attribute itself.
      const attribute = r.matcher
        .match(modifier)
        .find((m) => PERSONAL_ENUMERATIONS.has(m.phrase.leaf) && m.phrase.words.length === modifier.length);
      if (attribute !== undefined)
        keep(r.byName, {
          leaf: attribute.phrase.leaf,
          score: 3.6,
          factor: 'name',
          detail: `a key into a list of '${attribute.phrase.text}': the person's ${attribute.phrase.leaf.toLowerCase()} as a code`,
        });
    }
  } else if (structural === 'by') {
    keep(r.byName, {
      leaf: 'Foreign key',
      score: 3.6,
      factor: 'name',
      detail: `column name ends in 'by': a reference to who did it`,
    });
  } else if (structural === 'time') {
    keep(r.byName, {
      leaf: 'Timestamp',
      score: 4.0,
      factor: 'name',
      detail: `column name ends in '${last}': when something happened`,
    });
  } else if (structural === 'flag') {
    keep(r.byName, {
      leaf: 'Status flag',
      score: 4.0,
      factor: 'name',
      detail: `column name starts with '${first}': a yes/no flag`,
    });
  } else if (structural === 'head') {
    // `email_format`, `phone_type`, `address_kind`, `email_opt_in`: the last word says what the column holds; the
    // sensitive words before it only say what it is about. A phrase that includes the head (`blood_type`) keeps its weight.
    const kind = HEAD_KINDS.get(last as string) as { leaf: string; what: string };
    keep(r.byName, {
      leaf: kind.leaf,
      score: 3.0,
      factor: 'name',
      detail: `column name ends in '${last}': ${kind.what}, whatever it is about`,
    });
  }
  // `custom1` … `custom10`: a field an administrator puts to their own use, free text for whatever they keep.
  if (n === 1 && last === 'custom')
    keep(r.byName, {
      leaf: 'Internal notes',
      score: 3.0,
      factor: 'name',
      detail: 'column is a custom field: free text an administrator puts to their own use',
    });
  // `smtp_port`, `port` stored as a whole number: the port a service listens on, a setting rather than a measure. A
  // decimal `port` is left alone (French `port` is postage, an amount).
  if (last === 'port' && typeFamily(r.input.data_type ?? null) === 'integer')
    keep(r.byName, {
      leaf: 'Configuration setting',
      score: 3.0,
      factor: 'name',
      detail: "column name ends in 'port' on a whole number: a network port, a setting",
    });
}

/** `beta_toggle`, `feature_flag` stored as a yes/no: the switch's state, a flag, not the setting's definition. */
function addBooleanSwitch(r: NameReading): void {
  const { last, n } = r;
  if (n < 2 || (last !== 'toggle' && last !== 'flag')) return;
  if (typeFamily(r.input.data_type ?? null) !== 'boolean') return;
  keep(r.byName, {
    leaf: 'Status flag',
    score: 3.6,
    factor: 'name',
    detail: `column name ends in '${last}' on a yes/no type: the state of a switch`,
  });
}

/** A declared list type: `[String]`, `integer[]`, `ARRAY<…>`. */
const LIST_TYPE = /^\s*(\[|array\b)|\[\]\s*$/i;
/** Words that make `… order` a purchase rather than an arrangement. */
const PURCHASE_WORDS: ReadonlySet<string> = new Set(['purchase', 'sales', 'sale', 'work', 'service', 'customer', 'po']);

/**
 * `menu_order` as a whole number, `pinnedItemsOrder` as a list: the order things are shown in, not a purchase. A
 * `position` stored as a whole number is a place in a list (a person's position is a job title, written as text).
 */
function addArrangementOrder(r: NameReading): void {
  const { col, n, last } = r;
  if (last === 'position' && typeFamily(r.input.data_type ?? null) === 'integer') {
    keep(r.byName, {
      leaf: 'Sort order',
      score: 3.4,
      factor: 'name',
      detail: `column name ends in 'position' on a whole number: a place in a list, not a job`,
    });
    return;
  }
  if (n < 2 || last !== 'order' || anyIn(col, PURCHASE_WORDS)) return;
  const dataType = r.input.data_type ?? '';
  if (typeFamily(dataType) !== 'integer' && !LIST_TYPE.test(dataType)) return;
  keep(r.byName, {
    leaf: 'Sort order',
    score: 3.4,
    factor: 'name',
    detail: `column name ends in 'order' on a number or a list: the order things are shown in, not a purchase`,
  });
}

/** The leaf a generic `name` or `title` names, by its other words or the table's. */
function genericHeadLeaf(
  head: 'name' | 'title',
  others: readonly string[],
  from: readonly string[],
  table: readonly string[],
  dataType: string,
): { leaf: string; score: number } {
  const base = others.length > 0 ? 3.6 : 3.0;
  if (anyIn(from, PERSON_WORDS)) return { leaf: head === 'name' ? 'Full name' : 'Job title', score: base };
  // `approved_by_name`, `changed_by_name`: the name of who did it, a person's.
  if (head === 'name' && others.includes('by')) return { leaf: 'Full name', score: base };
  if (anyIn(from, ORG_WORDS)) return { leaf: 'Organisation name', score: base };
  if (anyIn(from, PRODUCT_WORDS)) return { leaf: 'Public product description', score: base };
  if (head === 'name' && anyIn(from, UNIT_WORDS)) return { leaf: 'Department', score: base };
  if (head === 'name' && others.length === 0 && from.includes('country'))
    return { leaf: SHORT_CODE_TYPE.test(dataType) ? 'Country code' : 'Country', score: base };
  if (head === 'name' && others.length === 0 && from.includes('city')) return { leaf: 'City', score: base };
  // A name in a table of addresses is the addressee's (`invoice_addresses.name`): a person, or a company it names.
  if (head === 'name' && others.length === 0 && from.includes('address')) return { leaf: 'Full name', score: base };
  if (
    head === 'name' &&
    others.length === 0 &&
    anyIn(from, new Set(['state', 'region', 'province', 'county', 'district']))
  )
    return { leaf: 'Approximate location', score: base };
  if (head === 'title' && anyIn(from, new Set(['job', 'position', 'role']))) return { leaf: 'Job title', score: base };
  if (others.length === 0 && table.length === 0)
    return { leaf: head === 'name' ? 'Full name' : 'Object name', score: 1.8 };
  return { leaf: 'Object name', score: others.length > 0 ? 3.0 : 2.2 };
}

/** Generic heads resolved by their modifier or by the table: `customer_name`, `customers.name`, `products.title`. */
function addGenericHeadEvidence(r: NameReading): void {
  const { col, table } = r;
  if (r.structural !== null || !(col.includes('name') || col.includes('title'))) return;
  const head = col.includes('name') ? 'name' : 'title';
  const others = col.filter((w) => w !== head && w !== 'full' && w !== 'display');
  const specific = col.some((w) =>
    [
      'first',
      'last',
      'middle',
      'surname',
      'user',
      'file',
      'city',
      'country',
      'street',
      'job',
      'company',
      'bank',
      'product',
      'item',
      'department',
      'team',
      'host',
      'table',
      'tag',
      'code',
      'account',
      'screen',
      'login',
      'drug',
      'school',
    ].includes(w),
  );
  // `os_name`, `event_name`, `country_name`: the modifier names the thing; the phrase rules decide.
  // A measure among the modifiers (`amt_name`) does not: a name is not an amount. Nor does a word for people that is
  // itself a phrase of another tag (`patient` → medical record number, `agent` → user agent): `patient_name`,
  // `agent_name` are a person's name.
  const modifierSpeaks =
    others.length > 0 &&
    r.matcher
      .match(others)
      .some(
        (m) =>
          m.phrase.weight >= 2.4 &&
          !ENTITY_NEUTRAL.has(m.phrase.leaf) &&
          !MEASURE_LEAVES.has(m.phrase.leaf) &&
          !m.phrase.words.every((w) => PERSON_WORDS.has(w)),
      );
  if (specific || modifierSpeaks) return;
  const from = others.length > 0 ? others : table;
  const factor = others.length > 0 ? 'name' : 'table';
  const where = others.length > 0 ? `its words ${quoteWords(others)}` : `table ${quoteWords(table)}`;
  const { leaf, score } = genericHeadLeaf(head, others, from, table, r.input.data_type ?? '');
  const map = factor === 'name' ? r.byName : r.byTable;
  keep(map, {
    leaf,
    score,
    factor,
    detail: `'${head}' read with ${where}: ${leaf === 'Object name' ? 'names a thing, not a person' : leaf.toLowerCase()}`,
  });
  // A bare `name` whose table says nothing of what it names, among a person's particulars, is that person's.
  if (
    head === 'name' &&
    others.length === 0 &&
    leaf === 'Object name' &&
    r.peopleByColumns &&
    !anyIn(table, PRODUCT_WORDS) &&
    !anyIn(table, ORG_WORDS)
  ) {
    keep(r.byContext, {
      leaf: 'Full name',
      score: 3.8,
      factor: 'context',
      detail: `'name' among columns ${quoteColumns(r.personColumns)}: a person's name`,
    });
  }
}

/** Leaves a word after `last` may name without the column being when something last happened. */
const LAST_EVENT_LEAVES: ReadonlySet<string> = new Set(['Metric value', 'Event name', 'Timestamp', 'Status flag']);

/** Words after `last` that name a part or a value rather than an event (`last_name`, `last_four`, `last_value`). */
const NOT_AN_EVENT_AFTER_LAST: ReadonlySet<string> = new Set(['name', 'four', 'digits', 'value', 'number', 'id']);

/** Words that name a version of a record, which a date word beside them in a date column turns into its time. */
const VERSION_WORDS: ReadonlySet<string> = new Set(['revision', 'version']);

/**
 * `data_rev` (Portuguese: date of revision), `date_rev` in a date or date-time column: when the record was revised, a
 * time, not its version number (a bare `version` or `row_version` in a `timestamp` column, a row version, keeps its
 * reading).
 */
function addRevisionTime(r: NameReading): void {
  const { col } = r;
  if (r.n < 2 || !DATE_FAMILIES.has(typeFamily(r.input.data_type ?? null))) return;
  if (!col.some((w) => VERSION_WORDS.has(w)) || !col.some((w) => w === 'date' || w === 'time')) return;
  keep(r.byName, {
    leaf: 'Timestamp',
    score: 3.2,
    factor: 'name',
    detail: `a date word beside '${col.find((w) => VERSION_WORDS.has(w))}' in a date column: when the revision was made`,
  });
}

/** `last_visit`, `lastmark`, `poll_last_vote` stored as a whole number: when it last happened, in epoch seconds. */
function addLastEventTime(r: NameReading): void {
  const { col } = r;
  const at = col.lastIndexOf('last');
  if (at < 0 || at === col.length - 1 || r.structural !== null) return;
  if (typeFamily(r.input.data_type ?? null) !== 'integer') return;
  const after = col.slice(at + 1);
  if (after.some((w) => NOT_AN_EVENT_AFTER_LAST.has(w))) return;
  if (r.matcher.match(col.slice(at)).some((m) => !LAST_EVENT_LEAVES.has(m.phrase.leaf))) return;
  keep(r.byName, {
    leaf: 'Timestamp',
    score: 3.5,
    factor: 'name',
    detail: `column name says when the ${quoteWords(after)} last happened, as a whole number: a time in epoch seconds`,
  });
}

/** Words that say a list is sorted (`sort`, `order`): before `by` or a direction, how it is sorted. */
const SORT_WORDS: ReadonlySet<string> = new Set(['sort', 'order']);
/** Words after a sort word that make the name the choice of how to sort, not a place in a list. */
const SORT_CHOICE_WORDS: ReadonlySet<string> = new Set([
  'by',
  'dir',
  'direction',
  'ascending',
  'descending',
  'asc',
  'desc',
]);

/**
 * `sort_by`, `user_topic_sortby_type`, `sortDirection`, `orderAscending`: how a list is sorted, by what and which way, is
 * a setting someone chose, not a place in a list (`sort_order`) nor a purchase (`order_id`), nor who did it (`*_by`).
 */
function addSortChoice(r: NameReading): void {
  const { col } = r;
  const at = col.findIndex((w, i) => SORT_WORDS.has(w) && SORT_CHOICE_WORDS.has(col[i + 1] as string));
  if (at < 0) return;
  keep(r.byName, {
    leaf: 'Configuration setting',
    score: 3.6,
    factor: 'name',
    detail: `column name says how a list is sorted (${quoteWords(col.slice(at, at + 2))}): a setting, not a place in the list`,
  });
}

/** Heads that name the service or plug-in that does a job: a payment provider, a mail driver, a shipping module. */
const SERVICE_HEADS: ReadonlySet<string> = new Set(
  'provider gateway messenger driver adapter backend processor module plugin connector'.split(' '),
);
/** The column's last word as written is a plural of its canonical head (`TwoFactorProviders`, `posters`). */
function writtenAsPlural(r: NameReading): boolean {
  const written = splitWords(r.rawField);
  const rawLast = (written[written.length - 1] ?? '').toLowerCase();
  return rawLast !== r.last && rawLast.endsWith('s');
}

/**
 * `payments.provider varchar`, `campaigns.messenger text`, `orders.module varchar`: which service or plug-in handled
 * something, kept as text, is one of the few the system knows, a category; in a table about health a provider is a
 * person or a clinic, and a number or a reference is a key. From 1.5.10 a table about people is no exception:
 * `users.provider` (the sign-in provider) and `channel_email.provider` (beside an address) name a service too; a
 * plural (`TwoFactorProviders`) lists the services set up and is left to the phrases.
 */
function addServiceName(r: NameReading): void {
  const last = r.last;
  if (last === undefined || !SERVICE_HEADS.has(last) || anyIn(r.table, HEALTH_WORDS)) return;
  // A plural (`TwoFactorProviders`) lists the services set up, with their settings; it does not name the one used.
  if (writtenAsPlural(r)) return;
  const type = r.input.data_type ?? null;
  if (typeFamily(type) !== 'text' || declaredClass(type) !== null) return;
  keep(r.byName, {
    leaf: 'Category',
    score: 3.0,
    factor: 'name',
    detail: `which ${last} handled it, kept as text: one of the few the system knows, a category`,
  });
}

/** Words that, before a country, make the name the code of a country's row (`codpais`, `code_country`). */
const CODE_OF_WORDS: ReadonlySet<string> = new Set('code cod id key ref reference'.split(' '));
/** Table words of a reference list of countries, where a country's code is the list's own entry. */
const COUNTRY_LIST_WORDS: ReadonlySet<string> = new Set(
  'country countries currency currencies locale language'.split(' '),
);
/**
 * `contacts.country_code varchar`, `addresses.iso_country_alpha2`, `billing_country_code`: the code of the country an
 * address or a person is in, kept as text, is that country (where someone lives), not an entry of a reference list;
 * in a list of countries (`countries.iso2`), or written as the code of a country's row (`codpais`), it stays a code.
 */
function addCountryOfSomeone(r: NameReading): void {
  const { col, table } = r;
  const at = col.indexOf('country');
  if (at < 0 || anyIn(table, COUNTRY_LIST_WORDS)) return;
  // A code written before the country (Romance `codpais`, `code_country`) is the code of a country's row, a reference.
  if (col.slice(0, at).some((w) => CODE_OF_WORDS.has(w))) return;
  const code = r.byName.get('Country code');
  if (code === undefined || typeFamily(r.input.data_type ?? null) !== 'text') return;
  const whose =
    aboutPeopleOrHealth(r) || r.addressColumns.length > 0 || anyIn(table, ADDRESS_WORDS) || anyIn(col, ADDRESS_WORDS);
  if (!whose) return;
  keep(r.byContext, {
    leaf: 'Country',
    score: code.score + 0.4,
    factor: 'context',
    detail: `a country's code on a row about a person or an address: the country they are in`,
  });
}

/** Heads that name money charged or taken off on top of a price. */
const CHARGE_HEADS: ReadonlySet<string> = new Set(
  'tax vat discount shipping surcharge freight postage gratuity'.split(' '),
);
/** Words that make such a head a rate or a share, not the money itself. */
const RATE_WORDS: ReadonlySet<string> = new Set('rate percent percentage pct ratio factor'.split(' '));

/**
 * `OrderTax decimal`, `order_discount numeric(12,2)`, `shipping_incl_tax decimal`: a tax, a discount or a shipping
 * charge kept as a decimal is an amount of money (a rate of it, `tax_rate`, is not; as text a discount may be a code).
 */
function addChargeAmount(r: NameReading): void {
  const { col, last } = r;
  if (last === undefined || !CHARGE_HEADS.has(last) || anyIn(col, RATE_WORDS)) return;
  if (typeFamily(r.input.data_type ?? null) !== 'decimal') return;
  keep(r.byName, {
    leaf: 'Monetary amount',
    score: 3.0,
    factor: 'name',
    detail: `'${last}' at the head of a decimal: an amount of money charged or taken off`,
  });
}

/** Heads that name a length of time. */
const PERIOD_WORDS: ReadonlySet<string> = new Set(
  'days day hours hour minutes minute mins seconds secs weeks months duration period interval'.split(' '),
);
/** Words that make a length of time a bound or a choice someone set rather than one measured. */
const CHOSEN_PERIOD_WORDS: ReadonlySet<string> = new Set(
  'show sync wait auto max maximum min minimum default limit retention retain keep grace timeout expire remind reminder'.split(
    ' ',
  ),
);

/**
 * `topic_show_days`, `sync_past_days`, `WaitTimeDays`, `auto_resolve_duration`, `max_payment_days`: a length of time
 * that bounds or schedules what the system does is a setting someone chose, not a measure (`duration_in_days` of a
 * prescription, `average_duration` are measured).
 */
function addChosenPeriod(r: NameReading): void {
  const { col, n, last } = r;
  if (n < 2 || !PERIOD_WORDS.has(last as string)) return;
  const why = col.slice(0, -1).find((w) => CHOSEN_PERIOD_WORDS.has(w));
  if (why === undefined) return;
  keep(r.byName, {
    leaf: 'Configuration setting',
    score: 3.4,
    factor: 'name',
    detail: `'${why}' before a length of time: a bound or schedule someone set, not a measure`,
  });
}

/** Tables of records kept about money moving: a description there is the record's note, not a catalogue text. */
const TRANSACTION_WORDS: ReadonlySet<string> = new Set(['transaction', 'payment', 'transfer', 'entry', 'ledger']);
/** Heads that describe something in prose. */
const DESCRIPTION_HEADS: ReadonlySet<string> = new Set(['description', 'details', 'desc']);

/** `employees.description`, `transactions.details`: in a table of people or of transactions, a description is a note. */
function addRecordDescription(r: NameReading): void {
  const { col, table, last } = r;
  if (last === undefined || !DESCRIPTION_HEADS.has(last) || col.length > 2) return;
  if (anyIn(col, PRODUCT_WORDS) || anyIn(table, PRODUCT_WORDS)) return;
  const about = table.find((w) => PERSON_WORDS.has(w) || TRANSACTION_WORDS.has(w));
  if (about === undefined) return;
  keep(r.byTable, {
    leaf: 'Internal notes',
    score: 3.6,
    factor: 'table',
    detail: `'${last}' in a table of '${about}': a note about the record, not a product's public text`,
  });
}

/** Substances whose use is a person's health matter, but whose name in a catalogue says what is sold. */
const SUBSTANCE_WORDS: ReadonlySet<string> = new Set(['tobacco', 'alcohol', 'substance']);

/** Words that make what is described a medical matter: a treatment, a therapy, a person's health. */
const MEDICAL_MATTER_WORDS: ReadonlySet<string> = new Set([
  'medical',
  'clinical',
  'treatment',
  'therapy',
  'health',
  'psychological',
  'psychiatric',
]);

/**
 * `allergy_description`, `desc_disease`: a description of a person's condition is what a diagnosis holds;
 * `desc_medication` what a medication holds; `treatment_description`, `desc_tratamento_medico` (a medical matter
 * described) what a diagnosis holds.
 */
function addConditionDescription(r: NameReading): void {
  const { col } = r;
  if (col.length < 2 || !anyIn(col, DESCRIPTION_HEADS)) return;
  const about = col.filter((w) => !DESCRIPTION_HEADS.has(w));
  const matches = r.matcher.match(about);
  const condition =
    matches.find((m) => m.phrase.leaf === 'Diagnosis' && m.phrase.weight >= 2.4) ??
    matches.find((m) => m.phrase.leaf === 'Medication' && m.phrase.weight >= 2.4);
  // A medical matter is a person's only in a table about people or health (`service_catalog.treatment_description`
  // describes what is offered).
  const matter =
    condition === undefined && aboutPeopleOrHealth(r) ? about.find((w) => MEDICAL_MATTER_WORDS.has(w)) : undefined;
  if (condition === undefined && matter === undefined) return;
  const leaf = condition?.phrase.leaf ?? 'Diagnosis';
  keep(r.byName, {
    leaf,
    score: 3.6,
    factor: 'name',
    detail: `a description of '${condition?.phrase.text ?? matter}': what ${leaf === 'Medication' ? 'a medication' : 'a diagnosis'} holds, not a product's text`,
  });
}

/** Tables where people write to each other, beside the mail words: chats and tickets. */
const CORRESPONDENCE_WORDS: ReadonlySet<string> = new Set(['chat', 'ticket', 'conversation', 'inbox']);
/** Words that make a message a system's output (`error_message`, `log_message`, `status_message`). */
const SYSTEM_MESSAGE_WORDS: ReadonlySet<string> = new Set([
  'error',
  'log',
  'exception',
  'status',
  'system',
  'failure',
  'debug',
  'commit',
  'response',
]);

/** `chat_messages.message`, `customer_message.message`: what a person wrote to another, a note, not a log line. */
function addWrittenMessage(r: NameReading): void {
  const { col, table, last } = r;
  if (last !== 'message' || col.length > 2 || anyIn(col, SYSTEM_MESSAGE_WORDS) || anyIn(table, SYSTEM_MESSAGE_WORDS))
    return;
  const about = table.find((w) => MAIL_WORDS.has(w) || CORRESPONDENCE_WORDS.has(w) || PERSON_WORDS.has(w));
  if (about === undefined) {
    // `orders.gift_message text`, `survey_responses.feedback_message text`: a message kept as prose, with no word
    // making it a system's output, is what a person wrote, wherever it is kept.
    if (!LONG_TEXT_TYPE.test(r.input.data_type ?? '')) return;
    keep(r.byName, {
      leaf: 'Internal notes',
      score: 3.0,
      factor: 'name',
      detail: `'message' kept as long text, no word of a system's output: what a person wrote, not a log line`,
    });
    return;
  }
  keep(r.byTable, {
    leaf: 'Internal notes',
    score: 3.0,
    factor: 'table',
    detail: `'message' in a table of '${about}': what a person wrote, not a system's log line`,
  });
}

/** Words after `meta` that keep it the head's subject: `meta_info`, `meta_data`. */
const META_TAILS: ReadonlySet<string> = new Set(['info', 'information', 'data']);

/**
 * `orders.meta_info text`, `media.meta jsonb`, `campaigns.archive_meta jsonb`: `meta` at the head (or before `info`,
 * `data`) is the row's metadata, kept whole as a text or a document: a configuration setting, as `metadata` already
 * is. A word after it names something else (`meta_title`, `meta_description`: what a page shows) and is left alone.
 */
function addMetaBlob(r: NameReading): void {
  const { col, last } = r;
  const at = last === 'meta' ? col.length - 1 : col.length - 2;
  if (col[at] !== 'meta' || (at !== col.length - 1 && !META_TAILS.has(last as string))) return;
  const family = typeFamily(r.input.data_type ?? null);
  if (family !== 'text' && family !== 'json') return;
  keep(r.byName, {
    leaf: 'Configuration setting',
    score: 3.0,
    factor: 'name',
    detail: `'${col.slice(at).join(' ')}' kept whole: the row's metadata, a configuration setting`,
  });
}

/** A text of exactly a uuid's width (36 characters: 32 hex digits and four hyphens). */
const UUID_WIDTH_TYPE =
  /^\s*(n?var)?char(acter)?\s*(varying)?\s*\(\s*36\s*\)|^\s*varchar2\s*\(\s*36\s*\)|max_length\s*=\s*36\b/i;

/**
 * `payees.transfer_acct varchar(36)`, `schedules.rule varchar(36)`: a text exactly a uuid wide, whose name reads as
 * nothing strongly, holds the uuid of another row, a key to it; a name that reads strongly (a bare `token`, `idfa`)
 * keeps its own reading, and the row's own `id` is the record's key. A weak reading gives way (`checkout_token
 * varchar(36)` leans to a key: the uuid of a checkout's row).
 */
function addUuidWideReference(r: NameReading): void {
  if (!UUID_WIDTH_TYPE.test(r.input.data_type ?? '')) return;
  if ([...r.byName.values(), ...r.byTable.values()].some((m) => m.score >= 2.4)) return;
  keep(r.byName, {
    leaf: 'Foreign key',
    score: 2.6,
    factor: 'name',
    detail: `a text exactly a uuid wide (36 characters) that its name does not read otherwise: a key to another row`,
  });
}

/** Heads of a text kept whole: a message, a text. */
const MESSAGE_HEADS: ReadonlySet<string> = new Set(['message', 'text', 'msg']);

/**
 * `send_logs.status_message`, `threads.send_status_text`, `jobs.error_text`: a message or a text named for a system's
 * output (status, error, failure, response …) is what the system reported, a log line; the head says it is a text, the
 * word before it whose. On a row about people (`users.status_message`) it is what the person wrote, and is left alone.
 */
function addSystemMessage(r: NameReading): void {
  const { col, last } = r;
  if (last === undefined || !MESSAGE_HEADS.has(last) || col.length < 2 || aboutPeopleOrHealth(r)) return;
  const whose = col.slice(0, -1).find((w) => SYSTEM_MESSAGE_WORDS.has(w));
  if (whose === undefined || typeFamily(r.input.data_type ?? null) !== 'text') return;
  keep(r.byName, {
    leaf: 'Log message',
    score: 3.0,
    factor: 'name',
    detail: `a ${last} of '${whose}': what the system reported, a log line, not a state or a note`,
  });
}

/** Heads naming the text a person signs their messages with. */
const SIGNATURE_HEADS: ReadonlySet<string> = new Set(['signature', 'sig']);

/**
 * `users.message_signature text`, `phpbb_users.user_sig mediumtext`: a signature kept as prose on a person's row is
 * what the person wrote to sign their messages (internal notes); the words before it (`email`, `message`) only say
 * where it goes. A signature kept elsewhere, or in a bounded string (a cryptographic signature), is left alone.
 */
function addPersonSignature(r: NameReading): void {
  const { last, table } = r;
  if (last === undefined || !SIGNATURE_HEADS.has(last) || !LONG_TEXT_TYPE.test(r.input.data_type ?? '')) return;
  if (!anyIn(table, PERSON_WORDS) && !r.peopleByColumns) return;
  keep(r.byName, {
    leaf: 'Internal notes',
    score: 3.4,
    factor: 'name',
    detail: `'${last}' kept as long text on a person's row: what the person wrote to sign with`,
  });
}

/** Declared types of long prose: `text`, `mediumtext`, Django's `TextField`, `clob`, `nvarchar(max)`. */
const LONG_TEXT_TYPE = /^\s*((tiny|medium|long)?text|textfield|n?clob|n?varchar\s*\(\s*max\s*\))\b/i;

/** Table words of an audit trail: each row records a change. */
const AUDIT_WORDS: ReadonlySet<string> = new Set(['audit', 'audits', 'changelog']);

/** `audits.audited_changes jsonb`, `audit_trail.details json`: a document in an audit table is the record of a change. */
function addAuditRecord(r: NameReading): void {
  if (typeFamily(r.input.data_type ?? null) !== 'json' || !anyIn(r.table, AUDIT_WORDS)) return;
  keep(r.byTable, {
    leaf: 'Log message',
    score: 3.0,
    factor: 'table',
    detail: `a document in an audit table (table '${r.table.join(' ')}'): the record of a change, not a setting`,
  });
}

/** The table name completes generic column names: invoices.number, orders.ref, cards.expiry, patients.weight. */
function addTableCompletion(r: NameReading): void {
  const { col, table, structural, first, last } = r;
  if (table.length > 0 && r.n > 0) {
    const colSet = new Set(col);
    for (const m of r.matcher.match([...table, ...col])) {
      if (m.phrase.words.length < 2) continue;
      let usesCol = false;
      let usesTable = false;
      for (const w of m.phrase.words) {
        if (colSet.has(w)) usesCol = true;
        else usesTable = true;
      }
      if (!usesCol || !usesTable) continue;
      let score = m.phrase.weight * 0.82 * (m.coversLast ? 1 : 0.7);
      if (structural !== null && !m.phrase.words.includes(structural === 'flag' ? (first as string) : (last as string)))
        score *= 0.35;
      keep(r.byTable, {
        leaf: m.phrase.leaf,
        score,
        factor: 'table',
        detail: `table ${quoteWords(table)} with column ${quoteWords(col)} reads as '${m.phrase.text}'`,
      });
    }
  }
  // `patients.subscriber_id`, `claims.member_no`: in a health table the member's id is the insurance number.
  if (
    (structural === null || structural === 'key') &&
    anyIn(table, HEALTH_WORDS) &&
    anyIn(col, new Set(['member', 'insurance', 'subscriber', 'insured']))
  ) {
    keep(r.byTable, {
      leaf: 'Health insurance number',
      score: 4.0,
      factor: 'table',
      detail: `member or insurance number in a health table`,
    });
  }
}

/** Context words that settle well-known ambiguities: a region, mail recipients, a card's expiry or code, a body measure. */
function addAmbiguityContext(r: NameReading): void {
  const { col, table, n, last } = r;
  const all = [...table, ...col];
  if ((col.includes('state') || col.includes('province')) && anyIn(all, ADDRESS_WORDS)) {
    keep(r.byTable, {
      leaf: 'Approximate location',
      score: 4.0,
      factor: 'table',
      detail: `'state' next to address words: a region, not a status`,
    });
  } else if (
    (n === 1 && (REGION_WORDS.has(last as string) || last === 'zone') && r.addressColumns.length > 0) ||
    (n >= 2 && REGION_WORDS.has(last as string) && sharesAddressPrefix(r))
  ) {
    // `addresses.zone` beside `street_address`, `district`; `subscriber_state` beside `subscriber_city`: the region of
    // the address the other columns hold.
    keep(r.byContext, {
      leaf: 'Approximate location',
      score: 4.0,
      factor: 'context',
      detail: `'${last}' among columns ${quoteColumns(r.addressColumns)}: a region of an address, not a status`,
    });
  }
  // `tax_state`, `work_state`, `birth_state`: the state a tax, a job or a birth belongs to is a region, not a status
  // (read on the whole name: `tax_` before every column of `emp_us_tax` is a namespace, yet still whose state it is).
  const whose = n >= 2 ? col : r.matcher.words(r.rawField);
  if (last === 'state' && whose.length >= 2 && anyIn(whose, JURISDICTION_WORDS)) {
    keep(r.byName, {
      leaf: 'Approximate location',
      score: 4.0,
      factor: 'name',
      detail: `'state' of ${quoteWords(whose.slice(0, -1))}: the region it belongs to, not a status`,
    });
  }
  // `threads.cc`, `messages.to`, `emails.bcc`: in a table of mail the recipients are addresses, not a card.
  if (
    n === 1 &&
    (last === 'cc' || last === 'bcc' || last === 'to' || last === 'recipients') &&
    anyIn(table, MAIL_WORDS)
  ) {
    keep(r.byTable, {
      leaf: 'Email address',
      score: 4.0,
      factor: 'table',
      detail: `'${last}' in a table of mail or messages: recipients' addresses`,
    });
  }
  if ((col.includes('expiry') || col.includes('expiration') || col.includes('expires')) && anyIn(all, CARD_WORDS)) {
    keep(r.byTable, {
      leaf: 'Card expiry date',
      score: 4.6,
      factor: 'table',
      detail: `expiry in a payment card context`,
    });
  }
  if (
    (col.includes('code') || col.includes('security') || col.includes('verification')) &&
    anyIn(col, new Set(['security', 'verification', 'cvv'])) &&
    anyIn(all, CARD_WORDS)
  ) {
    keep(r.byTable, {
      leaf: 'Card verification code',
      score: 4.6,
      factor: 'table',
      detail: `security code in a payment card context`,
    });
  }
  // A table named for two body measures (`child_height_weight`) keeps a person's measurements, as a health table does.
  const bodyTable = table.filter((w) => BODY_MEASURES.has(w)).length >= 2;
  if ((anyIn(table, HEALTH_WORDS) || bodyTable) && anyIn(col, BODY_MEASURES)) {
    keep(r.byTable, {
      leaf: 'Clinical measurement',
      score: 4.0,
      factor: 'table',
      detail: bodyTable ? `body measurement in a table of body measures` : `body measurement in a health table`,
    });
  }
}

/** Heads that name a region (of an address, beside its other parts) or a status (elsewhere). */
const REGION_WORDS: ReadonlySet<string> = new Set(['state', 'province', 'county', 'region']);

/** `subscriber_state` beside `subscriber_city`: an address part among the table's columns shares the name's prefix. */
function sharesAddressPrefix(r: NameReading): boolean {
  const cut = r.rawField.lastIndexOf('_');
  if (cut <= 0) return false;
  const prefix = r.rawField.slice(0, cut + 1).toLowerCase();
  return r.addressColumns.some((c) => c.toLowerCase().startsWith(prefix));
}

/** Words whose `state` is a region: where a tax is due, a job is done, a person was born or lives. */
const JURISDICTION_WORDS: ReadonlySet<string> = new Set([
  'tax',
  'work',
  'employer',
  'birth',
  'residence',
  'resident',
  'issuing',
  'unemployment',
]);

/** Measures taken of a person's body. */
const BODY_MEASURES: ReadonlySet<string> = new Set(['weight', 'height', 'temperature', 'pulse', 'pressure', 'bmi']);

/** In a table of people: a photo or fingerprint is theirs, a rating is a performance rating, a position a job title. */
function addPeopleContext(r: NameReading): void {
  const { col, table } = r;
  // A photo or a fingerprint in a table of people is theirs (`staff.picture`, `members.fingerprint`); a product's
  // picture stays a file, a path or URL to it is read by its head, a device's or a key's fingerprint is a hash.
  const peopleByTable = anyIn(table, PERSON_WORDS);
  const map = peopleByTable ? r.byTable : r.byContext;
  const factor = peopleByTable ? 'table' : 'context';
  const where = peopleByTable ? 'in a table of people' : `beside ${quoteColumns(r.personColumns)}`;
  // `users.photo_url`, `user.imageUrl`: the web address a person's photo is shown from is that photo, as a reviewer
  // sees it (a path or a file name stays a file reference, an avatar a URL: an avatar is as often a drawing).
  if (
    (peopleByTable || (r.peopleByColumns && !anyIn(table, PRODUCT_WORDS))) &&
    r.last === 'url' &&
    col.length <= 3 &&
    col.slice(0, -1).every((w) => PHOTO_WORDS.has(w) || w === 'profile') &&
    anyIn(col, PHOTO_WORDS)
  ) {
    keep(map, {
      leaf: 'Photo of a person',
      score: 4.0,
      factor,
      detail: `the address of a photo ${where}: a picture of a person`,
    });
  }
  if ((peopleByTable || (r.peopleByColumns && !anyIn(table, PRODUCT_WORDS))) && !anyIn(col, NOT_THE_IMAGE_ITSELF)) {
    if (anyIn(col, PHOTO_WORDS))
      keep(map, { leaf: 'Photo of a person', score: 4.0, factor, detail: `photo ${where}: a picture of a person` });
    else if (
      col.includes('fingerprint') &&
      !anyIn(
        col,
        new Set([
          'device',
          'browser',
          'key',
          'cert',
          'certificate',
          'ssh',
          'gpg',
          'pgp',
          'tls',
          'public',
          'hash',
          'file',
          'content',
        ]),
      )
    ) {
      keep(map, {
        leaf: 'Biometric template',
        score: 4.0,
        factor,
        detail: `fingerprint ${where}: a biometric template`,
      });
    }
  }
  // `User.Key`, `user.hash`: a bare key or hash in a table named for people is theirs, a secret (the key that unlocks
  // their data, the hash of their password), not a setting's name or a file's checksum.
  if (peopleByTable && col.length === 1 && (r.last === 'key' || r.last === 'hash')) {
    keep(r.byTable, {
      leaf: r.last === 'key' ? 'API key or token' : 'Password hash',
      score: 3.6,
      factor: 'table',
      detail: `a bare '${r.last}' in a table of people: their secret, not a setting or a checksum`,
    });
  }
  // `patient_data.ss`, `insurance_data.subscriber_ss`: in a table of people, `ss` kept as text is a social security
  // number (elsewhere it is as often seconds).
  if (
    (peopleByTable || r.peopleByColumns) &&
    r.last === 'ss' &&
    col.length <= 2 &&
    typeFamily(r.input.data_type ?? null) === 'text'
  ) {
    keep(map, { leaf: 'National ID number', score: 4.0, factor, detail: `'ss' ${where}: a social security number` });
  }
  // `person_documents.num_livro` beside `rg`, `passport`: in a table of a person's identity documents each number is a
  // document's number (a table of documents without a person's particulars, a file store's, is left alone).
  if (
    r.table[r.table.length - 1] === 'document' &&
    r.peopleByColumns &&
    col.length <= 3 &&
    anyIn(col, new Set(['number', 'num', 'no', 'nr'])) &&
    !anyIn(col, new Set(['count', 'cnt', 'total', 'page', 'pages', 'version']))
  ) {
    keep(r.byContext, {
      leaf: 'National ID number',
      score: 4.0,
      factor: 'context',
      detail: `a number in a table of identity documents beside ${quoteColumns(r.personColumns)}: a document's number`,
    });
  }
  // `users.document_number`, `clientes.numero_documento`: the number of a person's identity document, in a table of
  // people (`invoices.document_number` is an invoice's).
  if (
    (peopleByTable || r.peopleByColumns) &&
    col.length <= 3 &&
    col.includes('document') &&
    anyIn(col, COUNT_HEADS) &&
    !anyIn(col, new Set(['count', 'cnt', 'total', 'type']))
  ) {
    keep(map, {
      leaf: 'National ID number',
      score: 4.0,
      factor,
      detail: `a document's number ${where}: the number of a person's identity document`,
    });
  }
  if (
    anyIn(table, PERSON_WORDS) &&
    anyIn(col, new Set(['rating', 'score', 'grade'])) &&
    !anyIn(col, new Set(['credit', 'pay', 'risk']))
  ) {
    keep(r.byTable, {
      leaf: 'Performance rating',
      score: 3.4,
      factor: 'table',
      detail: `rating of a person in a table of people`,
    });
  }
  if (
    anyIn(table, new Set(['employee', 'staff', 'personnel', 'worker', 'hr', 'candidate', 'applicant'])) &&
    (anyIn(col, new Set(['position', 'title', 'role', 'grade'])) ||
      (col.includes('level') && col.every((w) => w === 'level' || PERSON_WORDS.has(w)))) &&
    !col.includes('pay')
  ) {
    keep(r.byTable, {
      leaf: 'Job title',
      score: 3.8,
      factor: 'table',
      detail: `position or title in an employee table`,
    });
  }
}

/**
 * `inactive_reason tinyint`, `closureReason: CodeValue`: a reason kept as a number or a reference to a list of values is
 * one of a fixed set of reasons, a category; kept as text it may be a note someone wrote and is left to the phrases.
 */
function addReasonCode(r: NameReading): void {
  if (r.last !== 'reason') return;
  const type = r.input.data_type ?? null;
  if (typeFamily(type) !== 'integer' && declaredClass(type) === null) return;
  keep(r.byName, {
    leaf: 'Category',
    score: 3.2,
    factor: 'name',
    detail: `a reason kept as ${typeFamily(type) === 'integer' ? 'a number' : 'a reference to a list'}: one of a fixed set of reasons`,
  });
}

/** Person words that, alone as a column, hold something else: contact details, a profile, a login, a count. */
const NOT_A_PERSONS_NAME: ReadonlySet<string> = new Set([
  'user',
  'contact',
  'emergency',
  'profile',
  'people',
  'individual',
  'lead',
]);

/**
 * `students.guardian varchar(100)`, `encounters.physician varchar(80)`: a bare word for a person, kept as text in a table
 * about people or health, holds that person's name (a number or a reference type is a key; a bare `contact` holds
 * contact details, `user` a login name).
 */
function addPersonByName(r: NameReading): void {
  const last = r.last as string;
  if (r.n !== 1 || !PERSON_WORDS.has(last) || NOT_A_PERSONS_NAME.has(last) || r.table.includes(last)) return;
  const type = r.input.data_type ?? null;
  if (typeFamily(type) !== 'text' || declaredClass(type) !== null || SHORT_CODE_TYPE.test(type ?? '')) return;
  if (!aboutPeopleOrHealth(r)) return;
  keep(r.byTable, {
    leaf: 'Full name',
    score: 3.0,
    factor: 'table',
    detail: `a bare '${r.last}' kept as text in a table about people: that person's name`,
  });
}

/**
 * `pnotes.user varchar`, `payments.user text`: a bare `user` kept as text holds who it was by the name they log in
 * with (a username); kept as a number, a uuid, an ObjectId or a reference type it is a key to the user's row.
 */
function addUserByName(r: NameReading): void {
  if (r.n !== 1 || r.last !== 'user' || r.rawField.toLowerCase() !== 'user') return;
  const type = r.input.data_type ?? null;
  if (typeFamily(type) !== 'text' || declaredClass(type) !== null || /object\s*id/i.test(type ?? '')) return;
  keep(r.byName, {
    leaf: 'Username',
    score: 3.0,
    factor: 'name',
    detail: `a bare 'user' kept as text: the name the user logs in with, not a key to their row`,
  });
}

/**
 * `patient: Link`, `customer: Customer`: a bare word for a person typed by a reference (a Frappe link, an entity class)
 * is a key to that person's row, not a number the person holds (`patient` alone reads as a medical record number).
 * From 1.5.8 a bare word for an organisation too (`company: Link`, `supplier: Supplier`): a key to its row, not its name.
 */
function addPersonReference(r: NameReading): void {
  if (r.n !== 1 || !(PERSON_WORDS.has(r.last as string) || ORG_WORDS.has(r.last as string))) return;
  if (declaredClass(r.input.data_type ?? null)?.kind !== 'entity') return;
  keep(r.byName, {
    leaf: 'Foreign key',
    score: 3.6,
    factor: 'name',
    detail: `'${r.last}' typed by a reference: a key to that person's row`,
  });
}

/** Nouns for who did something to a row: the poster of a topic, the editor of a page. */
const AGENT_WORDS: ReadonlySet<string> = new Set(
  'poster bumper creator editor modifier updater uploader submitter reporter moderator operator seller purchaser organizer organiser'.split(
    ' ',
  ),
);
/**
 * `topics.topic_poster int`, `pages.editor bigint`: who did something, named at the head of a whole number, is a key to
 * that person's row, not a measure (`posters int` counts them). Person words in general (`customer`, `manager`) were
 * tried in 1.5.7 and not kept (docs/benchmarks.md).
 */
function addAgentKey(r: NameReading): void {
  const last = r.last as string;
  if (r.n > 2 || !AGENT_WORDS.has(last)) return;
  if (typeFamily(r.input.data_type ?? null) !== 'integer' || r.table.includes(last)) return;
  // A plural counts people (`posters`, `editors`); one person is pointed to.
  if (writtenAsPlural(r)) return;
  keep(r.byName, {
    leaf: 'Foreign key',
    score: 3.4,
    factor: 'name',
    detail: `'${last}' as a whole number: a key to that person's row, not a measure`,
  });
}

/** A settings table makes a contact detail a configured value; the comment's phrases count less than the name's. */
function addSettingsAndComment(r: NameReading): void {
  const { table } = r;
  // A contact detail in a table of the system's own settings (`smtp_config.from_email`) is a configured value, such
  // as a sender address, not a person's: unless the table names people (`user_settings`), where it is theirs.
  const tableHead = table[table.length - 1];
  if (tableHead !== undefined && CONFIG_TABLE_WORDS.has(tableHead) && !anyIn(table, PERSON_WORDS)) {
    const contact = [...r.byName.values()]
      .filter((m) => CONTACT_LEAVES.has(m.leaf))
      .sort((a, b) => b.score - a.score)[0];
    if (contact)
      keep(r.byTable, {
        leaf: 'Configuration setting',
        score: contact.score + 0.6,
        factor: 'table',
        detail: `${contact.leaf.toLowerCase()} in settings table ${quoteWords(table)}: a configured value, not a person's`,
      });
  }
  if (r.input.comment) {
    const words = r.matcher.words(r.input.comment.slice(0, 300)).filter((w) => !COMMENT_STOP.has(w));
    for (const m of r.matcher.match(words)) {
      const score = m.phrase.weight * 0.6 * (m.phrase.words.length > 1 ? 1 : 0.85);
      keep(r.byComment, {
        leaf: m.phrase.leaf,
        score,
        factor: 'comment',
        detail: `comment mentions '${m.phrase.text}'`,
      });
    }
  }
}

/**
 * Scores each default-taxonomy leaf the name, table and comment point to. Returns one best match per leaf and
 * factor; the column name weighs most, the table name resolves generic columns (`name`, `number`, `code`),
 * the comment counts less.
 */
export function nameEvidence(
  matcher: NameMatcher,
  input: NameEvidenceInput,
): { matches: NameMatch[]; columnWords: string[]; tableWords: string[] } {
  const r = readName(matcher, input);
  addPhraseMatches(r);
  addStructuralEvidence(r);
  addGenericHeadEvidence(r);
  addTableCompletion(r);
  if (r.structural === null) {
    addAmbiguityContext(r);
    addPeopleContext(r);
    addRecordDescription(r);
    addConditionDescription(r);
    addWrittenMessage(r);
    addSystemMessage(r);
    addPersonSignature(r);
    addAuditRecord(r);
    addLastEventTime(r);
    addRevisionTime(r);
    addBooleanSwitch(r);
    addArrangementOrder(r);
    addUserByName(r);
    addPersonReference(r);
    addAgentKey(r);
    addChosenPeriod(r);
    addChargeAmount(r);
    addPersonByName(r);
    addReasonCode(r);
    addServiceName(r);
    addCountryOfSomeone(r);
    addMetaBlob(r);
    addUuidWideReference(r);
  }
  addSortChoice(r);
  addSettingsAndComment(r);
  return {
    matches: [...r.byName.values(), ...r.byTable.values(), ...r.byComment.values(), ...r.byContext.values()],
    columnWords: r.col,
    tableWords: r.table,
  };
}
