/**
 * The catalog as one instance holds it in memory for the metrics worker: every field's unit embedding, tag, level
 * and review state, per-tag and per-level running sums, a nearest-neighbour index, bounded peer samples, and the
 * raw axes last computed per field (for the catalog distributions).
 *
 * Laid out for a million fields (docs/metrics.md, "Memory"): a field lives in a numbered slot, and each property
 * is a column indexed by slot — typed arrays, and embeddings quantized to one signed byte a dimension (with a scale
 * per field) in fixed-size chunks of one Int8Array each — so the per-field cost is the data itself (~0.2 KB) rather
 * than a few JavaScript objects per field, and the garbage collector has millions fewer objects to trace. Slots are
 * reused after removal and are the index's keys.
 */
import { decodeVector } from '../../db/database.js';
import { ThreadedNearestIndex, type Neighbours } from './ann-threads.js';
import { AXIS_KEYS, type RawAxes } from './axes.js';
import { classifierSupport, type ReviewedAnswers } from './measure-field.js';
import { addInto, normalizeInto } from './vectors.js';
import { splitWords } from '../../embeddings/tokenizer.js';
import type { CatalogFieldRow } from '../fields/field-catalog-reader.service.js';
import { hashId, SlotIds } from './slot-ids.js';
import { hashVector, NOT_INDEXED, sameVector, Twins } from './twins.js';

/** Peer statistics use at most this many same-tag fields, chosen by a hash of the field id (deterministic). */
export const PEER_SAMPLE_SIZE = 256;
/**
 * A tag's peers are its trusted members (CatalogState's `trusted`) when it has at least this many, and at least this
 * share of its members: with a tenth of a tag misfiled, its farthest peer and lower quartile were the misfiled fields'
 * for every member, and the bars calibrated on such members forgave the next misfiled field (docs/metrics.md,
 * "Peers"). Where the classifier recognises fewer than a tenth of a tag's fields (a tag of the organisation's own that
 * no rule names, say), its disagreement says more about the classifier than about them: every member stays a peer.
 */
const TRUSTED_PEERS_MIN = 4;
const TRUSTED_PEERS_SHARE = 0.1;
/** A self-classified member is trusted from this calibrated confidence on (the development half's plateau: 0.7–0.9). */
const TRUSTED_CONFIDENCE = 0.7;
/** Embeddings are stored in chunks of about this many bytes (1 MiB): growing the catalog never copies the ones stored. */
const CHUNK_BYTES = 1 << 20;
/** A quantized component's largest magnitude: the field's largest component maps to ±QUANT_MAX. */
const QUANT_MAX = 127;
/** Remembered values per slot: the six raw axes (AXIS_KEYS order), then the peer and anchor margins (NaN = none). */
const PEER = AXIS_KEYS.length;
const ANCHOR = PEER + 1;
const RAW_WIDTH = ANCHOR + 1;

/**
 * Quantizes a unit embedding to one signed byte a component: `out[i] = round(v[i] / scale)` with `scale` = the largest
 * magnitude / QUANT_MAX (returned; 0 for a zero vector). A component moves by at most scale / 2 (~0.001 for a 100-d
 * unit vector), a cosine between two fields by about as much; a quarter of the memory of 32-bit floats (docs/metrics.md,
 * "Memory"). Identical vectors quantize identically, so twins stay twins.
 */
export function quantizeInto(out: Int8Array, v: Float32Array): number {
  let max = 0;
  for (let i = 0; i < v.length; i++) max = Math.max(max, Math.abs(v[i] as number));
  const scale = Math.fround(max / QUANT_MAX);
  for (let i = 0; i < v.length; i++) out[i] = scale === 0 ? 0 : Math.round((v[i] as number) / scale);
  return scale;
}

/** `vector` normalized and quantized as the replica stores it (for answers given before the replica is loaded). */
export function asStored(vector: Float32Array): Float32Array {
  const unit = normalizeInto(new Float32Array(vector.length), vector);
  const bytes = new Int8Array(vector.length);
  return dequantizeInto(unit, bytes, quantizeInto(bytes, unit));
}

/** The components `bytes` × `scale` written into `out` (the inverse of quantizeInto, up to its rounding). */
function dequantizeInto(out: Float32Array, bytes: Int8Array, scale: number): Float32Array {
  for (let i = 0; i < out.length; i++) out[i] = (bytes[i] as number) * scale;
  return out;
}

/** The raw values remembered for a field (the inputs of the catalog distributions and margin scales). */
export interface RememberedRaw {
  raw: RawAxes;
  peer: number | null;
  anchor: number | null;
}

