import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatFingerprint, summarizeValues } from '../../../src/modules/classifier/detectors.js';
import {
  detectValueKind,
  isBrazilCpf,
  isCanadianSin,
  isCardNumber,
  isDutchBsn,
  isFrenchNir,
  isGermanTaxId,
  isFilePath,
  isIban,
  isMaritalStatus,
  isPortugueseNif,
  isSequentialDigits,
  isSpanishDni,
  isTimeZone,
  isUkNino,
  isUsSsn,
  luhnValid,
} from '../../../src/text/value-kinds.js';

test('card numbers: brand range, length, Luhn and no test sequences', () => {
  assert.equal(isCardNumber('4539578763621486'), true);
  assert.equal(isCardNumber('4539 5787 6362 1486'), true, 'spaces allowed');
  assert.equal(isCardNumber('4539-5787-6362-1486'), true, 'dashes allowed');
  assert.equal(isCardNumber('4539578763621487'), false, 'Luhn fails');
  assert.equal(isCardNumber('1234567812345678'), false, 'sequential and no brand');
  assert.equal(luhnValid('4242424242424242'), true);
  assert.equal(isCardNumber('4242424242424242'), false, 'Luhn-valid but a repeated block');
  assert.equal(isSequentialDigits('1234567812345678'), true);
  assert.equal(isSequentialDigits('0000000000000000'), true);
  assert.equal(isCardNumber('1609459200000'), false, 'epoch milliseconds are no card');
  assert.equal(isCardNumber('45395787636214'), false, 'Visa needs 13, 16 or 19 digits');
  assert.equal(isCardNumber('371449635398431'), true, 'American Express, 15 digits');
});

test('IBAN: country length and mod-97 checksum', () => {
  assert.equal(isIban('DE89370400440532013000'), true);
  assert.equal(isIban('DE89 3704 0044 0532 0130 00'), true);
  assert.equal(isIban('DE89370400440532013001'), false, 'bad checksum');
  assert.equal(isIban('GB82WEST12345698765432'), true);
  assert.equal(isIban('DE8937040044053201300'), false, 'wrong length for DE');
});

test('US SSN shape rules', () => {
  assert.equal(isUsSsn('489-36-8350'), true);
  assert.equal(isUsSsn('000-12-3456'), false, 'area 000');
  assert.equal(isUsSsn('666-12-3456'), false, 'area 666');
  assert.equal(isUsSsn('912-12-3456'), false, 'area 9xx');
  assert.equal(isUsSsn('123-00-4567'), false, 'group 00');
  assert.equal(isUsSsn('123-45-0000'), false, 'serial 0000');
  assert.equal(isUsSsn('123456789'), false, 'only the printed shape counts');
});

test('national ids with check digits', () => {
  assert.equal(isSpanishDni('12345678Z'), true);
  assert.equal(isSpanishDni('12345678A'), false);
  assert.equal(isBrazilCpf('529.982.247-25'), true);
  assert.equal(isBrazilCpf('529.982.247-26'), false);
  assert.equal(isBrazilCpf('111.111.111-11'), false, 'one repeated digit');
  assert.equal(isDutchBsn('111222333'), true);
  assert.equal(isDutchBsn('111222334'), false);
  assert.equal(isFrenchNir('185057800608491'), true);
  assert.equal(isFrenchNir('185057800608492'), false);
  assert.equal(isUkNino('AB123456C'), true);
  assert.equal(isUkNino('BG123456A'), false, 'BG is never issued');
  assert.equal(isCanadianSin('130 692 544'), true);
  assert.equal(isCanadianSin('130 692 545'), false);
  assert.equal(isCanadianSin('046 454 286'), false, 'SINs starting with 0 are never issued');
  assert.equal(isGermanTaxId('86095742719'), true);
  assert.equal(isGermanTaxId('86095742718'), false);
  assert.equal(isPortugueseNif('123456789'), true);
  assert.equal(isPortugueseNif('123456780'), false);
});

test('detectValueKind names each format, and only the right one', () => {
  const cases: Array<[string, string]> = [
    ['maria.garcia@test.org', 'email'],
    ['not an email@', 'other'],
    ['+49 30 1234567', 'phone'],
    ['(415) 555-2671', 'phone'],
    ['4155552671', 'digits'],
    ['4539578763621486', 'card_number'],
    ['DE89370400440532013000', 'iban'],
    ['192.168.10.4', 'ipv4'],
    ['2001:db8::ff00:42:8329', 'ipv6'],
    ['3f2504e0-4f89-41d3-9a0c-0305e82c3301', 'uuid'],
    ['2024-02-29', 'date'],
    ['2024-02-29T10:15:00Z', 'datetime'],
    ['489-36-8350', 'us_ssn'],
    ['https://example.com/a?b=1', 'url'],
    ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXNpZ25hdHVyZQ', 'jwt'],
    ['sk_live_4eC39HqLyjWDarjtT1zdp7dc', 'api_key'],
    ['AKIAIOSFODNN7EXAMPLE', 'api_key'],
    ['$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW', 'password_hash'],
    ['$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG', 'password_hash'],
    ['5d41402abc4b2a76b9719d911017c592', 'hex_hash'],
    ['52.520008', 'coordinate'],
    ['52.520008, 13.404954', 'coordinate_pair'],
    ['SW1A 1AA', 'postal_code'],
    ['1012 AB', 'postal_code'],
    ['true', 'boolean'],
    ['F', 'gender_code'],
    ['EUR', 'currency_code'],
    ['FR', 'country_code'],
    ['NY', 'us_state'],
    ['The parcel was left with the neighbour after two attempts.', 'free_text'],
  ];
  for (const [v, kind] of cases) assert.equal(detectValueKind(v), kind, v);
  assert.notEqual(detectValueKind('999.1.1.1'), 'ipv4', 'octets above 255');
  assert.notEqual(detectValueKind('2024-13-01'), 'date', 'month 13');
  const invalid: Array<[string, string]> = [
    ['eyJub3Q.a-jwt', 'jwt'],
    ['htp:/example', 'url'],
    ['3f2504e0-4f89-41d3-9a0c-0305e82c330', 'uuid'],
    ['523.520008', 'coordinate'],
    ['555-1234', 'phone'],
    ['sk_live_short', 'api_key'],
    ['5d41402abc4b2a76b9719d911017c59', 'hex_hash'],
    ['$2b$12$tooshort', 'password_hash'],
    ['ZZ', 'country_code'],
    ['ABC', 'currency_code'],
  ];
  for (const [v, kind] of invalid) assert.notEqual(detectValueKind(v), kind, v);
});

