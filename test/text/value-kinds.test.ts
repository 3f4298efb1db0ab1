import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifySample, formatSignature } from '../../src/embeddings/format-signature.js';
import { summarizeValues } from '../../src/modules/classifier/detectors.js';
import { detectValueKind } from '../../src/text/value-kinds.js';

describe('the shared value-format detector', () => {
  it('reads a North American number as a phone whatever its area code, for the classifier and the embedder', () => {
    assert.equal(detectValueKind('(555) 123-4567'), 'phone');
    assert.equal(classifySample('(555) 123-4567'), 'phone');
    assert.notEqual(detectValueKind('555-1234'), 'phone');
  });

  it('gives the embedder the kinds the classifier tells apart, in its coarser classes', () => {
    // A US social security number was a phone number to the embedder's own checks.
    assert.equal(classifySample('078-05-1120'), 'national_id');
    assert.equal(formatSignature(['078-05-1120', '219-09-9999', '457-55-5462']), 'national_id');
    // A test card sequence is no card for either.
    assert.equal(detectValueKind('4242424242424242'), 'digits');
    assert.equal(classifySample('4242424242424242'), 'numeric_code');
    // Coordinates are decimals to the embedder, IANA zones codes.
    assert.equal(classifySample('52.520008'), 'decimal');
    assert.equal(classifySample('Europe/Berlin'), 'short_code');
  });

  it('skips the same null markers in both summaries', () => {
    for (const v of ['undefined', 'NaN', 'N/A', 'null']) {
      assert.equal(formatSignature([v]), 'empty', v);
      assert.equal(summarizeValues([v]).considered, 0, v);
    }
  });
});