/** The hash bound below which ~`size` of `population` fields fall (all of them when the population is smaller). */
export function hashSampleLimit(size: number, population: number): number {
  return population <= size ? Infinity : (size / population) * 2 ** 32;
}

/** Slots of a group's members, with O(1) add and remove (the last member moves into the hole). */
class SlotList {
  slots = new Int32Array(16);
  size = 0;

  /** Appends `slot`; returns its position. */
  push(slot: number): number {
    if (this.size === this.slots.length) {
      const grown = new Int32Array(this.slots.length * 2);
      grown.set(this.slots);
      this.slots = grown;
    }
    this.slots[this.size] = slot;
    return this.size++;
  }

  /** Removes the entry at `position`; returns the slot moved into it, or -1 when it was the last entry. */
  removeAt(position: number): number {
    const last = this.slots[--this.size] as number;
    if (position === this.size) return -1;
    this.slots[position] = last;
    return last;
  }

  at(position: number): number {
    return this.slots[position] as number;
  }
}

export interface GroupState {
  /** Sum of the members' unit embeddings. */
  sum: Float32Array;
  count: number;
  members: SlotList;
}

interface TagState extends GroupState {
  /** Members per level number (the tag's usual level is the most common one). */
  levelCounts: Map<number, number>;
  /** Confirmed members per level number. */
  confirmedLevelCounts: Map<number, number>;
  confirmedSum: Float32Array;
  confirmedCount: number;
  /** Cached peer sample; null when membership changed. */
  sample: PeerSample | null;
}

/**
 * A tag's peer sample: its trusted members (all of them when too few are trusted) with the smallest id
 * hash, PEER_SAMPLE_SIZE of them plus one spare, so that a sampled field still gets PEER_SAMPLE_SIZE peers once itself
 * is left out. The embedding list is kept ready so the per-field computation allocates nothing in the common case (a
 * field outside the sample).
 */
interface PeerSample {
  /** The first PEER_SAMPLE_SIZE of those members (all when fewer) and their embeddings. */
  slots: number[];
  embeddings: Float32Array[];
  inSample: Set<number>;
  /** The spare member's slot, or -1 when the tag has no more members. */
  spare: number;
}

interface AnswerReviews {
  kept: number;
  corrected: number;
  /** Corrections counted by `tagId\u0000level`. */
  to: Map<string, number>;
}

function summarizeReviews(r: AnswerReviews | undefined): ReviewedAnswers | null {
  if (!r || r.kept + r.corrected === 0) return null;
  let top: { tagId: number; level: string; count: number } | null = null;
  for (const [key, count] of r.to) {
    if (count > 0 && (!top || count > top.count)) {
      const [tagId, level] = key.split('\u0000');
      top = { tagId: Number(tagId), level: level as string, count };
    }
  }
  return { kept: r.kept, corrected: r.corrected, top };
}

/**
 * A field's naming pattern: its data source and the first word of its name (`cod_cliente`, `codProduto` → `cod`), or
 * null when either is unknown. An organisation names its columns by conventions a reviewer's correction reveals (on
 * the public schemas' held-out half, where a correction in the same pattern spoke for one of the classifier's mistakes,
 * the correction was right for 82 % of them: docs/metrics.md, "What reviewers decided nearby").
 */
export function namingPattern(
  datasourceId: string | null | undefined,
  fieldName: string | null | undefined,
): string | null {
  if (!datasourceId || !fieldName) return null;
  const first = splitWords(fieldName)[0];
  return first ? `${datasourceId}\u0000${first}` : null;
}

/**
 * A 32-bit hash of a field's data source, table and column name, or null when any is unknown: the same field whoever
 * asks (an import or a scan of a field that exists, its re-evaluation), without the replica keeping its name.
 */
export function fieldKey(f: {
  datasource_id?: string | null;
  table_name?: string | null;
  field_name?: string | null;
}): number | null {
  if (!f.datasource_id || !f.table_name || !f.field_name) return null;
  return hashId(`${f.datasource_id}\u0000${f.table_name}\u0000${f.field_name}`) || 1;
}

