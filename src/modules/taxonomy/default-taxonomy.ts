// The taxonomy loaded at first start. Descriptions and keywords feed each tag's embedding anchor, so the
// keywords deliberately include the abbreviations real schemas use (dob, ssn, tel, addr, acct, amt …).

export type LevelCode = 'L1' | 'L2' | 'L3' | 'L4' | 'L5';

export interface DefaultTagSpec {
  name: string;
  default_level: LevelCode;
  description: string;
  keywords: string[];
  children?: DefaultTagSpec[];
}

export interface FlatTag {
  chain_path: string;
  name: string;
  parent_path: string | null;
  default_level: LevelCode;
  description: string;
  keywords: string[];
}

function tag(name: string, default_level: LevelCode, description: string, keywords: string[], children?: DefaultTagSpec[]): DefaultTagSpec {
  return children ? { name, default_level, description, keywords, children } : { name, default_level, description, keywords };
}

export const defaultTaxonomy: readonly DefaultTagSpec[] = [
  tag('Personal', 'L3', 'Information that identifies, contacts or tracks a natural person.', ['personal data', 'pii', 'person', 'individual', 'data subject'], [
    tag('Identity', 'L3', 'Attributes that establish who a person is.', ['identity', 'person', 'name', 'id document', 'demographics'], [
      tag('Full name', 'L3', "A person's complete name as displayed or printed.", ['full name', 'name', 'fullname', 'display name', 'nm', 'cust nm', 'contact name', 'holder name', 'patient name', 'person name']),
      tag('First name', 'L3', "A person's given name.", ['first name', 'given name', 'forename', 'fname', 'first nm', 'fst nm', 'vorname', 'prenom', 'nombre']),
      tag('Last name', 'L3', "A person's family name or surname.", ['last name', 'surname', 'family name', 'lname', 'last nm', 'lst nm', 'nachname', 'nom', 'apellido']),
      tag('Date of birth', 'L4', "The calendar date on which a person was born.", ['date of birth', 'dob', 'birth date', 'birthdate', 'birthday', 'bdate', 'brth dt', 'geburtsdatum', 'date naissance', 'fecha nacimiento']),
      tag('Gender', 'L3', "A person's gender or sex as recorded.", ['gender', 'sex', 'gndr', 'sex cd', 'geschlecht', 'sexe', 'genero']),
      tag('National ID number', 'L5', 'A government-issued national identification or social security number.', ['national id', 'ssn', 'social security number', 'nin', 'national insurance number', 'sin', 'citizen id', 'id number', 'personalausweis', 'nir', 'dni', 'aadhaar']),
      tag('Passport number', 'L5', 'The number of a passport issued to a person.', ['passport', 'passport number', 'passport no', 'pass no', 'ppt no', 'travel document']),
      tag("Driver licence number", 'L4', "The number of a person's driving licence.", ['driver licence', 'drivers license', 'license number', 'dl no', 'dl num', 'driving permit', 'lic no']),
      tag('Tax identification number', 'L5', 'A personal tax identifier issued by a tax authority.', ['tax id', 'tin', 'taxpayer id', 'vat id', 'tax number', 'steuer id', 'steuernummer', 'itin', 'nif']),
      // Added with classifier 1.2: demographics real schemas hold beside the date of birth.
      tag('Age', 'L3', "A person's age in years, or the age band or group they fall in.", ['age', 'age years', 'age band', 'age group', 'age range', 'age bracket', 'alter', 'edad', 'idade']),
      tag('Marital status', 'L3', "A person's marital or civil status.", ['marital status', 'civil status', 'marital', 'married', 'familienstand', 'etat civil', 'estado civil', 'stato civile']),
    ]),
    tag('Contact', 'L3', 'Details used to reach a person.', ['contact', 'reach', 'address', 'communication'], [
      tag('Email address', 'L3', 'An electronic mail address of a person.', ['email', 'e-mail', 'email address', 'mail', 'eml', 'email addr', 'courriel', 'correo', 'mail adresse']),
      tag('Phone number', 'L3', 'A telephone or mobile number of a person.', ['phone', 'telephone', 'tel', 'mobile', 'cell', 'phone no', 'msisdn', 'fax', 'telefon', 'telefono', 'telephone number']),
      tag('Postal address', 'L3', 'A street address where a person lives or receives mail.', ['address', 'addr', 'street', 'address line', 'addr1', 'street address', 'house number', 'strasse', 'adresse', 'direccion']),
      tag('Postal code', 'L2', 'A postcode or ZIP code that narrows down where a person lives.', ['postal code', 'postcode', 'zip', 'zip code', 'zipcode', 'plz', 'cp', 'post cd']),
      tag('City', 'L2', 'The town or city part of an address.', ['city', 'town', 'locality', 'municipality', 'ort', 'stadt', 'ville', 'ciudad']),
      tag('Country', 'L2', 'The country in which a person or organisation resides.', ['country', 'country of residence', 'cntry', 'ctry', 'land', 'pays', 'pais']),
    ]),
    // Added with classifier 1.3.1: a person's photo and the templates biometric systems keep (fingerprints, faces,
    // irises, voices) are special-category data in most privacy laws.
    tag('Biometric', 'L5', "Images and measurements of a person's body that can single them out.", ['biometric', 'biometrics', 'photo', 'face', 'fingerprint'], [
      tag('Photo of a person', 'L4', "A photograph or portrait showing a person's face.", ['photo', 'picture', 'portrait', 'headshot', 'profile photo', 'profile picture', 'selfie', 'passport photo', 'face image', 'mugshot', 'foto', 'bild', 'lichtbild']),
      tag('Biometric template', 'L5', 'A fingerprint, face, iris, voice or palm template or scan used to recognise a person.', ['biometric', 'fingerprint', 'face template', 'face encoding', 'iris scan', 'retina scan', 'voiceprint', 'palm print', 'minutiae', 'thumbprint', 'fingerabdruck']),
    ]),
    tag('Online identifiers', 'L3', 'Identifiers that single out a person or their device online.', ['online identifier', 'tracking', 'device', 'account'], [
      tag('IP address', 'L3', 'An IPv4 or IPv6 address from which a person connected.', ['ip', 'ip address', 'ip addr', 'client ip', 'remote addr', 'ipv4', 'ipv6', 'source ip']),
      tag('Device ID', 'L3', 'A hardware or advertising identifier of a device.', ['device id', 'device', 'imei', 'imsi', 'idfa', 'gaid', 'android id', 'mac address', 'serial number', 'udid']),
      tag('Cookie ID', 'L3', 'A browser cookie, visitor or session identifier that tracks a person.', ['cookie', 'cookie id', 'visitor id', 'session id', 'anonymous id', 'tracking id', 'client id', 'sid']),
      tag('Username', 'L2', 'The login or handle a person uses for an account.', ['username', 'user name', 'login', 'handle', 'user id', 'usr nm', 'account name', 'screen name', 'nickname']),
    ]),
  ]),
  tag('Credentials & secrets', 'L5', 'Secrets that grant access to systems or accounts.', ['credential', 'secret', 'authentication', 'access', 'security'], [
    tag('Password hash', 'L5', 'A hashed or encrypted password of an account.', ['password', 'password hash', 'pwd', 'pw hash', 'passwd', 'pass', 'bcrypt', 'argon2', 'salted hash', 'kennwort']),
    tag('API key or token', 'L5', 'An API key, access token, session token or private key.', ['api key', 'token', 'access token', 'refresh token', 'secret', 'client secret', 'bearer', 'private key', 'apikey', 'auth token', 'session token']),
    tag('Security question', 'L4', 'A security question or its answer used to recover an account.', ['security question', 'security answer', 'secret question', 'recovery answer', 'memorable word', 'sec q', 'sec ans']),
  ]),
  tag('Financial', 'L4', 'Money, payment means and financial standing.', ['financial', 'finance', 'money', 'payment', 'banking'], [
    tag('Payment card number', 'L5', 'The primary account number (PAN) of a credit or debit card.', ['card number', 'credit card', 'pan', 'cc num', 'card no', 'ccn', 'debit card', 'cc number', 'kartennummer']),
    tag('Card expiry date', 'L4', 'The month and year a payment card expires.', ['expiry', 'expiration date', 'exp date', 'card exp', 'exp month', 'exp year', 'valid thru', 'mm yy']),
    tag('Card verification code', 'L5', 'The security code printed on a payment card.', ['cvv', 'cvc', 'cvv2', 'card security code', 'csc', 'verification code']),
    tag('Bank account number', 'L4', 'A bank account identifier such as an IBAN or account and routing number.', ['iban', 'bank account', 'account number', 'acct no', 'acct num', 'bic', 'swift', 'routing number', 'sort code', 'kontonummer', 'bank acct']),
    tag('Account balance', 'L4', 'The balance or credit limit of a financial account.', ['balance', 'bal', 'available balance', 'credit limit', 'outstanding', 'ledger balance', 'acct bal', 'saldo']),
    tag('Monetary amount', 'L3', 'The amount of a payment, charge, refund or claim.', ['amount', 'amt', 'total', 'payment amount', 'charge', 'refund', 'fee', 'premium', 'betrag', 'montant', 'importe']),
    tag('Transaction ID', 'L2', 'The identifier of a payment or financial transaction.', ['transaction id', 'txn id', 'trx id', 'payment id', 'transfer id', 'reference', 'txn ref', 'auth code']),
    tag('Salary', 'L4', "An employee's salary, wage, bonus or other compensation.", ['salary', 'wage', 'pay', 'compensation', 'bonus', 'sal', 'gross pay', 'annual salary', 'hourly rate', 'gehalt', 'salaire', 'sueldo']),
    tag('Credit score', 'L4', "A rating of a person's creditworthiness.", ['credit score', 'fico', 'credit rating', 'risk score', 'schufa', 'score', 'crd scr']),
    tag('Insurance policy number', 'L3', 'The number of an insurance policy held by a person or organisation.', ['policy number', 'policy no', 'pol no', 'policy id', 'insurance policy', 'pol num', 'policennummer']),
  ]),
  tag('Health', 'L5', 'Information about the physical or mental health of a person.', ['health', 'medical', 'clinical', 'patient', 'phi'], [
    tag('Diagnosis', 'L5', "A medical diagnosis, condition or allergy of a patient.", ['diagnosis', 'diag', 'dx', 'icd10', 'icd code', 'condition', 'allergy', 'disease', 'diagnose', 'diagnostico']),
    tag('Medication', 'L5', 'A drug, prescription or dosage given to a patient.', ['medication', 'med', 'drug', 'prescription', 'rx', 'dosage', 'dose', 'ndc', 'medikament', 'medicament']),
    tag('Medical record number', 'L4', 'An identifier of a patient or their medical record.', ['medical record number', 'mrn', 'patient id', 'patient number', 'chart number', 'pat id', 'emr id', 'health record']),
    tag('Health insurance number', 'L4', "A patient's health insurance member or subscriber number.", ['health insurance', 'insurance id', 'member id', 'subscriber id', 'medicare number', 'medicaid id', 'versichertennummer', 'payer id']),
    tag('Lab result', 'L5', 'The result of a laboratory test or examination.', ['lab result', 'test result', 'result value', 'loinc', 'specimen', 'lab value', 'hba1c', 'glucose', 'befund']),
    tag('Clinical measurement', 'L5', 'A vital sign or body measurement of a patient.', ['blood pressure', 'bp', 'heart rate', 'pulse', 'bmi', 'body weight', 'height', 'temperature', 'vitals', 'spo2']),
  ]),
  tag('Location', 'L3', 'Where a person or device is or has been.', ['location', 'geo', 'position', 'gps', 'place'], [
    tag('Geo coordinates', 'L3', 'Latitude and longitude of a point.', ['latitude', 'longitude', 'lat', 'lon', 'lng', 'coordinates', 'geo point', 'gps', 'geom', 'x y']),
    tag('Precise location', 'L4', "A person's tracked position or movement history.", ['location history', 'gps trace', 'last known location', 'current position', 'track', 'route', 'geohash', 'pickup location', 'dropoff location']),
    tag('Approximate location', 'L2', 'A coarse location such as a region, area or cell tower.', ['region', 'area', 'state', 'province', 'district', 'cell id', 'cell tower', 'territory', 'county', 'zone']),
  ]),
  tag('Business', 'L2', 'Operational records of the organisation and its commerce.', ['business', 'operations', 'commerce', 'company', 'internal'], [
    tag('Commerce', 'L2', 'Customers, orders and the documents around them.', ['sales', 'orders', 'customers', 'commerce', 'trade'], [
      tag('Organisation name', 'L2', 'The name of a company, merchant, supplier or other organisation.', ['company', 'company name', 'organisation', 'organization', 'org name', 'merchant', 'vendor', 'supplier', 'employer', 'legal name', 'firma']),
      tag('Customer ID', 'L2', 'An internal identifier of a customer, member, subscriber or student.', ['customer id', 'cust id', 'cust no', 'client id', 'member number', 'account id', 'subscriber id', 'student id', 'custno', 'kundennummer']),
      tag('Order ID', 'L2', 'The identifier or number of a customer order.', ['order id', 'order number', 'order no', 'ord id', 'ord no', 'purchase order', 'po number', 'bestellnummer']),
      tag('Invoice number', 'L2', 'The number of an invoice or bill.', ['invoice', 'invoice number', 'inv no', 'invoice id', 'bill number', 'receipt number', 'rechnungsnummer', 'facture']),
      tag('Contract reference', 'L3', 'The identifier or terms of a contract or agreement.', ['contract', 'contract id', 'agreement', 'contract number', 'ctr no', 'terms', 'sla', 'vertrag']),
      tag('Discount code', 'L2', 'A promotional, coupon or voucher code.', ['discount code', 'coupon', 'promo code', 'voucher', 'promotion', 'code', 'rabatt']),
      tag('Shipment tracking number', 'L2', 'The carrier tracking number of a shipment.', ['tracking number', 'tracking no', 'awb', 'waybill', 'consignment', 'shipment id', 'trk no', 'sendungsnummer']),
    ]),
    tag('Products', 'L2', 'What the organisation sells and in what quantity.', ['product', 'catalog', 'inventory', 'stock'], [
      tag('Product SKU', 'L1', 'A stock-keeping unit, article or product code.', ['sku', 'product code', 'item number', 'article number', 'ean', 'upc', 'gtin', 'part number', 'item no', 'artikelnummer']),
      tag('Price', 'L2', 'The list, unit or cost price of a product.', ['price', 'unit price', 'list price', 'cost', 'msrp', 'prc', 'unit cost', 'preis', 'prix', 'precio']),
      tag('Quantity', 'L2', 'A count or stock quantity of items.', ['quantity', 'qty', 'count', 'units', 'stock', 'on hand', 'amount ordered', 'menge', 'cantidad']),
    ]),
    tag('Workforce', 'L3', 'Employees and their organisation.', ['employee', 'staff', 'hr', 'personnel', 'workforce'], [
      tag('Employee ID', 'L2', 'An internal identifier of an employee.', ['employee id', 'emp id', 'emp no', 'staff id', 'personnel number', 'badge number', 'empno', 'personalnummer', 'worker id']),
      tag('Department', 'L2', 'The department, team or cost centre a person belongs to.', ['department', 'dept', 'team', 'division', 'cost center', 'business unit', 'org unit', 'abteilung']),
      tag('Job title', 'L2', 'The role, position or grade of an employee.', ['job title', 'title', 'position', 'role', 'job code', 'grade', 'designation', 'occupation', 'funktion']),
      tag('Performance rating', 'L4', "An evaluation of a person's performance, such as an appraisal rating or academic grade.", ['performance rating', 'rating', 'appraisal', 'review score', 'gpa', 'grade point', 'evaluation', 'perf', 'note']),
    ]),
    tag('Internal notes', 'L3', 'Free-text notes written by staff about a case, customer or record.', ['notes', 'note', 'comment', 'remarks', 'memo', 'internal notes', 'agent notes', 'description', 'bemerkung', 'rmk']),
  ]),
  tag('Technical', 'L1', 'Data that exists to make systems work rather than to describe anyone.', ['technical', 'system', 'metadata', 'infrastructure'], [
    tag('Record ID', 'L1', 'A primary key or surrogate identifier of a row.', ['id', 'primary key', 'pk', 'uuid', 'guid', 'row id', 'record id', 'seq', 'surrogate key', 'oid']),
    tag('Foreign key', 'L1', 'A reference to a row in another table.', ['foreign key', 'fk', 'ref id', 'parent id', 'reference', 'lookup id', 'link id', 'created by', 'owner id']),
    tag('Timestamp', 'L1', 'The date or time when a record or event was created, updated or happened.', ['created at', 'updated at', 'timestamp', 'ts', 'date', 'datetime', 'modified', 'dt', 'crt dt', 'upd ts', 'erstellt am', 'date creation']),
    tag('Status flag', 'L1', 'A status, state or boolean flag of a record.', ['status', 'state', 'flag', 'flg', 'is active', 'enabled', 'deleted', 'stat cd', 'ind', 'yn']),
    tag('Version', 'L1', 'A version, revision or schema number of a record or software.', ['version', 'ver', 'revision', 'rev', 'schema version', 'etag', 'build', 'release']),
    tag('Hash or checksum', 'L2', 'A hash, checksum or fingerprint of data.', ['hash', 'checksum', 'md5', 'sha256', 'crc', 'digest', 'fingerprint', 'etag']),
    tag('Log message', 'L2', 'A log line, error message or stack trace written by a system.', ['log', 'message', 'msg', 'error', 'stack trace', 'log line', 'exception', 'trace', 'payload']),
    tag('Configuration setting', 'L2', 'A configuration key, value or feature setting.', ['config', 'setting', 'parameter', 'param', 'option', 'preference', 'feature flag', 'cfg', 'key', 'value']),
    tag('Event name', 'L1', 'The name or type of an event emitted by an application.', ['event', 'event name', 'event type', 'action', 'activity', 'evt', 'track event', 'operation']),
    tag('URL', 'L2', 'A web address, page path or referrer.', ['url', 'uri', 'link', 'page path', 'referrer', 'href', 'endpoint', 'web address', 'website']),
    tag('User agent', 'L2', 'The user-agent string or browser and OS details of a client.', ['user agent', 'ua', 'browser', 'os', 'platform', 'client', 'app version', 'agent']),
    tag('Metric value', 'L1', 'A measured duration, size, count or rate produced by a system.', ['duration', 'latency', 'ms', 'bytes', 'size', 'count', 'rate', 'elapsed', 'usage', 'kb', 'cpu']),
    // Added for the field classifier: common operational columns with nothing sensitive in them.
    tag('Object name', 'L1', 'The name, label or title of a thing such as a file, project, tag or setting, not of a person.', ['label', 'title', 'slug', 'file name', 'project name', 'tag name', 'caption', 'hostname', 'display label']),
    tag('Sort order', 'L1', 'A position, rank, priority or sequence number that orders records.', ['sort order', 'position', 'rank', 'priority', 'sequence', 'display order', 'ordinal', 'line number', 'idx']),
    // Added with classifier 1.2: where a file lives (paths, file names, storage keys), not a web address.
    tag('File reference', 'L2', 'The name, path or storage key of a stored file or attachment.', ['file name', 'filename', 'file path', 'path', 'attachment', 'storage key', 's3 key', 'object key', 'image path', 'document path', 'upload']),
  ]),
  tag('Public reference data', 'L1', 'Reference values that are public and identify no one.', ['reference data', 'lookup', 'master data', 'public', 'code list'], [
    tag('Country code', 'L1', 'An ISO country code or country name in a reference list.', ['country code', 'iso country', 'iso2', 'iso3', 'cntry cd', 'alpha2', 'country name', 'nation']),
    tag('Currency code', 'L1', 'An ISO 4217 currency code.', ['currency', 'currency code', 'ccy', 'curr', 'iso currency', 'cur cd', 'waehrung', 'devise', 'moneda']),
    tag('Language code', 'L1', 'A language or locale code.', ['language', 'lang', 'locale', 'language code', 'iso639', 'lng cd', 'sprache', 'langue', 'idioma']),
    tag('Public product description', 'L1', 'The public name or marketing description of a product.', ['product name', 'product description', 'title', 'description', 'desc', 'summary', 'bezeichnung', 'libelle', 'descripcion']),
    tag('Category', 'L1', 'A category, type or classification code from a public list.', ['category', 'type', 'class', 'genre', 'group', 'cat', 'kind', 'segment', 'kategorie', 'categorie']),
    tag('Unit of measure', 'L1', 'A unit of measure such as kg, m or pcs.', ['unit', 'uom', 'unit of measure', 'measure', 'kg', 'einheit', 'unite', 'unidad']),
    // Added with classifier 1.2: an IANA zone name or UTC offset, a public reference value like a language code.
    tag('Time zone', 'L1', 'A time zone name or UTC offset, such as Europe/Berlin or +02:00.', ['time zone', 'timezone', 'tz', 'utc offset', 'zone id', 'iana zone', 'zeitzone', 'fuseau horaire', 'zona horaria']),
  ]),
];

/** Flattens the taxonomy into rows in parent-before-child order, each with its chain path. */
export function flattenTaxonomy(specs: readonly DefaultTagSpec[] = defaultTaxonomy): FlatTag[] {
  const out: FlatTag[] = [];
  const walk = (nodes: readonly DefaultTagSpec[], parent: string | null): void => {
    for (const n of nodes) {
      const chain_path = parent === null ? n.name : `${parent}/${n.name}`;
      out.push({ chain_path, name: n.name, parent_path: parent, default_level: n.default_level, description: n.description, keywords: [...n.keywords] });
      if (n.children) walk(n.children, chain_path);
    }
  };
  walk(specs, null);
  return out;
}

/** Chain paths of the tags without children (the ones fields are classified with). */
export function leafChainPaths(flat: readonly FlatTag[] = flattenTaxonomy()): string[] {
  const parents = new Set(flat.map((t) => t.parent_path).filter((p): p is string => p !== null));
  return flat.filter((t) => !parents.has(t.chain_path)).map((t) => t.chain_path);
}
