// What the majority value kind says about each tag: the kind a tag's values prove (e-mails prove an e-mail
// column), the tags a kind is compatible with, and which kinds are sensitive enough to raise a level when only
// some samples have them.
import type { ValueKind } from './detectors.js';

export interface KindRule {
  /** Leaf the kind proves, and how strongly. */
  readonly proves?: readonly [string, number];
  /** Leaves the kind is compatible with; others are marked down when the kind holds the column. `null` = any. */
  readonly compatible: ReadonlySet<string> | null;
  /** Kinds that are personal or secret on their own: a minority of them in a column still raises its level. */
  readonly sensitive?: boolean;
}

const set = (...xs: string[]): ReadonlySet<string> => new Set(xs);
const IDS = ['Record ID', 'Foreign key', 'Customer ID', 'Order ID', 'Employee ID', 'Transaction ID', 'Invoice number', 'Medical record number', 'Cookie ID', 'Device ID', 'Contract reference', 'Shipment tracking number', 'Product SKU', 'Insurance policy number', 'Health insurance number', 'Username', 'Discount code', 'Version', 'Hash or checksum', 'Category', 'Status flag'];
const NUMBERS = ['Monetary amount', 'Account balance', 'Salary', 'Price', 'Quantity', 'Metric value', 'Credit score', 'Performance rating', 'Sort order', 'Status flag', 'Lab result', 'Clinical measurement', 'Geo coordinates', 'Timestamp', 'Category', 'Gender', 'Department', 'Card verification code', 'Card expiry date', 'Date of birth', 'Postal code', 'Version', 'Configuration setting', 'Country', 'Country code', 'Currency code', 'Job title', 'Approximate location', 'Age', 'Time zone', 'Marital status'];
const TEXTS = ['Full name', 'First name', 'Last name', 'Postal address', 'City', 'Country', 'Organisation name', 'Job title', 'Department', 'Internal notes', 'Public product description', 'Object name', 'Category', 'Log message', 'Diagnosis', 'Medication', 'Security question', 'Event name', 'Approximate location', 'Precise location', 'Configuration setting', 'Status flag', 'Username', 'Gender', 'Lab result', 'Contract reference', 'User agent', 'Unit of measure', 'Language code', 'Currency code', 'Country code', 'Foreign key', 'Product SKU', 'Discount code', 'Record ID', 'Precise location', 'Marital status', 'Time zone', 'File reference', 'Age'];