/** The catalog as one instance sees it; mutated only by apply()/remove(). */
export class CatalogState {
  /** Field id per slot and slot per id (hashed by hashOf, the id's hashId: a stable order for samples). */
  private readonly slotIds = new SlotIds((slot) => this.hashOf[slot] as number);
  /** One past the highest slot ever used. */
  private slotEnd = 0;
  private readonly freeSlots: number[] = [];
  private capacity = 0;
  tagOf = new Int32Array(0);
  private levelOf = new Uint8Array(0);
  private confirmed = new Uint8Array(0);
  /** The classifier's own view of the field (fields.predicted_*): tag id (0 = none), level number, confidence. */
  private predTag = new Int32Array(0);
  private predLevel = new Uint8Array(0);
  private predConf = new Float32Array(0);
  /** How many points the label trails the classifier's answer by (fields.predicted_label_gap); NaN when unknown. */
  private predGap = new Float32Array(0);
  /** 1 when the field's classification is the classifier's own answer (fields.classification_source = classifier). */
  private selfClassified = new Uint8Array(0);
  /**
   * Confirmed fields by the hash of their embedding: a confirmed twin (same embedding) speaks for or against every
   * other twin, however many twins there are (a field's 10 nearest may all be unreviewed twins).
   */
  private readonly confirmedByHash = new Map<number, number[]>();
  /**
   * A self-classified field's two best runners-up as its evidence names them (classifierSupport), two per slot: index
   * into runnerPaths (−1 none), and each one's points over the answer's in 1/255ths.
   */
  private supportRunnerPath = new Int32Array(0);
  private supportRunnerRatio = new Uint8Array(0);
  private readonly runnerPaths: string[] = [];
  private readonly runnerPathIndex = new Map<string, number>();
  /** Per tag the classifier predicted: how many of those fields reviewers confirmed as predicted, how many they corrected, and to what. */
  private readonly answerReviewsByTag = new Map<number, AnswerReviews>();
  /**
   * A field's naming pattern (namingPattern: its data source and the first word of its name) as a 32-bit hash (0 =
   * unknown; no string kept, no list of members: a catalog of a million distinct first words costs 4 bytes a field),
   * and per pattern and predicted tag the reviewers' treatment of the classifier's answer (as answerReviewsByTag): a
   * correction of `cod_cliente` in one data source speaks for its `cod_produto`, which no embedding puts near it. Two
   * patterns whose hashes collide share their reviews of the same answer (a given pair: one chance in 4 × 10⁹).
   */
  private patternOf = new Uint32Array(0);
  /** A hash of the field's data source, table and column name (fieldKey; 0 = unknown): which field a query is about. */
  private fieldKeys = new Uint32Array(0);
  private readonly answerReviewsByPattern = new Map<string, AnswerReviews>();
  /** The patterns whose reviews changed since takeTouchedPatterns last took them (a confirmation, a reopening, a removal). */
  private readonly touchedPatterns = new Set<number>();
  hashOf = new Uint32Array(0);
  private tagPosition = new Int32Array(0);
  private levelPosition = new Int32Array(0);
  /** Embeddings, one signed byte a dimension (component = byte × scale); see quantizeInto. */
  private readonly chunks: Int8Array[] = [];
  private scaleOf = new Float32Array(0);
  private readonly chunkSlots: number;
  private raws = new Float64Array(0);
  private hasRaw = new Uint8Array(0);
  /** Slots with remembered raw values. */
  rawCount = 0;
  readonly tags = new Map<number, TagState>();
  private readonly levels: GroupState[] = [];
  private readonly levelNames: string[] = [];
  private readonly levelIndex = new Map<string, number>();
  /**
   * Keyed by slot; held by worker threads (searches are asynchronous). Close it with close(). Holds one slot per
   * distinct embedding (see Twins): search through search(), which adds the twins.
   */
  readonly index: ThreadedNearestIndex;
  private readonly twins: Twins;
  /** The unit embedding being applied, before it is compared with the stored one; then as it is stored (quantized). */
  private readonly incoming: Float32Array;
  private readonly incomingBytes: Int8Array;
  /** A decoded embedding that is used and dropped within one call (group sums, the confirmed-twin hash). */
  private readonly scratch: Float32Array;
  /** Bumped by every apply()/remove(): tells whether the catalog changed since a given moment. */
  version = 0;

  constructor(
    readonly dimensions: number,
    capacity: number,
    indexShards = 1,
  ) {
    this.chunkSlots = Math.max(1, Math.floor(CHUNK_BYTES / dimensions));
    this.index = new ThreadedNearestIndex(dimensions, capacity, indexShards);
    this.twins = new Twins((slot) => this.embedding(slot));
    this.incoming = new Float32Array(dimensions);
    this.incomingBytes = new Int8Array(dimensions);
    this.scratch = new Float32Array(dimensions);
    this.grow(capacity);
  }

  /** Stops the index's threads. */
  close(): Promise<void> {
    return this.index.close();
  }

  /** Number of fields held. */
  get size(): number {
    return this.slotIds.size;
  }

  /** One past the highest slot ever used (iterate slots below it and skip free ones). */
  get slotCount(): number {
    return this.slotEnd;
  }

  /** The field id held in `slot`; undefined for a free slot. */
  idOf(slot: number): string | undefined {
    return this.slotIds.idOf(slot);
  }

  /** Whether `slot` holds a field. */
  holds(slot: number): boolean {
    return this.slotIds.has(slot);
  }

