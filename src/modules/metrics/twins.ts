/**
 * Fields whose unit embeddings are bit-for-bit identical — twins: the same column in many tables or shards, embedded
 * from the same text — enter the nearest-neighbour index once, through one representative, and a search's answer is
 * expanded back to every twin of each representative found, at the same similarity.
 *
 * HNSW cannot hold many exact duplicates: each fills its neighbour lists with the others (all at distance 0, so the
 * selection heuristic keeps them all), the group becomes a closed clique, and a search that enters it never leaves.
 * Measured with hnswlib (M = 16): 495 identical vectors next to 17 others made recall@1 of those 17 fall to 0/17,
 * and in the service every field's "nearest" became one of the twins, at similarity 0.04 instead of 0.9.
 *
 * Kept in typed arrays, by slot: the embedding's hash, a ring of twins (circular doubly linked list; a slot without
 * twins points to itself), and an open-addressing table from hash to representative (~20 bytes per field).
 */

const EMPTY = -1;
const DELETED = -2;
/** leave(): the slot was not in the index (another twin represents it). */
export const NOT_INDEXED = -2;
/** leave(): the slot was in the index and had no twins left: only remove it. */
export const NO_SUCCESSOR = -1;

/** FNV-1a over the float bits. */
export function hashVector(v: Float32Array): number {
  const bits = new Uint32Array(v.buffer, v.byteOffset, v.length);
  let h = 0x811c9dc5;
  for (let i = 0; i < bits.length; i++) h = Math.imul(h ^ (bits[i] as number), 0x01000193);
  return h >>> 0;
}

/** Equal values, component by component (as floats: 0 and -0 are equal, NaN never is); also for quantized bytes. */
export function sameVector(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class Twins {
  private table = new Int32Array(16).fill(EMPTY);
  /** Table entries that are not EMPTY (representatives and DELETED marks). */
  private used = 0;
  private representatives = 0;
  private hash = new Uint32Array(0);
  private next = new Int32Array(0);
  private prev = new Int32Array(0);

  /** `embedding(slot)` must answer a slot's current embedding. */
  constructor(private readonly embedding: (slot: number) => Float32Array) {}

  /** Makes room for slots below `capacity`. */
  grow(capacity: number): void {
    if (capacity <= this.next.length) return;
    const widen = <T extends Int32Array | Uint32Array>(old: T, grown: T): T => {
      grown.set(old);
      return grown;
    };
    this.hash = widen(this.hash, new Uint32Array(capacity));
    this.next = widen(this.next, new Int32Array(capacity));
    this.prev = widen(this.prev, new Int32Array(capacity));
  }

  /**
   * Registers the slot with its current embedding. Answers the representative of its twins: the slot itself when
   * no other registered slot has that embedding — the caller then adds it to the index.
   */
  join(slot: number): number {
    const e = this.embedding(slot);
    const h = hashVector(e);
    this.hash[slot] = h;
    const at = this.find(e, h);
    if (at >= 0) {
      const rep = this.table[at] as number;
      const after = this.next[rep] as number;
      this.next[slot] = after;
      this.prev[slot] = rep;
      this.prev[after] = slot;
      this.next[rep] = slot;
      return rep;
    }
    this.next[slot] = slot;
    this.prev[slot] = slot;
    this.insert(slot, h);
    return slot;
  }

  /**
   * Unregisters the slot, before its embedding changes or it is removed. Answers NOT_INDEXED when another twin
   * represents it (the index is left alone), else the slot was in the index: NO_SUCCESSOR when it had no twins, or
   * the twin that represents the others from now on (the caller removes the slot from the index and adds that one).
   */
  leave(slot: number): number {
    const e = this.embedding(slot);
    const at = this.find(e, this.hash[slot] as number);
    if (at < 0) throw new Error(`slot ${slot} is not registered`);
    const rep = this.table[at] as number;
    const after = this.next[slot] as number;
    const before = this.prev[slot] as number;
    this.next[before] = after;
    this.prev[after] = before;
    this.next[slot] = slot;
    this.prev[slot] = slot;
    if (rep !== slot) return NOT_INDEXED;
    if (after !== slot) {
      this.table[at] = after;
      return after;
    }
    this.table[at] = DELETED;
    this.representatives--;
    return NO_SUCCESSOR;
  }

  /** The slot's twins (itself excluded), at most `limit` of them. */
  twinsOf(slot: number, limit = Infinity): number[] {
    const out: number[] = [];
    for (let t = this.next[slot] as number; t !== slot && out.length < limit; t = this.next[t] as number) out.push(t);
    return out;
  }

  /** Whether the slot has twins. */
  hasTwins(slot: number): boolean {
    return this.next[slot] !== slot;
  }

  /**
   * The answer of a search over representatives (best first), with each representative followed by its twins at the
   * same similarity, cut at k.
   */
  expand(found: { keys: number[]; similarities: number[] }, k: number): { keys: number[]; similarities: number[] } {
    if (!found.keys.some((key) => this.next[key] !== key)) return found;
    const keys: number[] = [];
    const similarities: number[] = [];
    for (let i = 0; i < found.keys.length && keys.length < k; i++) {
      const rep = found.keys[i] as number;
      const similarity = found.similarities[i] as number;
      let slot = rep;
      do {
        keys.push(slot);
        similarities.push(similarity);
        slot = this.next[slot] as number;
      } while (slot !== rep && keys.length < k);
    }
    return { keys, similarities };
  }

  /** Table position of the representative with embedding `e` (hash `h`), or -1. */
  private find(e: Float32Array, h: number): number {
    const mask = this.table.length - 1;
    for (let at = h & mask; ; at = (at + 1) & mask) {
      const rep = this.table[at] as number;
      if (rep === EMPTY) return -1;
      if (rep >= 0 && this.hash[rep] === h && sameVector(this.embedding(rep), e)) return at;
    }
  }

  private insert(slot: number, h: number): void {
    if ((this.used + 1) * 10 > this.table.length * 7) this.rehash();
    const mask = this.table.length - 1;
    let at = h & mask;
    while ((this.table[at] as number) >= 0) at = (at + 1) & mask;
    if (this.table[at] === EMPTY) this.used++;
    this.table[at] = slot;
    this.representatives++;
  }

  /** A table at most half full of representatives, without DELETED marks. */
  private rehash(): void {
    let size = this.table.length;
    while ((this.representatives + 1) * 2 > size) size *= 2;
    const old = this.table;
    this.table = new Int32Array(size).fill(EMPTY);
    const mask = size - 1;
    for (const rep of old) {
      if (rep < 0) continue;
      let at = (this.hash[rep] as number) & mask;
      while (this.table[at] !== EMPTY) at = (at + 1) & mask;
      this.table[at] = rep;
    }
    this.used = this.representatives;
  }
}
