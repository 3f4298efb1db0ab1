import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { TurnBatchedDestination, type LogSink } from '../../src/http/log-destination.js';

/** Records what reaches the underlying stream: each write, and each synchronous flush. */
function recordingSink() {
  const writes: string[] = [];
  let flushes = 0;
  const sink: LogSink = {
    write(chunk) {
      writes.push(chunk);
      return true;
    },
    flushSync() {
      flushes += 1;
    },
  };
  return { sink, writes, flushes: () => flushes };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('turn-batched log destination', () => {
  it('hands the lines of one event-loop turn to the stream as one write, in order', async () => {
    const { sink, writes } = recordingSink();
    const destination = new TurnBatchedDestination(sink);
    destination.write('a\n');
    destination.write('b\n');
    destination.write('c\n');
    assert.deepEqual(writes, [], 'nothing is written during the turn');
    await nextTurn();
    assert.deepEqual(writes, ['a\nb\nc\n']);
    destination.write('d\n');
    await Promise.resolve(); // a microtask is still the same turn
    destination.write('e\n');
    await nextTurn();
    assert.deepEqual(writes, ['a\nb\nc\n', 'd\ne\n'], 'one write per turn, order kept');
    await nextTurn();
    assert.equal(writes.length, 2, 'an idle turn writes nothing');
  });

  it('flushSync writes the pending lines at once, then flushes the stream', async () => {
    const { sink, writes, flushes } = recordingSink();
    const destination = new TurnBatchedDestination(sink);
    destination.write('pending-1\n');
    destination.write('pending-2\n');
    destination.flushSync();
    assert.deepEqual(writes, ['pending-1\npending-2\n']);
    assert.equal(flushes(), 1);
    await nextTurn();
    assert.equal(writes.length, 1, 'the scheduled end of turn has nothing left to write');
    destination.flushSync();
    assert.equal(writes.length, 1, 'no empty write');
  });

  it('hands a very large turn over before it ends', () => {
    const { sink, writes } = recordingSink();
    const destination = new TurnBatchedDestination(sink);
    const line = `${'x'.repeat(1023)}\n`;
    for (let i = 0; i < 100; i += 1) destination.write(line);
    assert.ok(writes.length >= 1, 'handed over within the turn');
    destination.flushSync();
    assert.equal(writes.join(''), line.repeat(100), 'every line, once, in order');
  });

  it('serves as a pino destination', async () => {
    const { sink, writes } = recordingSink();
    const log = pino({}, new TurnBatchedDestination(sink));
    log.info('first');
    log.info({ n: 2 }, 'second');
    await nextTurn();
    assert.equal(writes.length, 1);
    const lines = (writes[0] ?? '')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string });
    assert.deepEqual(
      lines.map((l) => l.msg),
      ['first', 'second'],
    );
  });
});