test('majority rule over non-null samples', () => {
  const mostly = summarizeValues(['a@b.com', 'c@d.org', null, '', 'NULL', 'e@f.net', 'hello']);
  assert.equal(mostly.considered, 4, 'nulls and empty strings are not counted');
  assert.equal(mostly.majority, 'email');
  const split = summarizeValues(['a@b.com', 'c@d.org', 'x', 'y', 'z']);
  assert.equal(split.majority, null, 'two of five is no majority');
  assert.equal(summarizeValues([]).considered, 0);
  assert.equal(summarizeValues([1, 2, 3]).majority, 'integer');
  assert.equal(summarizeValues([true, false]).majority, 'boolean');
});

test('formatFingerprint is built from kind names only, never from values', () => {
  const samples = ['zelda.secret@example.com', 'otto.hidden@example.org', '+49 30 7654321'];
  const fp = formatFingerprint(samples) as string;
  assert.equal(fp, 'email:0.7,phone:0.3');
  for (const s of samples) assert.ok(!fp.includes(s));
  assert.equal(formatFingerprint([]), null);
  assert.notEqual(
    formatFingerprint(['1', '2', '3']),
    formatFingerprint(['a@b.com', 'c@d.com', 'e@f.com']),
    'a format change changes the fingerprint',
  );
});

test('time zones: IANA names and written offsets, not bare numbers or times of day', () => {
  for (const v of ['Europe/Berlin', 'america/new_york', 'Asia/Kolkata', 'UTC', '+02:00', '-05:00', 'UTC+5:30', 'GMT-8'])
    assert.equal(isTimeZone(v), true, v);
  for (const v of ['-5', '12:30', '+2', 'Europe', 'Berlin', 'Mars/Olympus', 'UTC+25', '2024-01-01'])
    assert.equal(isTimeZone(v), false, v);
  assert.equal(detectValueKind('Europe/Paris'), 'time_zone');
  assert.equal(detectValueKind('+09:00'), 'time_zone');
  assert.equal(detectValueKind('09:00'), 'time');
});

test('file paths: names with a file extension, storage URIs, Windows paths; not domains, versions or page paths', () => {
  for (const v of [
    'report.pdf',
    '/srv/uploads/a/1f2e.pdf',
    'C:\\Users\\ana\\cv.docx',
    's3://bucket/key/obj',
    'gs://b/x',
    'images/2024/photo 1.JPG',
    '\\\\fileserver\\share\\a.txt',
  ])
    assert.equal(isFilePath(v), true, v);
  for (const v of [
    'example.com',
    'v1.2.3',
    '3.14',
    'user.name',
    '/products/42',
    'notes about file.txt here',
    'a.b',
    'https://x.io/a.pdf',
  ])
    assert.equal(isFilePath(v), false, v);
  assert.equal(detectValueKind('invoice-2024-001.pdf'), 'file_path');
  assert.equal(detectValueKind('https://x.io/a.pdf'), 'url', 'a web address stays a URL');
  assert.equal(detectValueKind('john.doe@example.com'), 'email');
});

test('marital status words in several languages; other words and longer texts are not', () => {
  for (const v of [
    'single',
    'Married',
    'divorcée',
    'widowed',
    'verheiratet',
    'ledig',
    'casado',
    'célibataire',
    'civil partnership',
  ])
    assert.equal(isMaritalStatus(v), true, v);
  for (const v of ['double', 'Single room', 'active', 'marriage counselling appointment', 'M', 'S'])
    assert.equal(isMaritalStatus(v), false, v);
  assert.equal(summarizeValues(['single', 'married', 'married', 'divorced']).majority, 'marital_status');
  assert.notEqual(
    summarizeValues(['single', 'double', 'twin', 'suite']).majority,
    'marital_status',
    'one marital word among room types is no majority',
  );
});

test('fingerprints of the new kinds are kind names and shares only', () => {
  const fp = formatFingerprint(['Europe/Berlin', 'UTC', 'Asia/Tokyo', 'America/Chicago']);
  assert.equal(fp, 'time_zone:1');
  assert.ok(!String(formatFingerprint(['/srv/a/secret-report.pdf', 'b.pdf'])).includes('secret'));
});
