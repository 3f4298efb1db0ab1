import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { hashId, SlotIds } from '../../../src/modules/metrics/slot-ids.js';
import { mulberry32 } from '../../../bench/support/random.js';

/** SlotIds as CatalogState uses it: the caller keeps each slot's hash. */
function slotIds(): { ids: SlotIds; set: (id: string, slot: number) => void; delete: (slot: number) => void } {
  const hashes: number[] = [];
  const ids = new SlotIds((slot) => hashes[slot] as number);
  return {
    ids,
    set: (id, slot) => {
      ids.grow(slot + 1);
      hashes[slot] = hashId(id);
      ids.set(id, slot, hashes[slot]);
    },
    delete: (slot) => ids.delete(slot, hashes[slot] as number),
  };
}

describe('SlotIds (the in-memory catalog’s ids without a string per field)', () => {
  it('answers the id of a slot and the slot of an id, for UUIDs and for any other id', () => {
    const s = slotIds();
    const uuid = randomUUID();
    s.set(uuid, 0);
    s.set('orders.customer_email', 1);
    s.set('9F0A7C1E-3B2D-4C5E-8F9A-0B1C2D3E4F5A', 2); // not canonical (upper case): kept as it was given
    s.set('', 3);
    assert.equal(s.ids.size, 4);
    assert.equal(s.ids.idOf(0), uuid);
    assert.equal(s.ids.idOf(1), 'orders.customer_email');
    assert.equal(s.ids.idOf(2), '9F0A7C1E-3B2D-4C5E-8F9A-0B1C2D3E4F5A');
    assert.equal(s.ids.idOf(3), '');
    assert.equal(s.ids.get(uuid), 0);
    assert.equal(s.ids.get('orders.customer_email'), 1);
    assert.equal(s.ids.get('9f0a7c1e-3b2d-4c5e-8f9a-0b1c2d3e4f5a'), undefined, 'another id, though the same UUID');
    assert.equal(s.ids.get(''), 3);
    assert.equal(s.ids.idOf(4), undefined);
    assert.equal(s.ids.has(4), false);
    assert.equal(s.ids.has(-1), false);
    s.delete(0);
    assert.equal(s.ids.get(uuid), undefined);
    assert.equal(s.ids.idOf(0), undefined);
    assert.equal(s.ids.has(0), false);
    assert.equal(s.ids.size, 3);
  });

  it('agrees with a Map through 40,000 random inserts and removals (slots reused, the table rebuilt)', () => {
    const rng = mulberry32(25);
    const s = slotIds();
    const reference = new Map<string, number>();
    const bySlot = new Map<number, string>();
    const free: number[] = [];
    let end = 0;
    for (let step = 0; step < 40_000; step++) {
      if (reference.size > 0 && rng() < 0.4) {
        const ids = [...reference.keys()];
        const id = ids[Math.floor(rng() * ids.length)]!;
        const slot = reference.get(id)!;
        s.delete(slot);
        reference.delete(id);
        bySlot.delete(slot);
        free.push(slot);
      } else {
        const id = rng() < 0.9 ? randomUUID() : `field-${step}`;
        const slot = free.pop() ?? end++;
        s.set(id, slot);
        reference.set(id, slot);
        bySlot.set(slot, id);
      }
      if (step % 997 === 0) {
        for (const [id, slot] of reference) assert.equal(s.ids.get(id), slot);
        for (let slot = 0; slot < end; slot++) assert.equal(s.ids.idOf(slot), bySlot.get(slot));
        assert.equal(s.ids.size, reference.size);
      }
    }
  });
});
