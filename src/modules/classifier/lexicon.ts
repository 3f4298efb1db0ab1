// Word lists for name evidence. Column and table names are first brought to canonical English words
// (`TRANSLATE`: abbreviations and German, French, Spanish, Dutch, Portuguese and Italian words), then matched
// against `RULES`: phrases per default-taxonomy leaf. A phrase matches when all its words occur in the name,
// in any order, so `fecha_nacimiento` (date, birth) and `birth_date` both reach Date of birth.
// A weight may follow a phrase as `*w`; otherwise it is 2.5 plus 1 per extra word, so longer phrases win.

import { ABBREVIATIONS, TERMS } from '../../text/abbreviations.js';

/** Word → canonical English word(s), besides the shared abbreviations: run-together words and words of other languages. */
const OWN_WORDS: Readonly<Record<string, string>> = {
  // run-together words and terms kept as the phrase rules name them
  cell: 'cell', fax: 'fax', long: 'longitude', pass: 'password', url: 'url', datetime: 'datetime',
  timestamp: 'timestamp', username: 'username', login: 'login', email: 'email', emailaddress: 'email address',
  firstname: 'first name', lastname: 'last name', fullname: 'full name', birthdate: 'birth date',
  birthday: 'birthday', dateofbirth: 'birth date', postalcode: 'postal code', phonenumber: 'phone number',
  creditcard: 'credit card', cardnumber: 'card number', ipaddress: 'ip address', useragent: 'user agent',
  createdat: 'created at', updatedat: 'updated at', clienti: 'customer', anagrafica: 'registry',
  filepath: 'file path', filename: 'filename', timezone: 'timezone',
  // German
  gesamt: 'total', liefer: 'delivery', bestell: 'order', eintritts: 'hire', eintritt: 'hire', ablauf: 'expiry', caducidad: 'expiry', vencimiento: 'expiry', validade: 'expiry',
  alter: 'age', familienstand: 'marital status', zivilstand: 'marital status', zeitzone: 'timezone', dateiname: 'filename', pfad: 'path',
  vorname: 'first name', nachname: 'last name', familienname: 'last name', zuname: 'last name', name: 'name',
  geburtsdatum: 'birth date', geburtstag: 'birthday', gebdat: 'birth date', geschlecht: 'gender', anrede: 'salutation',
  strasse: 'street', str: 'street', hausnummer: 'house number', hausnr: 'house number', plz: 'postcode',
  postleitzahl: 'postcode', ort: 'city', wohnort: 'city', stadt: 'city', land: 'country', bundesland: 'state',
  telefon: 'phone', telefonnummer: 'phone number', handy: 'mobile', mobil: 'mobile', mobilnummer: 'mobile number',
  passwort: 'password', kennwort: 'password', kontonummer: 'account number', konto: 'account', bankleitzahl: 'bank code',
  blz: 'bank code', gehalt: 'salary', lohn: 'salary', betrag: 'amount', preis: 'price', menge: 'quantity',
  anzahl: 'count', erstellt: 'created', angelegt: 'created', geaendert: 'modified', aktualisiert: 'updated',
  datum: 'date', zeit: 'time', zeitpunkt: 'timestamp', kunde: 'customer', kunden: 'customer', kundennummer: 'customer number',
  mitarbeiter: 'employee', personalnummer: 'employee number', steuernummer: 'tax number', steuer: 'tax',
  steuerid: 'tax id', ausweis: 'identity card', ausweisnummer: 'identity card number', personalausweis: 'identity card',
  reisepass: 'passport', fuehrerschein: 'driver license', sozialversicherungsnummer: 'social security number',
  svnr: 'social security number', versichertennummer: 'health insurance number', krankenkasse: 'health insurance',
  diagnose: 'diagnosis', bemerkung: 'remark', bemerkungen: 'remark', beschreibung: 'description', bezeichnung: 'description',
  aktiv: 'active', geloescht: 'deleted', bestellung: 'order', bestellnummer: 'order number', rechnung: 'invoice',
  rechnungsnummer: 'invoice number', artikel: 'article', artikelnummer: 'article number', waehrung: 'currency',
  sprache: 'language', firma: 'company', abteilung: 'department', abteilungen: 'department', departamento: 'department', departamentos: 'department', oficina: 'office', dienststelle: 'office', dienststellen: 'office', almacen: 'warehouse', almacenes: 'warehouse', laender: 'country', nummer: 'number', benutzer: 'user',
  benutzername: 'username', adresse: 'address', anschrift: 'address',   status: 'status', art: 'type', kategorie: 'category', notiz: 'note', kommentar: 'comment',
  nachricht: 'message', einheit: 'unit', lieferant: 'supplier', arbeitgeber: 'employer', titel: 'title',
  position: 'position', gueltig: 'valid', bis: 'until', von: 'from', breitengrad: 'latitude', laengengrad: 'longitude',
  iban: 'iban', bic: 'bic', karte: 'card', kartennummer: 'card number', ablaufdatum: 'expiry date', pruefziffer: 'check digit',
  // French
  etat: 'status', fuseau: 'timezone', fichier: 'file',
  nom: 'name', prenom: 'first name', naissance: 'birth',   sexe: 'sex', courriel: 'email', mel: 'email', telephone: 'phone', portable: 'mobile',   rue: 'street', ville: 'city', pays: 'country', cp: 'postcode', motdepasse: 'password',
  passe: 'password', mdp: 'password', securite: 'security', sociale: 'social', nir: 'nir', numero: 'number',
  compte: 'account', solde: 'balance', montant: 'amount', salaire: 'salary', prix: 'price', quantite: 'quantity',
  commande: 'order', facture: 'invoice', societe: 'company', entreprise: 'company', fournisseur: 'supplier',
  employe: 'employee', salarie: 'employee', client: 'client', utilisateur: 'user', identifiant: 'identifier',
  libelle: 'description', commentaire: 'comment', remarque: 'remark', cree: 'created', creation: 'creation',
  modifie: 'modified', modification: 'modification', mise: 'updated', jour: 'day', heure: 'time', langue: 'language',
  devise: 'currency', carte: 'card', permis: 'license', conduire: 'driver', passeport: 'passport', statut: 'status',
  actif: 'active', categorie: 'category', departement: 'department', poste: 'position', metier: 'occupation',
  // Spanish
  edad: 'age', zona: 'zone', horaria: 'time', archivo: 'file', ruta: 'path',
  nombre: 'name', nombres: 'name', apellido: 'last name', apellidos: 'last name', primer: 'first', segundo: 'second',
  fecha: 'date', nacimiento: 'birth', correo: 'email', electronico: 'electronic', telefono: 'phone', celular: 'mobile',
  movil: 'mobile', direccion: 'address', calle: 'street', ciudad: 'city', provincia: 'province', pais: 'country',
  postal: 'postal', codigo: 'code', contrasena: 'password', clave: 'key', cuenta: 'account', saldo: 'balance',
  importe: 'amount', monto: 'amount', sueldo: 'salary', salario: 'salary', precio: 'price', cantidad: 'quantity',
  pedido: 'order', factura: 'invoice', empresa: 'company', proveedor: 'supplier', empleado: 'employee',
  cliente: 'customer', usuario: 'user', descripcion: 'description', observaciones: 'remark', observacion: 'remark',
  comentario: 'comment', creacion: 'creation', actualizacion: 'update', modificacion: 'modification',
  idioma: 'language', moneda: 'currency', tarjeta: 'card', licencia: 'license', conducir: 'driver', pasaporte: 'passport',
  estado: 'status', activo: 'active', categoria: 'category', tipo: 'type', dni: 'dni', nie: 'nie', nif: 'nif',
  cif: 'cif', curp: 'curp', rfc: 'rfc', genero: 'gender', sexo: 'sex', seguridad: 'security', social: 'social',
  agente: 'agent', pago: 'payment', apartado: 'po box', iva: 'vat', divisa: 'currency',
  linea: 'line', razonsocial: 'company name',
  // Portuguese
  idade: 'age', arquivo: 'file', caminho: 'path',
  nome: 'name', sobrenome: 'last name', apelido: 'last name', data: 'data', nascimento: 'birth', endereco: 'address',
  logradouro: 'street', rua: 'street', bairro: 'district', cidade: 'city', municipio: 'city',   cep: 'postcode', telefone: 'phone', senha: 'password', conta: 'account', agencia: 'bank branch', valor: 'amount',
  preco: 'price', quantidade: 'quantity', fatura: 'invoice', funcionario: 'employee',   criado: 'created', criacao: 'creation', atualizado: 'updated', atualizacao: 'update', alterado: 'modified',
  moeda: 'currency', cartao: 'card', passaporte: 'passport', ativo: 'active', cpf: 'cpf', rg: 'rg', cnpj: 'cnpj',
  cnh: 'driver license', pis: 'pis', observacao: 'remark',
  nasc: 'birth', mae: 'mother', pai: 'father', conjuge: 'spouse', responsavel: 'guardian', pessoa: 'person',
  contato: 'contact', aluno: 'student', doenca: 'disease', alergia: 'allergy', medicamento: 'medication',
  medicacao: 'medication', medica: 'medical', medico: 'medical', peso: 'weight', altura: 'height', sangue: 'blood',
  sanguineo: 'blood', grupo: 'group', saude: 'health', renda: 'income', ocupacao: 'occupation', foto: 'photo',
  situacao: 'status', operacao: 'operation', origem: 'source', justificativa: 'reason', fone: 'phone', uf: 'state',
  sigla: 'code', nacionalidade: 'nationality',
  epiletico: 'epileptic', hemofilico: 'hemophiliac', hipertenso: 'hypertensive', asmatico: 'asthmatic',
  diabetico: 'diabetic', fumante: 'smoker', gestante: 'pregnant',
  // Dutch
  leeftijd: 'age', burgerlijke: 'civil', staat: 'status', bestand: 'file', tijdzone: 'timezone',
  voornaam: 'first name', achternaam: 'last name', tussenvoegsel: 'last name prefix', naam: 'name',
  geboortedatum: 'birth date', geslacht: 'gender', straat: 'street', huisnummer: 'house number',   woonplaats: 'city', plaats: 'city', telefoonnummer: 'phone number', telefoon: 'phone', wachtwoord: 'password',
  rekeningnummer: 'account number', rekening: 'account', bedrag: 'amount', prijs: 'price', aantal: 'count',
  klant: 'customer', klantnummer: 'customer number', medewerker: 'employee', werknemer: 'employee', bsn: 'bsn',
  aangemaakt: 'created', gewijzigd: 'modified', bijgewerkt: 'updated', omschrijving: 'description',
  opmerking: 'remark', opmerkingen: 'remark', bedrijf: 'company', leverancier: 'supplier', salaris: 'salary',
  taal: 'language', munt: 'currency', rijbewijs: 'driver license', paspoort: 'passport', actief: 'active',
  emailadres: 'email address', adres: 'address', bestelling: 'order', factuur: 'invoice',
  // Italian
  stato: 'status', civile: 'civil', fuso: 'timezone', orario: 'time',
  cognome: 'last name', nascita: 'birth', indirizzo: 'address', citta: 'city', codice: 'code', fiscale: 'fiscal',
  cellulare: 'mobile', stipendio: 'salary', importo: 'amount', prezzo: 'price', utente: 'user', azienda: 'company',
};