  slot(id: string): number | undefined {
    return this.slotIds.get(id);
  }

  /**
   * The field's unit embedding as stored (quantized, see quantizeInto): a new array, the caller's to keep. Every
   * computation of the replica — group sums, peer samples, the index, twins — sees these values, never the exact ones.
   */
  embedding(slot: number): Float32Array {
    return this.embeddingInto(slot, new Float32Array(this.dimensions));
  }

  /** The stored embedding decoded into `out` (for a vector used and dropped at once: no garbage per call). */
  private embeddingInto(slot: number, out: Float32Array): Float32Array {
    return dequantizeInto(out, this.storedBytes(slot), this.scaleOf[slot] as number);
  }

  /** The slot's quantized components: a view into the store. */
  private storedBytes(slot: number): Int8Array {
    const offset = (slot % this.chunkSlots) * this.dimensions;
    return (this.chunks[Math.floor(slot / this.chunkSlots)] as Int8Array).subarray(offset, offset + this.dimensions);
  }

  /** Whether the slot holds the field with this fieldKey (its data source, table and column name). */
  isField(slot: number, key: number): boolean {
    return key !== 0 && this.fieldKeys[slot] === key;
  }

  /** Whether a reviewer has confirmed the field in this slot. */
  isConfirmed(slot: number): boolean {
    return this.confirmed[slot] === 1;
  }

  /** Whether the field's classification is the classifier's own answer, not yet confirmed by a reviewer. */
  isSelfClassified(slot: number): boolean {
    return this.selfClassified[slot] === 1;
  }

  /** The confirmed fields with the same embedding as the field in this slot (itself excluded). */
  confirmedTwins(slot: number): number[] {
    const e = this.embeddingInto(slot, this.scratch);
    const list = this.confirmedByHash.get(hashVector(e));
    if (!list) return [];
    return list.filter((other) => other !== slot && sameVector(this.embedding(other), e));
  }

  /** The chain path of a self-classified field's runner-up (the classifier's second choice); null when none or not self-classified. */
  runnerUpPath(slot: number): string | null {
    return this.runnersUp(slot)[0]?.path ?? null;
  }

  /** A self-classified field's two best runners-up, best first, with their points over the answer's; empty when none or not self-classified. */
  runnersUp(slot: number): Array<{ path: string; ratio: number }> {
    if (this.selfClassified[slot] !== 1) return [];
    const out: Array<{ path: string; ratio: number }> = [];
    for (let i = 0; i < 2; i++) {
      const p = this.supportRunnerPath[2 * slot + i] as number;
      if (p >= 0)
        out.push({
          path: this.runnerPaths[p] as string,
          ratio: (this.supportRunnerRatio[2 * slot + i] as number) / 255,
        });
    }
    return out;
  }

  /**
   * How reviewers treated the fields the classifier gave this tag: kept as predicted or corrected, and the most
   * common correction (tag id and level) with its count; null when none was reviewed.
   */
  answerReviews(predictedTagId: number): ReviewedAnswers | null {
    return summarizeReviews(this.answerReviewsByTag.get(predictedTagId));
  }

  /**
   * How reviewers treated the classifier's answer `predictedTagId` on the confirmed fields of the slot's naming pattern
   * (the same data source, the same first word of the name), as answerReviews; null when none of them was reviewed.
   */
  patternReviews(slot: number, predictedTagId: number): ReviewedAnswers | null {
    const pattern = this.patternOf[slot] as number;
    // Most catalogs' fields have no reviewed pattern: no key is built for them.
    if (pattern === 0 || this.answerReviewsByPattern.size === 0) return null;
    return summarizeReviews(this.answerReviewsByPattern.get(`${pattern}\u0000${predictedTagId}`));
  }

  /**
   * The naming patterns whose reviews changed since the last call (confirmed fields applied, reopened or removed), and
   * forgets them: the self-classified fields of these patterns have new evidence (patternPeers finds them).
   */
  takeTouchedPatterns(): Set<number> {
    const out = new Set(this.touchedPatterns);
    this.touchedPatterns.clear();
    return out;
  }

  /**
   * The self-classified fields of the given naming patterns (takeTouchedPatterns), at most `limit` a pattern: a review
   * in their pattern speaks for or against their classifier answers (patternReviews). One pass over the catalog's
   * slots, whatever the number of patterns.
   */
  patternPeers(patterns: ReadonlySet<number>, limit: number): number[] {
    const counts = new Map<number, number>();
    const out: number[] = [];
    if (patterns.size === 0) return out;
    for (let slot = 0; slot < this.slotEnd; slot++) {
      const pattern = this.patternOf[slot] as number;
      if (pattern === 0 || this.selfClassified[slot] !== 1 || !patterns.has(pattern)) continue;
      const n = counts.get(pattern) ?? 0;
      if (n >= limit) continue;
      counts.set(pattern, n + 1);
      out.push(slot);
    }
    return out;
  }

