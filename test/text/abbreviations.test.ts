import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tokenizeIdentifier } from '../../src/embeddings/tokenizer.js';
import { loadWordVectors } from '../../src/embeddings/word-vectors.js';
import { lexiconWords } from '../../src/embeddings/lexicon.js';
import { FORMAT_SIGNATURE_WORDS } from '../../src/embeddings/format-signature.js';
import { TRANSLATE } from '../../src/modules/classifier/lexicon.js';
import { ABBREVIATIONS, TERMS, abbreviationWords } from '../../src/text/abbreviations.js';

describe('the shared abbreviation lexicon', () => {
  it('gives the embedder and the classifier one answer where they disagreed', () => {
    // `tel` was "telephone" for the embedder and "phone" for the classifier: both read telephone now (the
    // classifier's phone rule names it; measured better on the public schemas than phone).
    assert.equal(ABBREVIATIONS.tel, 'telephone');
    assert.deepEqual(tokenizeIdentifier('tel_no'), ['telephone', 'number']);
    assert.equal(TRANSLATE.tel, 'telephone');
    // Plural abbreviations read as the singular the phrase rules name, but durations keep their plural.
    assert.equal(ABBREVIATIONS.custs, 'customer');
    assert.equal(TRANSLATE.custs, 'customer');
    assert.equal(ABBREVIATIONS.yrs, 'years');
    assert.equal(TRANSLATE.yrs, 'years');
    assert.equal(TRANSLATE.corp, 'company');
    // Ambiguous abbreviations are left as written by both: `ref_ext` is external, `adr_ln1` an address line, `montant_ht` French.
    for (const k of ['ext', 'ln', 'ht', 'pay', 'mail']) assert.equal(ABBREVIATIONS[k], undefined, k);
  });

  it('gives the classifier the standard term and the embedder plain words for it', () => {
    assert.equal(TRANSLATE.ssn, 'ssn');
    assert.deepEqual(tokenizeIdentifier('ssn'), ['social', 'security', 'number']);
    assert.equal(TRANSLATE.tstamp, 'timestamp');
    assert.equal(TRANSLATE.hr, 'hr');
    for (const k of Object.keys(TERMS)) assert.equal(TRANSLATE[k], TERMS[k], k);
  });

  it('teaches the embedder the legacy abbreviations the classifier knew', () => {
    assert.deepEqual(tokenizeIdentifier('EMPNO'), ['employee', 'number']);
    assert.deepEqual(tokenizeIdentifier('brthdt'), ['birth', 'date']);
    assert.equal(TRANSLATE.brthdt, 'birth date');
  });

  it('expands only into words the shipped vector file holds', () => {
    const words = new Set(loadWordVectors().words);
    const missing = [...abbreviationWords(), ...lexiconWords(), ...FORMAT_SIGNATURE_WORDS].filter((w) => !words.has(w));
    assert.deepEqual(missing, []);
  });
});
