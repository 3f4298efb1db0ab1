// The one abbreviation lexicon of schema names, read by the embedder's tokenizer (src/embeddings) and by the
// classifier's name evidence (src/modules/classifier). Every word of an expansion must exist in the shipped vector
// file (assets/word-vectors-100d.bin): scripts/condense-word-vectors.ts forces them into its vocabulary through
// `lexiconWords()`, and test/text/abbreviations.test.ts checks the shipped file holds them.

/**
 * Abbreviation → expansion (space-separated English words).
 * A leading '!' marks an abbreviation that is also an ordinary English word (`no`, `cat`, `pan`):
 * the embedder expands it inside identifiers only, never in free text such as comments.
 * One canonical form per meaning: singular nouns (`custs` → customer) but plural durations (`yrs` → years, which
 * the classifier reads as a measure, not a date); the word spelled out (`tel` → telephone, which the classifier's
 * phone rule names as it names `phone`). Ambiguous abbreviations are left out (`ext`: extension or external,
 * `ln`: last name or line, `ht`: height or the French hors taxes, `pay`, `mail`).
 */
export const ABBREVIATIONS: Readonly<Record<string, string>> = {
  // identity and keys
  id: 'id', ids: 'id', uid: 'user id', guid: 'unique id', uuid: 'unique id', pk: 'primary key', fk: 'foreign key',
  ref: 'reference', refs: 'reference', seq: 'sequence', idx: 'index',
  // people
  dob: 'birth date', bday: 'birthday', bdate: 'birth date', ssn: 'social security number',
  sin: '!social insurance number', nin: 'national insurance number', tin: '!tax identification number',
  ein: 'employer identification number', nm: '!name', fname: 'first name', lname: 'last name', mname: 'middle name',
  fn: '!first name', gndr: 'gender', nat: '!nationality', natl: 'national',
  cust: 'customer', custs: 'customer', usr: 'user', usrs: 'user', emp: 'employee', empl: 'employee', mgr: 'manager',
  stu: 'student', pt: '!patient', pat: '!patient', hh: 'household', hhld: 'household', mrn: 'medical record number',
  dx: 'diagnosis', rx: 'prescription', wt: '!weight', sal: '!salary', ppn: 'passport number',
  dl: '!driver license', lic: 'license', licence: 'license',
  // contact
  addr: 'address', adr: 'address', tel: 'telephone', tele: 'telephone',
  ph: '!phone', phn: 'phone', phon: 'phone', mob: '!mobile', mobi: 'mobile', cel: 'cell phone', eml: 'email',
  zip: 'zip postal code', zipcode: 'zip postal code', postcode: 'postal code', plz: 'postal code',
  ctry: 'country', cntry: 'country', cty: 'city', prov: 'province', st: '!state', str: '!street',
  lat: 'latitude', lng: 'longitude', lon: 'longitude', loc: 'location', geo: 'geographic',
  // auth and technical
  pwd: 'password', passwd: 'password', pw: 'password', pswd: 'password', auth: 'authentication',
  sess: 'session', tok: 'token', ua: 'user agent', ip: 'ip address', ipv4: 'ip address', ipv6: 'ip address',
  md5: 'hash', sha1: 'hash', sha256: 'hash', sha512: 'hash', base64: 'encoded', utf8: 'text', uri: 'url',
  msg: 'message', msgs: 'message', cfg: 'configuration', conf: '!configuration', config: 'configuration',
  env: 'environment', sys: 'system', svc: 'service', app: '!application', ver: 'version', rev: '!revision',
  src: 'source', dst: 'destination', dest: 'destination', req: 'request', resp: 'response', img: 'image',
  pic: 'picture', doc: '!document', docs: '!document', attr: 'attribute', attrs: 'attribute', val: '!value',
  vals: 'value', info: 'information', pref: 'preference', prefs: 'preference', lang: 'language', stat: '!status',
  sts: 'status', flg: 'flag', ind: '!indicator', desc: '!description', descr: 'description',
  cmt: 'comment', rmk: 'remark', rmks: 'remark', nt: '!note', txt: 'text',
  // organisation
  org: 'organization', orgs: 'organization', dept: 'department', dep: '!department', div: '!division',
  co: '!company', corp: 'company', biz: 'business', grp: 'group', prj: 'project', proj: 'project',
  // money and commerce
  acct: 'account', acc: '!account', accts: 'account', amt: 'amount', amnt: 'amount', bal: 'balance',
  ccy: 'currency', cur: '!currency', curr: 'currency', iban: 'bank account number', bic: 'bank code',
  swift: '!bank code', bnk: 'bank', txn: 'transaction', trx: 'transaction', tx: '!transaction',
  trans: '!transaction', inv: '!invoice', ord: '!order', prod: '!product', sku: 'product code', cat: '!category',
  qty: 'quantity', cnt: 'count', pct: 'percent', perc: 'percent', avg: 'average', tot: '!total', ttl: 'total',
  prc: 'price', vat: 'vat tax', cc: '!credit card', ccn: 'credit card number', cvv: 'card verification code',
  cvc: 'card verification code', pan: '!card number', pymt: 'payment', pmt: 'payment',
  ins: '!insurance', pol: '!policy', clm: 'claim', whse: 'warehouse', wh: '!warehouse',
  // numbers, codes, flags
  no: '!number', nbr: 'number', nmbr: 'number', num: 'number', nr: 'number', cd: '!code', typ: 'type',
  // time
  dt: '!date', dte: 'date', dttm: 'date time', ts: 'time', tstamp: 'time', tm: '!time', yr: 'year',
  yrs: 'years', mth: 'month', mon: '!month', wk: 'week', hr: '!hour', hrs: 'hours', dur: 'duration',
  crt: 'created', upd: 'updated', mod: '!modified', del: '!deleted', exp: '!expiry',
  // legacy and warehouse run-togethers (EMPNO, CUSTNM, BRTHDT) and shorter spellings
  nme: 'name', nam: '!name', fnm: 'first name', fstnm: 'first name', fst: '!first', frst: 'first', lnm: 'last name',
  lstnm: 'last name', lst: '!last', surnm: 'surname', mnm: 'middle name', fullnm: 'full name', brth: 'birth',
  brthdt: 'birth date', bdt: 'birth date', birthdt: 'birth date', dtob: 'birth date', sx: 'sex',
  socsec: 'social security', natid: 'national id', nid: 'national id', adrs: 'address', addrs: 'address',
  addr1: 'address', addr2: 'address', strt: 'street', telno: 'phone number', phne: 'phone', mobl: 'mobile',
  emal: 'email', emailaddr: 'email address', zipcd: 'zip postal code', pstcd: 'postal code', pcode: 'postal code',
  postcd: 'postal code', cnty: 'county', ipaddr: 'ip address', ipadr: 'ip address', usrnm: 'username',
  uname: 'username', userid: 'user id', pword: 'password', pwhash: 'password hash', apikey: 'api key',
  secr: 'secret', cus: '!customer', clnt: 'client', empno: 'employee number', empid: 'employee id', accnt: 'account',
  acctno: 'account number', ccnum: 'card number', expdt: 'expiry date', pobox: 'po box', qnty: 'quantity',
  itm: 'item', comp: '!company', nro: 'number', nu: '!number', cde: 'code', tp: '!type', dat: '!date',
  cre: 'created', crtd: 'created', updt: 'updated', modt: 'modified', chg: 'changed', stts: 'status', yn: 'flag',
  dsc: 'description', cmnt: 'comment', nte: 'note', err: '!error', param: 'parameter', params: 'parameter',
  vers: 'version', ct: '!count', diag: 'diagnosis', med: '!medication', meds: 'medication', insur: 'insurance',
  ppt: 'passport', pp: '!passport', refno: 'reference number', catg: 'category', cls: 'class', trk: 'tracking',
  coord: 'coordinates', coords: 'coordinates', hsh: 'hash', chk: '!check', hgt: 'height', bp: '!blood pressure',
  lastupd: 'last updated', lmd: 'last modified', upddt: 'updated date', crtdt: 'created date', crdt: 'created date',
  insdt: 'inserted date', nick: '!nickname', reg: '!registration', mrchnt: 'merchant', cntct: 'contact',
  emrg: 'emergency', emerg: 'emergency', rtng: 'routing', brnch: 'branch', crd: '!credit', scr: '!score',
  seg: '!segment', cod: '!code',
};