  /** The field's twins (same embedding, itself excluded), at most `limit` of them. */
  twinsOf(slot: number, limit?: number): number[] {
    return this.twins.twinsOf(slot, limit);
  }

  level(slot: number): string {
    return this.levelNames[this.levelOf[slot] as number] as string;
  }

  /**
   * The classifier's view of the field, from its own name, table, comment, type and formats; null when unknown. Its
   * `labelGap` (the points the label trails its answer by) is null when unknown.
   */
  predicted(slot: number): { tagId: number; level: string; confidence: number; labelGap: number | null } | null {
    const tagId = this.predTag[slot] as number;
    if (tagId === 0) return null;
    const gap = this.predGap[slot] as number;
    return {
      tagId,
      level: this.levelNames[this.predLevel[slot] as number] as string,
      confidence: this.predConf[slot] as number,
      labelGap: Number.isNaN(gap) ? null : gap,
    };
  }

  /** How many of the tag's fields sit at each level, and how many of those a reviewer confirmed. */
  tagLevels(tagId: number): Array<{ level: string; count: number; confirmed: number }> {
    const t = this.tags.get(tagId);
    if (!t) return [];
    return [...t.levelCounts].flatMap(([n, count]) =>
      count > 0 ? [{ level: this.levelNames[n] as string, count, confirmed: t.confirmedLevelCounts.get(n) ?? 0 }] : [],
    );
  }

  /** The levels the catalog holds, with their groups. */
  levelGroups(): Array<{ level: string; group: GroupState }> {
    return this.levelNames.flatMap((level, i) =>
      (this.levels[i] as GroupState).count > 0 ? [{ level, group: this.levels[i] as GroupState }] : [],
    );
  }

  /** The tag's peer sample: up to `limit` of its (trusted) members, smallest id hash first, and every sampled member's embedding. */
  tagSample(tagId: number, limit: number): { slots: number[]; embeddings: readonly Float32Array[] } {
    const sample = this.peerSample(tagId);
    return sample
      ? { slots: sample.slots.slice(0, limit), embeddings: sample.embeddings }
      : { slots: [], embeddings: [] };
  }

  /** About `size` slots of the whole catalog, those with the smallest id hash, in hash order (a stable uniform sample). */
  hashSample(size: number): number[] {
    const limit = hashSampleLimit(size, this.size);
    const slots: number[] = [];
    for (let slot = 0; slot < this.slotEnd; slot++)
      if (this.slotIds.has(slot) && (this.hashOf[slot] as number) < limit) slots.push(slot);
    return slots.sort((a, b) => (this.hashOf[a] as number) - (this.hashOf[b] as number) || a - b);
  }

  levelGroup(level: string): GroupState | undefined {
    const i = this.levelIndex.get(level);
    return i === undefined ? undefined : this.levels[i];
  }

  levelGroupOf(slot: number): GroupState | undefined {
    return this.levels[this.levelOf[slot] as number];
  }

