import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  FORMAT_CLASS_WORDS,
  classifySample,
  formatSignature,
  formatSignatureWords,
} from '../../src/embeddings/format-signature.js';
import { luhnValid as passesLuhn } from '../../src/text/value-kinds.js';

// Deterministic pseudo-random digits (no Math.random: tests must be reproducible).
function digitStream(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s >>> 24) % 10;
  };
}

function luhnComplete(prefix: string): string {
  for (let d = 0; d < 10; d++) if (passesLuhn(prefix + d)) return prefix + d;
  throw new Error('unreachable');
}

describe('formatSignature', () => {
  it('recognises card numbers by Luhn, and random 16-digit numbers as not cards', () => {
    const next = digitStream(42);
    const cards: string[] = [];
    const randoms: string[] = [];
    while (cards.length < 20 || randoms.length < 20) {
      let body = '4';
      for (let i = 0; i < 14; i++) body += next();
      const card = luhnComplete(body);
      if (cards.length < 20) cards.push(card);
      // Same prefix, check digit deliberately wrong.
      const bad = body + ((Number(card.at(-1)) + 1) % 10);
      if (randoms.length < 20) randoms.push(bad);
    }
    assert.ok(cards.every(passesLuhn) && !randoms.some(passesLuhn));
    assert.equal(formatSignature(cards), 'card_number');
    assert.equal(formatSignature(cards.map((c) => c.replace(/(\d{4})(?=\d)/g, '$1 '))), 'card_number');
    assert.notEqual(formatSignature(randoms), 'card_number');
    assert.ok(!formatSignature(randoms)?.includes('card_number'));
  });

  it('recognises common formats', () => {
    const expect: [string[], string][] = [
      [['ana@example.com', 'bob.smith+x@mail.co.uk', 'c_d@corp.io'], 'email'],
      [['2024-01-31', '1999-12-01', '2003-07-04'], 'date'],
      [['31/01/2024', '12/25/1999', '04.07.2003'], 'date'],
      [['2024-01-31T10:11:12Z', '2024-02-01 08:00:00', '2023-12-31T23:59:59.123+02:00'], 'datetime'],
      [['+44 20 7946 0958', '(555) 123-4567', '+1-202-555-0143'], 'phone'],
      [['550e8400-e29b-41d4-a716-446655440000', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'], 'uuid'],
      [['192.168.0.1', '10.0.0.254', '8.8.8.8'], 'ipv4'],
      [['https://example.com/a', 'http://x.org', 'www.foo.bar/baz'], 'url'],
      [['DE89370400440532013000', 'GB82 WEST 1234 5698 7654 32'], 'iban'],
      [['12', '-7', '40213'], 'integer'],
      [['12.50', '-0.5', '3.14159'], 'decimal'],
      [['$12.50', '€3', '1,200.00 EUR'], 'money'],
      [['true', 'false', 'TRUE'], 'boolean'],
      [['0', '1', '1', '0'], 'boolean'],
      [['SW1A 1AA', 'EC1A 1BB', '90210-1234'], 'postal_code'],
      [['US', 'DE', 'FR', 'GB'], 'short_code'],
      [['Alice', 'Bob Smith', 'Chloé'], 'short_text'],
      [['The customer asked for a refund because the parcel arrived late and damaged.'], 'free_text'],
      [['5f4dcc3b5aa765d61d8327deb882cf99'], 'hash'],
      [['{"a":1}', '[1,2]'], 'json'],
      [['', '  ', 'NULL'], 'empty'],
    ];
    for (const [samples, sig] of expect) assert.equal(formatSignature(samples), sig, JSON.stringify(samples));
  });

  it('returns null without samples and lists mixed formats by share', () => {
    assert.equal(formatSignature([]), null);
    assert.equal(formatSignature(['a@b.com', 'c@d.org', 'e@f.net', '2024-01-01', '2024-02-02']), 'email date');
    // A lone odd value under 20 % does not show.
    assert.equal(formatSignature(['a@b.com', 'c@d.org', 'e@f.net', 'x@y.de', 'z@w.fr', 'oops']), 'email');
  });

  it('never echoes sample values', () => {
    const samples = [
      'secret.person@example.com',
      'Jonathan Q. Public',
      '4111 1111 1111 1111',
      'SW1A 1AA',
      'ZZTOPSECRET',
      'hunter2hunter2',
      '{"ssn":"078-05-1120"}',
      'Paris',
      '078-05-1120',
      'DE89370400440532013000',
    ];
    const sig = formatSignature(samples) ?? '';
    const known = new Set(Object.keys(FORMAT_CLASS_WORDS));
    for (const token of sig.split(' ')) assert.ok(known.has(token), `unexpected token ${token}`);
    for (const s of samples) assert.ok(!sig.toLowerCase().includes(s.toLowerCase()), `echoed ${s}`);
    for (const s of samples) {
      const single = formatSignature([s]) ?? '';
      assert.ok(known.has(single), single);
      assert.ok(!single.includes(s.toLowerCase()));
    }
  });

  it('is stable: same samples, same signature regardless of call', () => {
    const s = ['a@b.com', '2024-01-01', 'c@d.org', '2024-02-02'];
    assert.equal(formatSignature(s), formatSignature([...s]));
    assert.equal(formatSignature(s), 'date email');
  });

  it('classifies single samples and maps signatures to words', () => {
    assert.equal(classifySample('4111111111111111'), 'card_number');
    assert.equal(classifySample('4111111111111112'), 'numeric_code');
    assert.equal(classifySample('00123'), 'numeric_code');
    assert.deepEqual(formatSignatureWords('email date'), ['email', 'address', 'date']);
    assert.deepEqual(formatSignatureWords('not_a_class'), []);
  });
});
