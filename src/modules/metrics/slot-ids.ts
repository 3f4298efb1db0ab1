/**
 * The field id of every slot of the in-memory catalog, and the slot of every id, without a JavaScript string per
 * field: a canonical UUID (every id FieldLens makes) is kept as its 16 bytes in one Uint8Array, and the lookup is an
 * open-addressing table of slots keyed by the id's hash. At a million fields that is ~25 MB instead of ~85 MB of
 * strings, an array of them and a Map (docs/metrics.md, "Memory"); any other id (an imported catalog's own) is kept
 * as a string in a small side map.
 */

const EMPTY = -1;
const DELETED = -2;
const FREE = 0;
const UUID = 1;
const OTHER = 2;
const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Hex digit → value, for lowercase digits only (255 elsewhere). */
const HEX_VALUE = new Uint8Array(128).fill(255);
for (let i = 0; i < 16; i++) HEX_VALUE['0123456789abcdef'.charCodeAt(i)] = i;
/** Byte → its two lowercase hex digits. */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
/** Offsets of the 16 byte pairs in a canonical UUID string. */
const PAIR_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

/** FNV-1a of the id: a stable, well-spread hash (also the order of peer samples, see CatalogState). */
export function hashId(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export class SlotIds {
  private bytes = new Uint8Array(0);
  private kind = new Uint8Array(0);
  private readonly others = new Map<number, string>();
  /** Slots by id hash, linear probing; EMPTY ends a probe, DELETED does not. */
  private table = new Int32Array(16).fill(EMPTY);
  private used = 0;
  private count = 0;
  /** The id's 16 bytes while it is looked up (no allocation per lookup). */
  private readonly probe = new Uint8Array(16);

  /** `hashOf(slot)` must answer hashId of the slot's id (the catalog keeps it per slot anyway). */
  constructor(private readonly hashOf: (slot: number) => number) {}

  get size(): number {
    return this.count;
  }

  /** Makes room for slots below `capacity`. */
  grow(capacity: number): void {
    if (capacity <= this.kind.length) return;
    const bytes = new Uint8Array(capacity * 16);
    bytes.set(this.bytes);
    this.bytes = bytes;
    const kind = new Uint8Array(capacity);
    kind.set(this.kind);
    this.kind = kind;
  }

  /** The id held in `slot`, or undefined for a free slot. */
  idOf(slot: number): string | undefined {
    const kind = this.kind[slot];
    if (kind === UUID) return this.uuidAt(slot);
    if (kind === OTHER) return this.others.get(slot);
    return undefined;
  }

  has(slot: number): boolean {
    return slot >= 0 && slot < this.kind.length && this.kind[slot] !== FREE;
  }

  /** The slot holding `id`, or undefined. `hash` is hashId(id) when the caller has it. */
  get(id: string, hash = hashId(id)): number | undefined {
    const isUuid = this.parse(id);
    const mask = this.table.length - 1;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const slot = this.table[i] as number;
      if (slot === EMPTY) return undefined;
      if (slot !== DELETED && this.hashOf(slot) === hash && this.holds(slot, id, isUuid)) return slot;
    }
  }

  /** Records `id` in the free `slot`; the caller has set hashOf(slot) = hash. */
  set(id: string, slot: number, hash: number): void {
    if (this.parse(id)) {
      this.bytes.set(this.probe, slot * 16);
      this.kind[slot] = UUID;
    } else {
      this.others.set(slot, id);
      this.kind[slot] = OTHER;
    }
    if ((this.used + 1) * 2 > this.table.length) this.rehash();
    this.insert(slot, hash);
    this.count++;
  }

  /** Forgets the id held in `slot` (hash: its hashId). */
  delete(slot: number, hash: number): void {
    const mask = this.table.length - 1;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const at = this.table[i] as number;
      if (at === EMPTY) break;
      if (at === slot) {
        this.table[i] = DELETED;
        break;
      }
    }
    if (this.kind[slot] === OTHER) this.others.delete(slot);
    this.kind[slot] = FREE;
    this.count--;
  }

  /** Parses a canonical UUID into `probe`; false for any other id. */
  private parse(id: string): boolean {
    if (id.length !== 36 || !UUID_SHAPE.test(id)) return false;
    for (let b = 0; b < 16; b++) {
      const at = PAIR_AT[b] as number;
      this.probe[b] = ((HEX_VALUE[id.charCodeAt(at)] as number) << 4) | (HEX_VALUE[id.charCodeAt(at + 1)] as number);
    }
    return true;
  }

  private holds(slot: number, id: string, isUuid: boolean): boolean {
    if (!isUuid) return this.kind[slot] === OTHER && this.others.get(slot) === id;
    if (this.kind[slot] !== UUID) return false;
    const o = slot * 16;
    for (let b = 0; b < 16; b++) if (this.bytes[o + b] !== this.probe[b]) return false;
    return true;
  }

  private uuidAt(slot: number): string {
    const b = this.bytes;
    const o = slot * 16;
    const h = (i: number): string => HEX[b[o + i] as number] as string;
    return `${h(0)}${h(1)}${h(2)}${h(3)}-${h(4)}${h(5)}-${h(6)}${h(7)}-${h(8)}${h(9)}-${h(10)}${h(11)}${h(12)}${h(13)}${h(14)}${h(15)}`;
  }

  private insert(slot: number, hash: number): void {
    const mask = this.table.length - 1;
    let i = hash & mask;
    while ((this.table[i] as number) >= 0) i = (i + 1) & mask;
    if (this.table[i] === EMPTY) this.used++;
    this.table[i] = slot;
  }

  /** Rebuilds the table without its DELETED marks, doubled when the live entries need it. */
  private rehash(): void {
    const old = this.table;
    let size = this.table.length;
    while ((this.count + 1) * 2 > size) size *= 2;
    if ((this.count + 1) * 4 > size) size *= 2;
    this.table = new Int32Array(size).fill(EMPTY);
    this.used = 0;
    for (const slot of old) if (slot >= 0) this.insert(slot, this.hashOf(slot));
  }
}