  apply(row: CatalogFieldRow): void {
    const vector = row.embedding ? decodeVector(row.embedding) : null;
    if (!vector || vector.length !== this.dimensions) {
      this.remove(row.id);
      return;
    }
    const hash = hashId(row.id);
    const old = this.slotIds.get(row.id, hash);
    if (old !== undefined) this.detach(old);
    this.version++;
    const slot = old ?? this.freeSlots.pop() ?? this.slotEnd;
    if (slot >= this.slotEnd) this.slotEnd = slot + 1;
    if (slot >= this.capacity) this.grow(slot + 1);
    normalizeInto(this.incoming, vector);
    const scale = quantizeInto(this.incomingBytes, this.incoming);
    // A re-applied field whose embedding did not change (a confirm, a new tag) leaves the index alone.
    const stored = this.storedBytes(slot);
    const moved = old === undefined || this.scaleOf[slot] !== scale || !sameVector(stored, this.incomingBytes);
    if (moved) {
      if (old !== undefined) this.unindex(old);
      stored.set(this.incomingBytes);
      this.scaleOf[slot] = scale;
    }
    // As stored from here on (the index copies it when it is added).
    const e = this.embeddingInto(slot, this.incoming);
    if (old === undefined) {
      this.hashOf[slot] = hash;
      this.slotIds.set(row.id, slot, hash);
    }
    this.tagOf[slot] = row.tag_id;
    this.levelOf[slot] = this.levelNumber(row.level);
    this.confirmed[slot] = row.review_status === 'confirmed' ? 1 : 0;
    this.selfClassified[slot] = row.classification_source === 'classifier' && row.review_status !== 'confirmed' ? 1 : 0;
    const support = this.selfClassified[slot] === 1 ? classifierSupport(row.classification_evidence) : null;
    for (let i = 0; i < 2; i++) {
      const r = support?.runnersUp[i];
      this.supportRunnerPath[2 * slot + i] = r ? this.internPath(r.path) : -1;
      this.supportRunnerRatio[2 * slot + i] = r ? Math.round(Math.min(1, Math.max(0, r.ratio)) * 255) : 0;
    }
    const predicted =
      row.predicted_tag_id !== null && row.predicted_tag_id !== undefined && row.predicted_level
        ? row.predicted_tag_id
        : 0;
    this.predTag[slot] = predicted;
    this.predLevel[slot] = predicted === 0 ? 0 : this.levelNumber(row.predicted_level as string);
    this.predConf[slot] = predicted === 0 ? 0 : (row.predicted_confidence ?? 0.5);
    const gap = row.predicted_label_gap;
    this.predGap[slot] = predicted === 0 || gap === null || gap === undefined || !Number.isFinite(gap) ? NaN : gap;
    const pattern = namingPattern(row.datasource_id, row.field_name);
    this.patternOf[slot] = pattern === null ? 0 : hashId(pattern) || 1;
    this.fieldKeys[slot] = fieldKey(row) ?? 0;
    this.attach(slot, e);
    if (moved && this.twins.join(slot) === slot) this.index.add(slot, e);
  }

  remove(id: string): void {
    const slot = this.slotIds.get(id);
    if (slot === undefined) return;
    this.detach(slot);
    this.version++;
    this.slotIds.delete(slot, this.hashOf[slot] as number);
    this.forgetRaw(slot);
    this.unindex(slot);
    // A free slot belongs to no pattern and is no field (patternPeers and isField scan slots by these).
    this.patternOf[slot] = 0;
    this.fieldKeys[slot] = 0;
    this.freeSlots.push(slot);
  }

  /**
   * Up to k nearest fields (slots) of each query by cosine similarity, best first, twins included. `urgent`: see
   * ThreadedNearestIndex.search.
   */
  async search(queries: readonly Float32Array[], k: number, options: { urgent?: boolean } = {}): Promise<Neighbours[]> {
    const found = await this.index.search(queries, k, options);
    return found.map((f) => this.twins.expand(f, k));
  }

  /** Takes the slot out of the index, before its embedding changes or it is freed; a twin takes its place there. */
  private unindex(slot: number): void {
    const successor = this.twins.leave(slot);
    if (successor === NOT_INDEXED) return;
    this.index.remove(slot);
    if (successor >= 0) this.index.add(successor, this.embedding(successor));
  }

  // ------------------------------------------------------------ remembered raw values

  hasRemembered(slot: number): boolean {
    return this.hasRaw[slot] === 1;
  }

  remember(slot: number, value: RememberedRaw): void {
    const o = slot * RAW_WIDTH;
    AXIS_KEYS.forEach((k, i) => (this.raws[o + i] = value.raw[k]));
    this.raws[o + PEER] = value.peer ?? Number.NaN;
    this.raws[o + ANCHOR] = value.anchor ?? Number.NaN;
    if (this.hasRaw[slot] !== 1) {
      this.hasRaw[slot] = 1;
      this.rawCount++;
    }
  }

  private forgetRaw(slot: number): void {
    if (this.hasRaw[slot] !== 1) return;
    this.hasRaw[slot] = 0;
    this.rawCount--;
  }

  /** The remembered values of the fields whose id hash is below `hashLimit`. */
  rememberedSample(hashLimit: number): RememberedRaw[] {
    const out: RememberedRaw[] = [];
    const r = this.raws;
    for (let slot = 0; slot < this.slotEnd; slot++) {
      if (this.hasRaw[slot] !== 1 || !((this.hashOf[slot] as number) < hashLimit)) continue;
      const o = slot * RAW_WIDTH;
      const peer = r[o + PEER] as number;
      const anchor = r[o + ANCHOR] as number;
      out.push({
        raw: Object.fromEntries(AXIS_KEYS.map((k, i) => [k, r[o + i] as number])) as RawAxes,
        peer: Number.isNaN(peer) ? null : peer,
        anchor: Number.isNaN(anchor) ? null : anchor,
      });
    }
    return out;
  }

  // ------------------------------------------------------------ peers

