// The classifier's public surface: what import, the scanner and re-evaluation call.
export {
  buildClassifierContext,
  classifyField,
  labelGap,
  labelGapOf,
  scoreField,
  withConfirmed,
  CLASSIFIER_VERSION,
  type CandidatePoints,
  type Classification,
  type ClassifierContext,
  type ClassifierTag,
  type ClassifyInput,
  type ConfirmedNeighbour,
  type Evidence,
  type EvidenceFactor,
} from './classifier.js';
export {
  formatFingerprint,
  summarizeValues,
  summaryFromFingerprint,
  type ValueKind,
  type ValueSummary,
} from './detectors.js';
export { typeFamily, type TypeFamily } from './data-type-gate.js';
