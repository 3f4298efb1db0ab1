import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildClassifierContext, classifyField } from '../../src/modules/classifier/classifier.js';
import { flattenTaxonomy } from '../../src/modules/taxonomy/default-taxonomy.js';
import { describeFeature, learnedPoints, loadLearnedModel } from '../../bench/classify/learned-factor.js';
import { classifyWithLearned, fitLearnedModel, type LearnedExample } from '../../bench/classify/learned-fit.js';

// Small factories: columns of three sources whose word `frobnicator` (no rule knows it) the labels call an e-mail
// address, beside plain `title` columns labelled an object name.
const example = (source: string, word: string, leaf: string): LearnedExample => ({
  features: [`w:${word}`, `h:${word}`, 'y:text'],
  leaf,
  accept: [leaf],
  offsets: [{ leaf: 'Object name', total: 0.05 }],
  family: 'text',
  source,
});
const examples = (): LearnedExample[] =>
  ['a', 'b', 'c'].flatMap((s) => [
    example(s, 'frobnicator', 'Email address'),
    example(s, 'frobnicator', 'Email address'),
    example(s, 'title', 'Object name'),
  ]);

test('the learned factor: the same examples give byte-identical parameters', () => {
  const a = fitLearnedModel(examples(), { weight: 1, fittedOn: 'test' });
  const b = fitLearnedModel(examples(), { weight: 1, fittedOn: 'test' });
  assert.equal(JSON.stringify(a), JSON.stringify(b));
  assert.ok(Object.keys(a.features).length > 0);
});

test('the learned factor gives points from a word it learned, and nothing for a word it never saw', () => {
  const model = loadLearnedModel(fitLearnedModel(examples(), { weight: 1, fittedOn: 'test' }));
  const seen = learnedPoints(model, ['w:frobnicator', 'h:frobnicator', 'y:text'], () => false);
  assert.equal(seen[0]?.leaf, 'Email address');
  assert.ok((seen[0]?.score ?? 0) > 0);
  assert.ok(seen[0]?.because.includes('w:frobnicator'));
  // The type family alone is known, but no word of the name: the factor is silent.
  assert.deepEqual(
    learnedPoints(model, ['w:quuxable', 'h:quuxable', 'y:text'], () => false),
    [],
  );
  // Below the minimum number of sources a word is not learned at all.
  const oneSource = loadLearnedModel(
    fitLearnedModel(
      examples().filter((e) => e.source === 'a'),
      { weight: 1, fittedOn: 'test' },
    ),
  );
  assert.deepEqual(
    learnedPoints(oneSource, ['w:frobnicator', 'h:frobnicator', 'y:text'], () => false),
    [],
  );
});

test('the learned factor names the words that decided, and outside the experiment the classifier is unchanged', () => {
  const tags = flattenTaxonomy().map((t, i) => ({
    id: i + 1,
    chain_path: t.chain_path,
    default_level: t.default_level,
    keywords: t.keywords,
  }));
  const ctx = buildClassifierContext(tags);
  const model = loadLearnedModel(fitLearnedModel(examples(), { weight: 3, fittedOn: 'test' }));
  const input = { table_name: 'things', field_name: 'frobnicator', data_type: 'text' };
  const withFactor = classifyWithLearned(ctx, model, input);
  assert.equal(withFactor.leaf, 'Email address');
  assert.ok(withFactor.learned[0]?.because.map(describeFeature).includes("'frobnicator' in the name"));
  // Without the model: what the classifier itself answers.
  const plain = classifyField(input, ctx);
  assert.equal(
    classifyWithLearned(ctx, null, input).leaf,
    plain.chain_path.slice(plain.chain_path.lastIndexOf('/') + 1),
  );
  assert.ok(plain.evidence.every((e) => (e.factor as string) !== 'learned'));
});