  /** The tag's peer sample (see PeerSample), built once per membership change. */
  private peerSample(tagId: number): PeerSample | null {
    const tag = this.tags.get(tagId);
    if (!tag) return null;
    if (tag.sample) return tag.sample;
    const hash = this.hashOf;
    const members = Array.from(tag.members.slots.subarray(0, tag.members.size));
    const trusted = members.filter((slot) => this.trusted(slot));
    const enough = trusted.length >= Math.max(TRUSTED_PEERS_MIN, TRUSTED_PEERS_SHARE * members.length);
    const all = (enough ? trusted : members).sort((a, b) => (hash[a] as number) - (hash[b] as number) || a - b);
    const slots = all.slice(0, PEER_SAMPLE_SIZE);
    tag.sample = {
      slots,
      embeddings: slots.map((s) => this.embedding(s)),
      inSample: new Set(slots),
      spare: all[PEER_SAMPLE_SIZE] ?? -1,
    };
    return tag.sample;
  }

  /**
   * Whether nothing says the member carries the wrong tag: a reviewer confirmed it, or the classifier names its tag
   * (an import's or a rule's label it found fewer points for is not trusted) and, when the classification is the
   * classifier's own answer, was at least TRUSTED_CONFIDENCE sure of it.
   */
  private trusted(slot: number): boolean {
    if (this.confirmed[slot] === 1) return true;
    if ((this.predGap[slot] as number) > 0) return false;
    return !(this.selfClassified[slot] === 1 && (this.predConf[slot] as number) < TRUSTED_CONFIDENCE);
  }

  /** The peers a field is compared with: its tag's sample without the field itself (≤ PEER_SAMPLE_SIZE). */
  peersOf(slot: number): readonly Float32Array[] {
    const sample = this.peerSample(this.tagOf[slot] as number);
    if (!sample) return [];
    if (!sample.inSample.has(slot)) return sample.embeddings;
    const peers = sample.embeddings.filter((_, i) => sample.slots[i] !== slot);
    if (sample.spare >= 0) peers.push(this.embedding(sample.spare));
    return peers;
  }

  // ------------------------------------------------------------ internals

  /** Adds the slot to its groups; `e` is its stored embedding, decoded. */
  private attach(slot: number, e: Float32Array): void {
    const tagId = this.tagOf[slot] as number;
    const tag = this.tags.get(tagId) ?? this.newTag(tagId);
    addInto(tag.sum, e, 1);
    tag.count++;
    this.tagPosition[slot] = tag.members.push(slot);
    tag.sample = null;
    const ln = this.levelOf[slot] as number;
    tag.levelCounts.set(ln, (tag.levelCounts.get(ln) ?? 0) + 1);
    if (this.confirmed[slot] === 1) {
      addInto(tag.confirmedSum, e, 1);
      tag.confirmedCount++;
      tag.confirmedLevelCounts.set(ln, (tag.confirmedLevelCounts.get(ln) ?? 0) + 1);
      const h = hashVector(e);
      const list = this.confirmedByHash.get(h);
      if (list) list.push(slot);
      else this.confirmedByHash.set(h, [slot]);
      this.countReview(slot, 1);
    }
    const level = this.levels[this.levelOf[slot] as number] as GroupState;
    addInto(level.sum, e, 1);
    level.count++;
    this.levelPosition[slot] = level.members.push(slot);
  }

  private detach(slot: number): void {
    const e = this.embeddingInto(slot, this.scratch);
    const tagId = this.tagOf[slot] as number;
    const tag = this.tags.get(tagId);
    if (tag) {
      addInto(tag.sum, e, -1);
      tag.count--;
      const moved = tag.members.removeAt(this.tagPosition[slot] as number);
      if (moved >= 0) this.tagPosition[moved] = this.tagPosition[slot] as number;
      tag.sample = null;
      const ln = this.levelOf[slot] as number;
      tag.levelCounts.set(ln, (tag.levelCounts.get(ln) ?? 1) - 1);
      if (this.confirmed[slot] === 1) {
        addInto(tag.confirmedSum, e, -1);
        tag.confirmedCount--;
        tag.confirmedLevelCounts.set(ln, (tag.confirmedLevelCounts.get(ln) ?? 1) - 1);
        const h = hashVector(e);
        const list = this.confirmedByHash.get(h)?.filter((other) => other !== slot) ?? [];
        if (list.length > 0) this.confirmedByHash.set(h, list);
        else this.confirmedByHash.delete(h);
        this.countReview(slot, -1);
      }
      if (tag.count === 0) this.tags.delete(tagId);
    }
    const level = this.levels[this.levelOf[slot] as number];
    if (level) {
      addInto(level.sum, e, -1);
      level.count--;
      const moved = level.members.removeAt(this.levelPosition[slot] as number);
      if (moved >= 0) this.levelPosition[moved] = this.levelPosition[slot] as number;
    }
  }