/**
 * Word → canonical English word(s). Applied to every name word before matching: the shared abbreviations
 * (src/text/abbreviations.ts; the standard term where there is one, `ssn` rather than social security number, since
 * the phrase rules name terms), then this module's own words.
 */
export const TRANSLATE: Readonly<Record<string, string>> = {
  ...Object.fromEntries(Object.entries(ABBREVIATIONS).map(([k, v]) => [k, v.replace(/^!/, '')])),
  ...TERMS,
  ...OWN_WORDS,
};

/** Leaf name → phrases (canonical words). */
export const RULES: ReadonlyArray<readonly [string, string]> = [
  ['Full name', 'full name|display name|contact name|person name|holder name|card holder|cardholder|account holder|legal name*2.6|middle name*3|maiden name|names*2.4|contact person|first last name*5|recipient name|beneficiary name|signatory|real name|courtesy title|cc owner|card owner|author name|beneficiary*3|reviewer name|direct reports*3.4'],
  ['First name', 'first name|given name|forename|christian name|firstname|prename'],
  ['Last name', 'last name|surname|family name|lastname|last name prefix'],
  ['Date of birth', 'birth date|birth*3.2|birthday|born*3|date birth|birth year*3.5|birthdate'],
  ['Age', 'age*2.6|age years|age band|age group|age range|age bracket|years old|age at|current age|age category'],
  ['Marital status', 'marital status|marital|civil status|marriage status|married*2.8|marital state|family status'],
  ['Gender', 'gender|sex|sex code|gender code|salutation|title courtesy'],
  ['National ID number', 'ssn*4|social security|social security number|security social|number security social|national id|national identification|national insurance|nino|sin*2.6|social insurance|social insurance number|citizen id|identity card|identity number|id card|personal number|personnummer|dni|nie|nir|bsn|rg|curp|aadhaar|pesel|government id|national number|tax social*2|pis|identity document|id document|identification number|cpf|cnh*2|identity card number|social number'],
  ['Passport number', 'passport|passport number'],
  ['Driver licence number', 'driver license|driving license|drivers license|dl number|dl|license number*3|driver licence|license driver|dl*3'],
  ['Tax identification number', 'tax id|tax number|taxpayer|tin|vat number|vat id|ein|itin|nif|cif|tax identification|fiscal number|fiscal code|code fiscal|cnpj|rfc|tax code|utr|tax reference|vat registration'],
  ['Email address', 'email|email address|mail*2.6|email electronic|e mail|mail address|mailing email|contact email|bcc'],
  ['Phone number', 'phone|phone number|telephone|mobile|mobile number|cell|cell phone|fax|msisdn|contact number|gsm|landline|phone home|work phone|extension*2.6'],
  ['Postal address', 'address|street|street address|address line|house number|po box|mailing address|billing address|shipping address|home address|residence|domicile|apartment|street name|street number|line address|delivery address|district*2.2|house*2.8|pobox'],
  ['Postal code', 'postal code|postcode|zip|zip code|post code|pin code|postal'],
  ['City', 'city|town|locality|municipality|suburb|village|city name'],
  ['Country', 'country|nationality|citizenship|country residence|country name|nation'],
  ['IP address', 'ip|ip address|remote address|client ip|source ip|host address*3|inet'],
  ['Device ID', 'device id|imei|imsi|idfa|gaid|advertising id|android id|mac address|mac|serial number|hardware id|udid|device token|device identifier|push token*3'],
  ['Cookie ID', 'cookie|cookie id|session id|visitor id|anonymous id|tracking id|browser id|session*2.6|session key|fingerprint browser|sid'],
  ['Username', 'username|user name|login|login name|handle|screen name|nickname|account name*3|user login|login id|user handle|alias'],
  ['Password hash', 'password|password hash|password digest|encrypted password|hashed password|passcode|pin*2.8|pin code*3.6|password salt|salt*2.8|mot password'],
  ['API key or token', 'api key|token|access token|refresh token|secret|client secret|private key|auth token|session token|bearer|otp secret|mfa secret|totp|secret key|signing key|webhook secret|credential|reset token|api secret|access key|secret token|verification token|confirmation token|oauth token|key api|confirmation code*3.5|verification code*3.5|recovery code*3.5|activation code*3.5|activation key*3.5|reset code*3.5|access code*3.5|otp*2.6|one time password'],
  ['Security question', 'security question|security answer|secret question|secret answer|recovery question|recovery answer|memorable word|challenge question|challenge answer'],
  ['Payment card number', 'card number|credit card|pan|cc number|card*2.4|debit card|credit card number|cc*2.8|primary account number|card no|card masked*3.5|payment card'],
  ['Card expiry date', 'card expiry|expiry card|card expiration|expiry month|expiry year|valid thru|cc expiry|expiry date card|card exp|expiration month|expiration year|cc expiration|exp month card'],
  ['Card verification code', 'cvv|card security code|card verification|card code*3.5|security code*3.2|card verification code|cvv code'],
  ['Bank account number', 'iban|bank account|account number|routing number|sort code|bic|swift|bank code|bank number|aba|clabe|bsb|bank branch|bank account number|branch code|account iban|account bank'],
  ['Account balance', 'balance|credit limit|available balance|outstanding balance|ledger balance|overdraft|balance due|current balance|account balance'],
  ['Monetary amount', 'amount|total*2.8|payment amount|charge|refund|fee|premium|subtotal|grand total|tax amount|discount amount|net amount|gross amount|revenue|paid|amount due|total amount|shipping cost|tip|deposit|payment*2.4|spend|sales*2.4|withheld|withholding|lifetime value|ltv|clv'],
  ['Transaction ID', 'transaction id|transaction number|payment id|transfer id|transaction reference|charge id|auth code|authorization code|payment reference|payment number|transaction'],
  ['Salary', 'salary*3.4|wage*3.4|compensation|bonus*3.4|gross pay|annual salary|hourly rate|pay rate|payroll|income|commission|earnings|pay grade*4.2|annual income|net pay|pay*2.6'],
  ['Credit score', 'credit score|fico|credit rating|schufa|creditworthiness|credit risk'],
  ['Insurance policy number', 'policy number|policy number id*1|insurance policy|policy|policy no'],
  ['Diagnosis', 'diagnosis|icd|icd10|condition*2.6|allergy|allergies|disease|illness|symptom|medical condition|disability|diagnosis code|diabetes|diabetic|asthma|asthmatic|epilepsy|epileptic|hypertension|hypertensive|hemophilia|haemophilia|hemophiliac|heart attack|smoker*2.6|pregnant|pregnancy|cancer|hiv|tuberculosis|medical history|surgical history|chronic illness'],
  ['Medication', 'medication|drug|prescription|dosage|dose|ndc|medicine|drug name'],
  ['Medical record number', 'medical record|mrn|patient id|patient number|chart number|health record|emr id|ehr id|medical record number|patient|nhs number'],
  ['Health insurance number', 'health insurance|insurance id|insurance number|medicare|medicaid|health card|health insurance number|insurance member|insured id'],
  ['Lab result', 'blood group|lab result|test result|result value|loinc|specimen|hba1c|glucose|cholesterol|lab value|lab test'],
  ['Clinical measurement', 'blood pressure|heart rate|pulse|bmi|vitals|spo2|systolic|diastolic|respiratory rate|blood type|patient weight|patient height|body weight|body temperature'],
  ['Geo coordinates', 'latitude|longitude|coordinates|geo point|gps|geolocation|geom*3|geometry*3|location point|lat long|geo location|position gps'],
  ['Precise location', 'location history|gps trace|last known location|current location|current position|pickup location|dropoff location|geohash|trajectory|last location'],
  ['Approximate location', 'state*2|province|region|county|prefecture|territory|area*2.2|location*2.4|state province|state code*3.6|neighborhood|address state*4|billing state*4|shipping state*4|home state*4|license state*4|dl state*4'],
  ['Organisation name', 'company|company name|organization|organisation|organization name|merchant|vendor|supplier|employer|firm|business name|bank name|institution|manufacturer|publisher|agency|carrier|employer name|merchant name|supplier name|vendor name|brand*2.2|tenant name|partner name|school|university'],
  ['Customer ID', 'customer id|customer number|client id|client number|member number|account id|subscriber id|student id|customer no|loyalty number|membership number|customer code|customer reference|member id|client code|customer account'],
  ['Order ID', 'order id|order number|purchase order|order reference|order no|order*2.2|sales order|po number|po'],
  ['Invoice number', 'invoice|invoice number|invoice number id*1|bill number|receipt number|invoice reference|receipt'],
  ['Contract reference', 'contract|contract id|agreement|contract number|terms*2.4|sla'],
  ['Discount code', 'discount code|coupon|promo code|voucher|promotion code|coupon code|referral code|gift code|promo'],
  ['Shipment tracking number', 'tracking number|waybill|consignment|shipment number id*1|tracking code|parcel number|tracking|shipment number|tracking id*3.6'],
  ['Product SKU', 'sku|product code|item number|article number|ean|upc|gtin|part number|barcode|isbn|asin|mpn|model number|item code|article code|product number'],
  ['Price', 'price|unit price|list price|cost|msrp|unit cost|sale price|retail price|cost price|price amount|rate card'],
  ['Quantity', 'quantity|units*2.6|stock|on hand|inventory level|quantity ordered|stock level|items count|reorder level|reorder point'],
  ['Employee ID', 'employee id|employee number|staff id|personnel number|badge number|worker id|staff number|payroll number|employee code|badge id|agent code|agent id|agent number|manager number|manager id'],
  ['Department', 'department|team|division|cost center|business unit|org unit|cost centre|team name|department name'],
  ['Job title', 'job title|position*2.6|job|occupation|designation|profession|job code|job role|employee title|title employee|grade*2.2'],
  ['Performance rating', 'performance rating|appraisal|review score|gpa|grade point|performance|evaluation|performance score|student grade'],
  ['Internal notes', 'note|notes|comment|remark|memo|internal note|agent note|annotation|body*2.6|content*2.6|text*2.4|feedback|review text|reason*2.2|observation|bio|about'],
  ['Record ID', 'id*2|pk|uuid|guid|row id|record id|oid|rowid|identifier*2.4|primary key|surrogate key|object id|uid*2.4'],
  ['Foreign key', 'fk|parent id|reference*2.4|created by|updated by|modified by|deleted by|owner*2.6|assigned to|user*2.2|author*2.4|reference number*3|lookup|approved by|changed by|inserted by|parent|reports*2.6'],
  ['Timestamp', 'timestamp|created|updated|modified|deleted*2.2|date*2.4|time*2.4|datetime|expires|expiry*2.6|expiration*2.6|last login|last seen|scheduled|due date|start date|end date|start*2|end*2|period|year*2.6|month*2.6|day*2.4|week|hour|quarter|epoch|since|until|valid from|valid to|effective date|last updated|last modified|creation|modification|update|inserted*2|changed*2|completed*2|processed*2|sent*2|received*2|shipped*2|delivered*2|paid date|opened*2|closed*2|hired*2|hire date|terminated*2|registered*2|registration date|signup|joined*2|cancelled*2|logged*2|occurred*2|published date|last activity|ttl*2.4|effective*2.6|effective from|effective to|utc*2.2|date utc|time utc'],
  ['Status flag', 'status*3|state*2.2|flag|active|enabled|disabled|verified|confirmed|approved|archived|visible|hidden|locked|blocked|published|indicator|opt in|opted|consent|subscribed|valid*2.6|deleted flag|is*3|has*3|can*2.6|allow|allowed|marketing consent|newsletter|paid*2|default*2.4|primary*2.4|success|failed|completed flag|suspended|draft|live|test mode|sandbox|not contact|not call|not email|not mail|not disturb|opt out|opted out|unsubscribed|tombstone'],
  ['Version', 'version|revision|schema version|etag|build|release|lock version|row version|build number|version number'],
  ['Hash or checksum', 'hash|checksum|digest|fingerprint|check digit|hash value|content hash|file hash'],
  ['Log message', 'log|message|error|stack trace|exception|trace|error message|log line|output|stderr|stdout|log message|payload*2.4|request body|response body|debug|error code*3.5|failure reason|http status'],
  ['Configuration setting', 'config|setting|settings|parameter|option|preference|preferences|feature flag|key*2|value*2|metadata|attribute|attributes|properties|property|extra*2.4|data*2.2|theme|layout|color|colour|options|json|custom field|feature|toggle|scope|environment'],
  ['Event name', 'event|event name|event type|action|activity|operation|verb|topic|event code|trigger'],
  ['URL', 'url|link|href|website|homepage|referrer|referer|page path|endpoint|domain|callback|redirect|web address|landing page|page url|image url|avatar|webhook url|site'],
  ['User agent', 'user agent|browser|os|platform|operating system|agent*2.4|client version|browser version|device model*3|os version'],
  ['Metric value', 'duration|latency|bytes|size|count*2.8|rate*2.6|elapsed|usage|cpu|memory|ratio|percent|percentage|views|clicks|impressions|length|width|height*2.4|weight*2.4|temperature*2.4|speed|retries|attempts|visits|hits|score*2.4|average|min|max|sum|total count|file size|distance|volume|capacity|threshold|limit*2.4|timeout|interval|conversions|bounce|pageviews|humidity|pressure*2.6|reading|voltage|battery|signal|depth|dimension|rating*2.4|stars|likes|followers|votes|hours|seconds|minutes|ms|days|weeks|months|years|bytes sent|bytes received|visitors|unique|max age*3.8|min age*3.8|maximum age*4.2|minimum age*4.2|age seconds|age days|logins|login count|logon count|sign ins'],
  ['Sort order', 'sort order|sort|rank|priority|sequence|display order|ordinal|index|position sort|line number|sequence number|order index|sort key|seq number|line'],
  // A person's photo by the words that only name one; a bare `photo` or `picture` is a file until the table says whose.
  ['Photo of a person', 'headshot|selfie|mugshot|portrait*2.8|profile picture|profile photo|profile image|passport photo|face photo|face image|facial image|id photo|photo id|lichtbild'],
  // Weighed under a flag's word, so `biometric_consent` stays a consent flag and `biometric_data` is biometric.
  ['Biometric template', 'biometric*2.45|biometrics*2.45|fingerprint template|fingerprint image|fingerprint scan|finger scan|thumbprint|face template|face encoding|face embedding|facial template|iris scan|iris template|iris code|retina scan|voiceprint|voice print|palm print|palmprint|minutiae|fingerabdruck'],
  ['Object name', 'label|slug|title*2.4|caption|table name|hostname|host|name object*1|alias name|code name|key name|queue|bucket|tag name|subject'],
  ['File reference', 'file|file path|attachment|storage key|object key|s3 key|document|image|picture|photo|thumbnail|media|upload|blob|file name|filename|storage path|image path|file location|document path|file key|blob key|bucket key|photo path|pdf path|thumbnail path|attachment path|upload path|local path|path file'],
  ['URL', 'path*2.2'],
  ['Public product description', 'description|product name|product description|summary|short description|tagline|headline|product title|item name|item description|article name|product|details*2.2|specification|features'],
  ['Category', 'category|type|kind|class|genre|group|segment|tier|classification|tag|tags|channel|source*2.4|method|mode|plan|level*2.4|subcategory|type code|category code|mime type|content type|media type|status type|medium|card type|card brand|continent|campaign|utm|mcc|merchant category|band|bucket|range'],
  ['Country code', 'country code|iso country|country iso|alpha2|iso2|iso3|country alpha|nationality code*3|phone prefix|dial code|calling code'],
  ['Currency code', 'currency|currency code|currency iso|currency symbol'],
  ['Language code', 'language|locale|language code|lang code|preferred language|mother tongue'],
  ['Unit of measure', 'unit|uom|unit measure|measure unit|units measure|unit code|weight unit|size unit'],
  ['Time zone', 'timezone|time zone|utc offset|zone id|gmt offset|tz name|iana zone|offset utc|zeitzone'],
];