export const KIND_RULES: Readonly<Record<ValueKind, KindRule>> = {
  email: { proves: ['Email address', 6], compatible: set('Email address', 'Username', 'Foreign key', 'Customer ID', 'Record ID'), sensitive: true },
  phone: { proves: ['Phone number', 5], compatible: set('Phone number'), sensitive: true },
  card_number: { proves: ['Payment card number', 6.5], compatible: set('Payment card number'), sensitive: true },
  iban: { proves: ['Bank account number', 6.5], compatible: set('Bank account number'), sensitive: true },
  ipv4: { proves: ['IP address', 5.5], compatible: set('IP address') },
  ipv6: { proves: ['IP address', 5.5], compatible: set('IP address') },
  mac_address: { proves: ['Device ID', 4], compatible: set('Device ID') },
  uuid: { compatible: set(...IDS, 'API key or token', 'Transaction ID') },
  datetime: { proves: ['Timestamp', 3], compatible: set('Timestamp', 'Date of birth', 'Card expiry date', 'Status flag') },
  date: { compatible: set('Timestamp', 'Date of birth', 'Card expiry date') },
  time: { proves: ['Timestamp', 2], compatible: set('Timestamp') },
  us_ssn: { proves: ['National ID number', 6.5], compatible: set('National ID number', 'Tax identification number'), sensitive: true },
  national_id: { proves: ['National ID number', 4.5], compatible: set('National ID number', 'Tax identification number', 'Driver licence number', 'Passport number', 'Health insurance number'), sensitive: true },
  url: { proves: ['URL', 4.5], compatible: set('URL', 'Configuration setting') },
  jwt: { proves: ['API key or token', 6], compatible: set('API key or token', 'Cookie ID'), sensitive: true },
  api_key: { proves: ['API key or token', 3], compatible: set('API key or token', 'Password hash', 'Hash or checksum', 'Cookie ID', 'Device ID', 'Record ID', 'Foreign key', 'Transaction ID', 'Customer ID', 'Version', 'Discount code', 'Shipment tracking number'), sensitive: true },
  password_hash: { proves: ['Password hash', 7], compatible: set('Password hash', 'API key or token'), sensitive: true },
  hex_hash: { proves: ['Hash or checksum', 2.5], compatible: set('Hash or checksum', 'Password hash', 'API key or token', 'Record ID', 'Foreign key', 'Cookie ID', 'Device ID', 'Version', 'Transaction ID') },
  coordinate: { proves: ['Geo coordinates', 1.5], compatible: set('Geo coordinates', 'Precise location', ...NUMBERS) },
  coordinate_pair: { proves: ['Geo coordinates', 5], compatible: set('Geo coordinates', 'Precise location') },
  postal_code: { proves: ['Postal code', 3], compatible: set('Postal code', 'Postal address', 'Product SKU', 'Record ID', 'Foreign key', 'Category', 'Discount code') },
  boolean: { proves: ['Status flag', 2.5], compatible: set('Status flag', 'Gender', 'Configuration setting') },
  gender_code: { compatible: set('Gender', 'Category', 'Status flag', 'Unit of measure', 'Job title', 'Department') },
  country_code: { proves: ['Country code', 2], compatible: set('Country', 'Country code', 'Language code', 'Approximate location', 'Category', 'Currency code', 'Status flag', 'Department', 'Unit of measure', 'Job title') },
  us_state: { proves: ['Approximate location', 2.5], compatible: set('Approximate location', 'Country code', 'Country', 'Category', 'Language code', 'Postal address', 'Status flag', 'Department') },
  currency_code: { proves: ['Currency code', 3.5], compatible: set('Currency code', 'Category', 'Unit of measure') },
  language_code: { proves: ['Language code', 2], compatible: set('Language code', 'Country code', 'Country', 'Category', 'Unit of measure', 'Status flag', 'Approximate location') },
  money: { proves: ['Monetary amount', 2.5], compatible: set('Monetary amount', 'Account balance', 'Salary', 'Price') },
  integer: { compatible: set(...NUMBERS, ...IDS, 'Phone number', 'Bank account number', 'National ID number', 'Tax identification number', 'Driver licence number', 'Payment card number', 'IP address') },
  decimal: { compatible: set(...NUMBERS) },
  digits: { compatible: set(...IDS, 'Phone number', 'Bank account number', 'National ID number', 'Tax identification number', 'Driver licence number', 'Passport number', 'Payment card number', 'Postal code', 'Timestamp', 'Monetary amount', 'Account balance', 'Metric value', 'Card verification code', 'Date of birth', 'Quantity') },
  person_name: { proves: ['Full name', 1.6], compatible: set(...TEXTS) },
  word: { compatible: set(...TEXTS) },
  code: { compatible: set(...TEXTS, ...IDS, 'Passport number', 'Driver licence number', 'National ID number', 'Tax identification number', 'Postal code', 'Bank account number', 'Card verification code', 'Country code', 'Currency code', 'Language code', 'Unit of measure', 'Diagnosis', 'Medication', 'Version', 'Card expiry date') },
  free_text: { compatible: set(...TEXTS, 'API key or token') },
  json: { compatible: set('Configuration setting', 'Log message', 'Internal notes', 'Postal address', 'Geo coordinates', 'Precise location', 'Event name', 'Category') },
  time_zone: { proves: ['Time zone', 4], compatible: set('Time zone', 'Configuration setting', 'Approximate location', 'Category', 'Country', 'City', 'Language code') },
  file_path: { proves: ['File reference', 3.5], compatible: set('File reference', 'URL', 'Object name', 'Configuration setting', 'Log message', 'Foreign key', 'Record ID', 'Internal notes') },
  marital_status: { proves: ['Marital status', 3], compatible: set('Marital status', 'Category', 'Status flag') },
  other: { compatible: null },
};