  private newTag(tagId: number): TagState {
    const t: TagState = {
      sum: new Float32Array(this.dimensions),
      count: 0,
      members: new SlotList(),
      levelCounts: new Map(),
      confirmedLevelCounts: new Map(),
      confirmedSum: new Float32Array(this.dimensions),
      confirmedCount: 0,
      sample: null,
    };
    this.tags.set(tagId, t);
    return t;
  }

  private internPath(path: string): number {
    let i = this.runnerPathIndex.get(path);
    if (i === undefined) {
      i = this.runnerPaths.length;
      this.runnerPaths.push(path);
      this.runnerPathIndex.set(path, i);
    }
    return i;
  }

  /**
   * Counts a confirmed field's treatment of the classifier's view (kept or corrected), for its predicted tag and for its
   * naming pattern with that tag: +1 on attach, −1 on detach.
   */
  private countReview(slot: number, delta: number): void {
    const predicted = this.predTag[slot] as number;
    if (predicted === 0) return;
    const kept = this.tagOf[slot] === predicted && this.levelOf[slot] === this.predLevel[slot];
    const to = `${this.tagOf[slot] as number}\u0000${this.level(slot)}`;
    const count = <K>(book: Map<K, AnswerReviews>, key: K): void => {
      const r = book.get(key) ?? { kept: 0, corrected: 0, to: new Map<string, number>() };
      if (kept) r.kept += delta;
      else {
        r.corrected += delta;
        r.to.set(to, (r.to.get(to) ?? 0) + delta);
      }
      if (r.kept + r.corrected > 0) book.set(key, r);
      else book.delete(key);
    };
    count(this.answerReviewsByTag, predicted);
    const pattern = this.patternOf[slot] as number;
    if (pattern !== 0) {
      count(this.answerReviewsByPattern, `${pattern}\u0000${predicted}`);
      this.touchedPatterns.add(pattern);
    }
  }

  private levelNumber(level: string): number {
    let i = this.levelIndex.get(level);
    if (i === undefined) {
      if (this.levelNames.length > 255) throw new RangeError('more than 256 distinct levels');
      i = this.levelNames.length;
      this.levelNames.push(level);
      this.levelIndex.set(level, i);
      this.levels.push({ sum: new Float32Array(this.dimensions), count: 0, members: new SlotList() });
    }
    return i;
  }

  /** Grows every per-slot column to hold at least `needed` slots (doubling; embeddings by whole chunks). */
  private grow(needed: number): void {
    if (needed <= this.capacity) return;
    const capacity = Math.max(needed, this.capacity * 2, 1024);
    const widen = <T extends Int32Array | Uint32Array | Uint8Array | Float32Array | Float64Array>(
      old: T,
      make: (n: number) => T,
      width = 1,
    ): T => {
      const grown = make(capacity * width);
      grown.set(old);
      return grown;
    };
    this.tagOf = widen(this.tagOf, (n) => new Int32Array(n));
    this.levelOf = widen(this.levelOf, (n) => new Uint8Array(n));
    this.confirmed = widen(this.confirmed, (n) => new Uint8Array(n));
    this.predTag = widen(this.predTag, (n) => new Int32Array(n));
    this.predLevel = widen(this.predLevel, (n) => new Uint8Array(n));
    this.predConf = widen(this.predConf, (n) => new Float32Array(n));
    this.predGap = widen(this.predGap, (n) => new Float32Array(n));
    this.selfClassified = widen(this.selfClassified, (n) => new Uint8Array(n));
    this.supportRunnerPath = widen(this.supportRunnerPath, (n) => new Int32Array(n), 2);
    this.supportRunnerRatio = widen(this.supportRunnerRatio, (n) => new Uint8Array(n), 2);
    this.hashOf = widen(this.hashOf, (n) => new Uint32Array(n));
    this.tagPosition = widen(this.tagPosition, (n) => new Int32Array(n));
    this.levelPosition = widen(this.levelPosition, (n) => new Int32Array(n));
    this.patternOf = widen(this.patternOf, (n) => new Uint32Array(n));
    this.fieldKeys = widen(this.fieldKeys, (n) => new Uint32Array(n));
    this.hasRaw = widen(this.hasRaw, (n) => new Uint8Array(n));
    this.raws = widen(this.raws, (n) => new Float64Array(n), RAW_WIDTH);
    this.scaleOf = widen(this.scaleOf, (n) => new Float32Array(n));
    while (this.chunks.length * this.chunkSlots < capacity)
      this.chunks.push(new Int8Array(this.chunkSlots * this.dimensions));
    this.twins.grow(capacity);
    this.slotIds.grow(capacity);
    this.capacity = capacity;
  }
}