/**
 * Abbreviations that are themselves the standard term for what they abbreviate (`ssn`, `iban`, `cvv`, `uuid`), or
 * whose standard term is one run-together word (`ts` → timestamp): abbreviation → that term, for readers that match
 * terms (the classifier's phrase rules name `ssn` and `timestamp`). The vector file lacks such terms or holds poor
 * vectors of them, so the embedder reads the plain words of `ABBREVIATIONS` instead (`ssn` → social security number).
 * `hr` is read as written by term readers: an `hr_` table is human resources (measured: expanding it to `hour`
 * cost the classifier 0.6 point on hr-orangehrm, while the embedder's `hour` reading measures better than none).
 */
export const TERMS: Readonly<Record<string, string>> = {
  uid: 'uid', guid: 'guid', uuid: 'uuid', pk: 'pk', fk: 'fk', ssn: 'ssn', sin: 'sin', mrn: 'mrn', dl: 'dl',
  zip: 'zip', zipcode: 'zip', postcode: 'postcode', plz: 'postcode', geo: 'geo', ip: 'ip', ipv4: 'ip', ipv6: 'ip',
  cfg: 'config', conf: 'config', iban: 'iban', bic: 'bic', sku: 'sku', cc: 'cc', cvv: 'cvv', cvc: 'cvv',
  dttm: 'datetime', ts: 'timestamp', tstamp: 'timestamp', ssno: 'ssn', nino: 'nino', cvv2: 'cvv', csc: 'cvv',
  po: 'po', tmstmp: 'timestamp', uom: 'uom', oid: 'oid', tz: 'timezone', awb: 'waybill', mac: 'mac',
  chksum: 'checksum', crc: 'checksum', bmi: 'bmi', dtm: 'datetime', cid: 'cvv', tzname: 'tz name', config: 'config',
  hr: 'hr', zipcd: 'zip', pstcd: 'postcode', pcode: 'postcode', postcd: 'postcode',
};

/** Every word the abbreviations expand to (the vector file must hold them). */
export function abbreviationWords(): string[] {
  const out = new Set<string>();
  for (const v of Object.values(ABBREVIATIONS)) for (const w of v.replace(/^!/, '').split(' ')) if (w) out.add(w);
  return [...out].sort();
}
