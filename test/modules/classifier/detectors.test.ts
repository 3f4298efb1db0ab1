import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  detectValueKind,
  formatFingerprint,
  isBrazilCpf,
  isCanadianSin,
  isCardNumber,
  isDutchBsn,
  isFrenchNir,
  isGermanTaxId,
  isIban,
  isPortugueseNif,
  isSequentialDigits,
  isSpanishDni,
  isUkNino,
  isUsSsn,
  luhnValid,
  summarizeValues,
} from '../../../src/modules/classifier/detectors.js';

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
  assert.notEqual(formatFingerprint(['1', '2', '3']), formatFingerprint(['a@b.com', 'c@d.com', 'e@f.com']), 'a format change changes the fingerprint');
});