/** Words naming kinds of people: `customer_name` is a person's name, `vendor_name` is not. */
export const PERSON_WORDS: ReadonlySet<string> = new Set(
  ('customer client user employee patient person member contact student staff driver passenger guest applicant ' +
    'candidate subscriber owner holder beneficiary author teacher doctor physician nurse buyer recipient sender ' +
    'payer payee borrower tenant landlord resident citizen insured policyholder traveler traveller visitor lead ' +
    'prospect donor volunteer agent manager supervisor spouse parent child emergency father mother guardian ' +
    'individual people participant attendee worker worker employee account_holder shopper consumer pupil ' +
    'caregiver relative witness victim suspect claimant insuree subscriber cardholder signer reviewer requester ' +
    'assignee approver receiver rider consignee shipper emergency contact spouse patient practitioner clinician ' +
    'therapist dentist pharmacist surgeon responsible dependent dependant inviter invitee').split(' '),
);
/** Words naming organisations. */
export const ORG_WORDS: ReadonlySet<string> = new Set(
  'company organization organisation merchant vendor supplier employer firm business bank institution manufacturer publisher agency carrier partner brand school university store shop retailer tenant account counterparty'.split(' '),
);
/** Words naming products and other things on sale. */
export const PRODUCT_WORDS: ReadonlySet<string> = new Set('product item article good sku offer listing catalog catalogue part material course book movie film'.split(' '));
/** Words naming places. */
export const PLACE_WORDS: ReadonlySet<string> = new Set('city country state province region street town district county site warehouse store location branch office'.split(' '));
/** Words that signal a health context. */
export const HEALTH_WORDS: ReadonlySet<string> = new Set('patient health medical clinical clinic hospital encounter diagnosis prescription lab vitals ehr emr claim physician doctor nurse treatment therapy'.split(' '));
/** Table words of mail and messages, where `to`, `cc` and `bcc` are recipients' addresses. */
export const MAIL_WORDS: ReadonlySet<string> = new Set('mail email message thread conversation inbox outbox envelope notification newsletter'.split(' '));
/** Words that signal a payment card context. */
export const CARD_WORDS: ReadonlySet<string> = new Set('card cc credit debit payment pan'.split(' '));
/** Words that signal an address context (where `state` is a region, not a status). */
export const ADDRESS_WORDS: ReadonlySet<string> = new Set('address location billing shipping mailing home residence city zip postcode postal street geo region lived resided'.split(' '));
/** Words before `card` that make it something other than a payment card: `report_card`, `sim_card`, `loyalty_card`. */
export const NON_PAYMENT_CARD: ReadonlySet<string> = new Set('report sim gift business library loyalty key score membership member greeting post index sd memory graphics video network playing game trading id identity health insurance access'.split(' '));
/** Last words of a table that holds the system's own settings: `smtp_config`, `notification_settings`, `mail_templates`. */
export const CONFIG_TABLE_WORDS: ReadonlySet<string> = new Set(['config', 'configuration', 'setting', 'settings', 'setup', 'template', 'parameter']);

/** Words that end a key column: `customer_id`, `ORDER_KEY`, `parent_uuid`. */
export const KEY_WORDS: ReadonlySet<string> = new Set(['id', 'key', 'pk', 'fk', 'uuid', 'guid', 'oid', 'uid', 'identifier', 'ref', 'sk', 'bk']);
/** Words that end a time column: `created_at`, `shipped_on`. */
export const TIME_SUFFIX: ReadonlySet<string> = new Set(['at', 'on', 'timestamp', 'ts', 'datetime', 'time', 'date', 'when', 'dttm']);
/** First words of a flag column: `is_active`, `has_consent`. */
export const FLAG_PREFIX: ReadonlySet<string> = new Set(['is', 'has', 'can', 'should', 'was', 'allow', 'allows', 'needs', 'did', 'does', 'must', 'enable', 'show', 'use', 'include', 'ist', 'hat', 'es', 'est', 'heeft']);
