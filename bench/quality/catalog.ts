// Labelled catalog for the quality benchmark (METRICS.md "Quality"). It is generated, not hand-listed: per-domain
// table templates are composed with concepts (what a column means), rendered in one of eleven naming styles and
// one of eight SQL dialects, with seeded choices of synonyms, optional columns, comments and sample values.
// The aim is a catalog that is hard for an embedder: generic names that only the table or comment resolves
// (`number`, `code`, `name`, `value`, `score`), spare columns (`UDF3`) explained only by a comment, legacy
// 8-character abbreviations, Hungarian prefixes and
// German, French, Spanish, Chinese and Japanese names.

import { flattenTaxonomy, type FlatTag, type LevelCode } from '../../src/modules/taxonomy/default-taxonomy.js';
import { syntheticSampleValues } from './sample-values.js';
import { mulberry32 } from '../support/random.js';

export interface LabelledField {
  datasource: string;
  table_name: string;
  field_name: string;
  data_type: string;
  comment?: string;
  sample_values?: string[];
  chain_path: string;
  level: LevelCode;
}

type Rng = () => number;
const pick = <T>(rng: Rng, xs: readonly T[]): T => {
  const x = xs[Math.floor(rng() * xs.length)];
  if (x === undefined) throw new Error('pick from empty list');
  return x;
};

// ---------------------------------------------------------------------------------------------------------------
// Concepts: what a column means, with its English synonyms, legacy abbreviations and translations.

type Kind = 'str' | 'text' | 'code' | 'int' | 'bigint' | 'dec' | 'geo' | 'date' | 'ts' | 'bool' | 'uuid' | 'bytes';
type Lang = 'de' | 'fr' | 'es' | 'zh' | 'ja';

interface Concept {
  tag: string;
  kind: Kind;
  len?: number;
  level?: LevelCode;
  /** English synonyms as word lists; the first is the most common. */
  words: string[][];
  /** Legacy abbreviations (mainframe copybook style), without the table prefix. */
  abbr?: string[];
  tr?: Partial<Record<Lang, string[]>>;
  comments?: string[];
  samples?: string[];
}

const w = (...variants: string[]): string[][] => variants.map((v) => v.split(' '));

const CONCEPTS: Record<string, Concept> = {
  // Personal / Identity
  full_name: {
    tag: 'Full name',
    kind: 'str',
    len: 120,
    words: w('full name', 'name', 'display name', 'contact name'),
    abbr: ['NM', 'FULLNM'],
    tr: {
      de: ['name', 'vollstaendiger_name'],
      fr: ['nom_complet'],
      es: ['nombre_completo'],
      zh: ['姓名'],
      ja: ['氏名'],
    },
    comments: ['Name as printed on correspondence', 'First and last name'],
  },
  first_name: {
    tag: 'First name',
    kind: 'str',
    len: 60,
    words: w('first name', 'given name', 'fname', 'forename'),
    abbr: ['FNM', 'FSTNM'],
    tr: { de: ['vorname'], fr: ['prenom'], es: ['nombre'], zh: ['名字'], ja: ['名'] },
  },
  last_name: {
    tag: 'Last name',
    kind: 'str',
    len: 60,
    words: w('last name', 'surname', 'family name', 'lname'),
    abbr: ['LNM', 'LSTNM', 'SURNM'],
    tr: {
      de: ['nachname', 'familienname'],
      fr: ['nom', 'nom_famille'],
      es: ['apellido', 'apellidos'],
      zh: ['姓氏'],
      ja: ['姓'],
    },
  },
  dob: {
    tag: 'Date of birth',
    kind: 'date',
    words: w('date of birth', 'birth date', 'dob', 'birthday'),
    abbr: ['DOB', 'BRTHDT', 'BDT'],
    tr: {
      de: ['geburtsdatum', 'geb_datum'],
      fr: ['date_naissance', 'date_de_naissance'],
      es: ['fecha_nacimiento', 'fecha_de_nacimiento'],
      zh: ['出生日期'],
      ja: ['生年月日'],
    },
    comments: ['Used for age verification'],
  },
  gender: {
    tag: 'Gender',
    kind: 'code',
    len: 1,
    words: w('gender', 'sex', 'gender code'),
    abbr: ['SEX', 'GNDR', 'SEXCD'],
    tr: { de: ['geschlecht'], fr: ['sexe'], es: ['sexo', 'genero'], zh: ['性别'], ja: ['性別'] },
    samples: ['F', 'M', 'U'],
  },
  national_id: {
    tag: 'National ID number',
    kind: 'str',
    len: 20,
    words: w('ssn', 'social security number', 'national id', 'national insurance number', 'citizen id'),
    abbr: ['SSN', 'SSNNO', 'NATID', 'SOCSEC'],
    tr: {
      de: ['sozialversicherungsnummer', 'sv_nummer'],
      fr: ['numero_securite_sociale', 'nir'],
      es: ['dni', 'numero_seguridad_social'],
      zh: ['身份证号'],
      ja: ['マイナンバー', '個人番号'],
    },
    comments: ['Government identifier, restricted'],
  },
  passport: {
    tag: 'Passport number',
    kind: 'str',
    len: 20,
    words: w('passport number', 'passport no', 'passport id'),
    abbr: ['PPTNO', 'PASSNO'],
    tr: {
      de: ['reisepassnummer'],
      fr: ['numero_passeport'],
      es: ['numero_pasaporte'],
      zh: ['护照号码'],
      ja: ['旅券番号'],
    },
  },
  driver_licence: {
    tag: 'Driver licence number',
    kind: 'str',
    len: 24,
    words: w('driver license number', 'drivers licence no', 'dl number', 'license no'),
    abbr: ['DLNO', 'DLNUM', 'LICNO'],
    tr: {
      de: ['fuehrerscheinnummer'],
      fr: ['numero_permis_conduire'],
      es: ['licencia_conducir'],
      zh: ['驾驶证号'],
      ja: ['運転免許証番号'],
    },
  },
  tax_id: {
    tag: 'Tax identification number',
    kind: 'str',
    len: 20,
    words: w('tax id', 'taxpayer id', 'tin', 'tax number'),
    abbr: ['TIN', 'TAXID', 'TXID'],
    tr: {
      de: ['steuer_id', 'steuernummer'],
      fr: ['numero_fiscal'],
      es: ['nif', 'numero_fiscal'],
      zh: ['纳税人识别号'],
      ja: ['納税者番号'],
    },
  },
  // Personal / Contact
  email: {
    tag: 'Email address',
    kind: 'str',
    len: 255,
    words: w('email', 'email address', 'e mail', 'contact email'),
    abbr: ['EML', 'EMAIL', 'EMLADR'],
    tr: {
      de: ['email', 'e_mail_adresse'],
      fr: ['adresse_courriel', 'courriel'],
      es: ['correo', 'correo_electronico'],
      zh: ['邮箱', '电子邮件'],
      ja: ['メールアドレス'],
    },
  },
  phone: {
    tag: 'Phone number',
    kind: 'str',
    len: 32,
    words: w('phone', 'phone number', 'telephone', 'mobile', 'tel', 'cell phone'),
    abbr: ['TEL', 'PHN', 'TELNO', 'PHONE'],
    tr: {
      de: ['telefon', 'telefonnummer', 'handynummer'],
      fr: ['telephone', 'numero_telephone'],
      es: ['telefono', 'celular'],
      zh: ['手机号', '电话'],
      ja: ['電話番号', '携帯番号'],
    },
  },
  address: {
    tag: 'Postal address',
    kind: 'str',
    len: 200,
    words: w('address', 'street address', 'address line 1', 'addr 1', 'street'),
    abbr: ['ADDR', 'ADR1', 'STRT', 'ADDR1'],
    tr: {
      de: ['strasse', 'anschrift', 'adresse'],
      fr: ['adresse', 'rue'],
      es: ['direccion', 'calle'],
      zh: ['地址', '住址'],
      ja: ['住所'],
    },
  },
  postal_code: {
    tag: 'Postal code',
    kind: 'code',
    len: 10,
    words: w('postal code', 'zip', 'zip code', 'postcode'),
    abbr: ['ZIP', 'ZIPCD', 'PSTCD'],
    tr: { de: ['plz', 'postleitzahl'], fr: ['code_postal'], es: ['codigo_postal'], zh: ['邮编'], ja: ['郵便番号'] },
  },
  city: {
    tag: 'City',
    kind: 'str',
    len: 80,
    words: w('city', 'town', 'city name'),
    abbr: ['CITY', 'CTY', 'CITYNM'],
    tr: { de: ['ort', 'stadt', 'wohnort'], fr: ['ville'], es: ['ciudad'], zh: ['城市'], ja: ['市区町村'] },
  },
  country: {
    tag: 'Country',
    kind: 'str',
    len: 60,
    words: w('country', 'country of residence', 'residence country'),
    abbr: ['CNTRY', 'CTRY'],
    tr: { de: ['land', 'wohnsitzland'], fr: ['pays'], es: ['pais'], zh: ['国家'], ja: ['国'] },
    samples: ['Germany', 'France', 'Japan'],
  },
  // Personal / Online identifiers
  ip: {
    tag: 'IP address',
    kind: 'str',
    len: 45,
    words: w('ip address', 'ip', 'client ip', 'remote addr', 'source ip'),
    abbr: ['IPADR', 'IPADDR'],
    tr: { de: ['ip_adresse'], fr: ['adresse_ip'], es: ['direccion_ip'], zh: ['ip地址'], ja: ['ipアドレス'] },
  },
  device_id: {
    tag: 'Device ID',
    kind: 'str',
    len: 64,
    words: w('device id', 'imei', 'advertising id', 'device uuid', 'hardware id'),
    abbr: ['DEVID', 'IMEI', 'HWID'],
    tr: { de: ['geraete_id'], fr: ['identifiant_appareil'], es: ['id_dispositivo'], zh: ['设备号'], ja: ['端末id'] },
  },
  cookie_id: {
    tag: 'Cookie ID',
    kind: 'str',
    len: 64,
    words: w('cookie id', 'session id', 'visitor id', 'anonymous id', 'client id'),
    abbr: ['SESSID', 'CKID', 'VSTRID'],
    comments: ['First-party analytics cookie'],
  },
  username: {
    tag: 'Username',
    kind: 'str',
    len: 64,
    words: w('username', 'login', 'user name', 'login name', 'handle'),
    abbr: ['USRNM', 'LOGIN', 'USERID'],
    tr: {
      de: ['benutzername'],
      fr: ['identifiant', 'nom_utilisateur'],
      es: ['usuario', 'nombre_usuario'],
      zh: ['用户名'],
      ja: ['ユーザー名'],
    },
  },
  // Credentials & secrets
  password: {
    tag: 'Password hash',
    kind: 'str',
    len: 255,
    words: w('password hash', 'password', 'pwd hash', 'passwd', 'pass hash'),
    abbr: ['PWD', 'PSWD', 'PWHASH'],
    tr: {
      de: ['passwort', 'kennwort'],
      fr: ['mot_de_passe'],
      es: ['contrasena', 'clave'],
      zh: ['密码'],
      ja: ['パスワード'],
    },
    comments: ['bcrypt, cost 12'],
  },
  api_key: {
    tag: 'API key or token',
    kind: 'str',
    len: 128,
    words: w('api key', 'access token', 'secret', 'auth token', 'refresh token', 'otp secret'),
    abbr: ['APIKEY', 'TOKEN', 'SECRET'],
    tr: {
      de: ['zugangsschluessel'],
      fr: ['cle_api', 'jeton'],
      es: ['clave_api', 'token'],
      zh: ['令牌'],
      ja: ['アクセストークン'],
    },
  },
  security_q: {
    tag: 'Security question',
    kind: 'str',
    len: 200,
    words: w('security question', 'security answer', 'secret answer', 'recovery answer'),
    abbr: ['SECQ', 'SECANS'],
    tr: { de: ['sicherheitsfrage'], fr: ['question_secrete'], es: ['pregunta_seguridad'] },
    samples: ['first pet?', 'city of birth?'],
  },
  // Financial
  card_number: {
    tag: 'Payment card number',
    kind: 'str',
    len: 19,
    words: w('card number', 'cc number', 'pan', 'credit card no', 'card no'),
    abbr: ['CARDNO', 'CCNUM', 'PAN', 'CCNO'],
    tr: {
      de: ['kartennummer'],
      fr: ['numero_carte'],
      es: ['numero_tarjeta'],
      zh: ['卡号', '银行卡号'],
      ja: ['カード番号'],
    },
    samples: ['4111111111111111', '5555555555554444', '4012888888881881', '6011111111111117', '378282246310005'],
  },
  card_expiry: {
    tag: 'Card expiry date',
    kind: 'code',
    len: 5,
    words: w('expiry date', 'exp date', 'card expiry', 'expiration', 'valid thru'),
    abbr: ['EXPDT', 'CCEXP', 'EXPMMYY'],
    tr: {
      de: ['ablaufdatum', 'gueltig_bis'],
      fr: ['date_expiration'],
      es: ['fecha_vencimiento'],
      zh: ['有效期'],
      ja: ['有効期限'],
    },
  },
  cvv: {
    tag: 'Card verification code',
    kind: 'code',
    len: 4,
    words: w('cvv', 'cvc', 'card security code', 'cvv2'),
    abbr: ['CVV', 'CVC', 'CVV2'],
    tr: {
      de: ['pruefnummer'],
      fr: ['cryptogramme'],
      es: ['codigo_seguridad'],
      zh: ['安全码'],
      ja: ['セキュリティコード'],
    },
  },
  bank_account: {
    tag: 'Bank account number',
    kind: 'str',
    len: 34,
    words: w('iban', 'account number', 'bank account', 'acct no', 'bank account number'),
    abbr: ['ACCTNO', 'IBAN', 'BNKACT', 'ACCTNUM'],
    tr: {
      de: ['iban', 'kontonummer', 'bankverbindung'],
      fr: ['iban', 'numero_compte', 'rib'],
      es: ['cuenta_bancaria', 'iban'],
      zh: ['银行账号'],
      ja: ['口座番号'],
    },
  },
  balance: {
    tag: 'Account balance',
    kind: 'dec',
    words: w('balance', 'current balance', 'available balance', 'credit limit', 'outstanding balance'),
    abbr: ['BAL', 'CURBAL', 'AVLBAL', 'CRLMT'],
    tr: { de: ['saldo', 'kontostand'], fr: ['solde'], es: ['saldo'], zh: ['余额'], ja: ['残高'] },
  },
  amount: {
    tag: 'Monetary amount',
    kind: 'dec',
    words: w('amount', 'total amount', 'payment amount', 'total', 'gross amount'),
    abbr: ['AMT', 'TOTAMT', 'PMTAMT'],
    tr: {
      de: ['betrag', 'summe', 'gesamtbetrag'],
      fr: ['montant', 'montant_total'],
      es: ['importe', 'monto'],
      zh: ['金额'],
      ja: ['金額'],
    },
  },
  txn_id: {
    tag: 'Transaction ID',
    kind: 'str',
    len: 40,
    words: w('transaction id', 'txn id', 'payment reference', 'transaction ref'),
    abbr: ['TXNID', 'TRXID', 'TXNREF'],
    tr: {
      de: ['transaktions_id', 'buchungsreferenz'],
      fr: ['id_transaction'],
      es: ['id_transaccion'],
      zh: ['交易流水号'],
      ja: ['取引id'],
    },
  },
  salary: {
    tag: 'Salary',
    kind: 'dec',
    words: w('salary', 'base salary', 'annual salary', 'gross pay', 'hourly rate', 'bonus'),
    abbr: ['SAL', 'SALAMT', 'PAYRT', 'BASESAL'],
    tr: {
      de: ['gehalt', 'bruttogehalt', 'lohn'],
      fr: ['salaire', 'salaire_brut'],
      es: ['salario', 'sueldo'],
      zh: ['工资', '薪资'],
      ja: ['給与', '基本給'],
    },
  },
  credit_score: {
    tag: 'Credit score',
    kind: 'int',
    words: w('credit score', 'fico score', 'credit rating', 'risk score'),
    abbr: ['CRDSCR', 'FICO', 'CRSCR'],
    tr: {
      de: ['schufa_score', 'bonitaet'],
      fr: ['score_credit'],
      es: ['puntaje_credito'],
      zh: ['信用评分'],
      ja: ['信用スコア'],
    },
  },
  policy_no: {
    tag: 'Insurance policy number',
    kind: 'str',
    len: 20,
    words: w('policy number', 'policy no', 'policy id', 'policy ref'),
    abbr: ['POLNO', 'POLNUM', 'POLID'],
    tr: {
      de: ['policennummer', 'versicherungsscheinnummer'],
      fr: ['numero_police'],
      es: ['numero_poliza'],
      zh: ['保单号'],
      ja: ['証券番号'],
    },
  },
  // Health
  diagnosis: {
    tag: 'Diagnosis',
    kind: 'str',
    len: 120,
    words: w('diagnosis', 'diagnosis code', 'icd10 code', 'condition', 'allergies'),
    abbr: ['DX', 'DXCD', 'DIAG', 'ICD10'],
    tr: { de: ['diagnose', 'icd_code'], fr: ['diagnostic'], es: ['diagnostico'], zh: ['诊断'], ja: ['診断名', '病名'] },
  },
  medication: {
    tag: 'Medication',
    kind: 'str',
    len: 120,
    words: w('medication', 'drug name', 'prescription', 'dosage', 'ndc code'),
    abbr: ['RX', 'MED', 'DRUG', 'NDC'],
    tr: {
      de: ['medikament', 'wirkstoff'],
      fr: ['medicament'],
      es: ['medicamento'],
      zh: ['药品'],
      ja: ['処方薬', '薬剤名'],
    },
  },
  mrn: {
    tag: 'Medical record number',
    kind: 'str',
    len: 16,
    words: w('mrn', 'medical record number', 'patient number', 'chart number'),
    abbr: ['MRN', 'PATNO', 'CHRTNO'],
    tr: {
      de: ['patientennummer', 'fallnummer'],
      fr: ['numero_dossier_patient'],
      es: ['numero_historia_clinica'],
      zh: ['病历号'],
      ja: ['カルテ番号', '患者番号'],
    },
  },
  health_ins: {
    tag: 'Health insurance number',
    kind: 'str',
    len: 20,
    words: w('insurance member id', 'member id', 'insurance id', 'subscriber id', 'payer member no'),
    abbr: ['MBRID', 'INSID', 'SUBID'],
    tr: {
      de: ['versichertennummer', 'krankenkassennummer'],
      fr: ['numero_assurance_maladie'],
      es: ['numero_seguro_medico'],
      zh: ['医保卡号'],
      ja: ['保険者番号', '被保険者番号'],
    },
  },
  lab_result: {
    tag: 'Lab result',
    kind: 'str',
    len: 60,
    words: w('result value', 'lab result', 'test result', 'result'),
    abbr: ['RSLT', 'LABVAL', 'RSLTVAL'],
    tr: { de: ['befund', 'laborwert'], fr: ['resultat'], es: ['resultado'], zh: ['检验结果'], ja: ['検査結果'] },
  },
  vitals: {
    tag: 'Clinical measurement',
    kind: 'dec',
    words: w('blood pressure', 'heart rate', 'bmi', 'body weight', 'height cm', 'temperature'),
    abbr: ['BP', 'HRTRT', 'BMI', 'WTKG'],
    tr: {
      de: ['blutdruck', 'puls', 'koerpergewicht'],
      fr: ['tension_arterielle', 'pouls'],
      es: ['presion_arterial', 'peso'],
      zh: ['血压'],
      ja: ['血圧', '体重'],
    },
  },
  // Location
  geo_lat: {
    tag: 'Geo coordinates',
    kind: 'geo',
    words: w('latitude', 'lat', 'geo lat'),
    abbr: ['LAT', 'LATD', 'GPSLAT'],
    tr: { de: ['breitengrad'], fr: ['latitude'], es: ['latitud'], zh: ['纬度'], ja: ['緯度'] },
    samples: ['52.520008', '48.856613', '35.689487'],
  },
  geo_lon: {
    tag: 'Geo coordinates',
    kind: 'geo',
    words: w('longitude', 'lng', 'lon', 'geo lng'),
    abbr: ['LON', 'LNGD', 'GPSLON'],
    tr: { de: ['laengengrad'], fr: ['longitude'], es: ['longitud'], zh: ['经度'], ja: ['経度'] },
    samples: ['13.404954', '2.352222', '139.691711'],
  },
  precise_loc: {
    tag: 'Precise location',
    kind: 'str',
    len: 64,
    words: w('last known location', 'gps position', 'current location', 'geohash', 'position'),
    abbr: ['GPSPOS', 'LASTLOC', 'CURLOC'],
    tr: {
      de: ['standort', 'gps_position'],
      fr: ['position_gps'],
      es: ['ubicacion'],
      zh: ['定位', '位置'],
      ja: ['位置情報'],
    },
  },
  region: {
    tag: 'Approximate location',
    kind: 'str',
    len: 40,
    words: w('region', 'state', 'province', 'district', 'county'),
    abbr: ['RGN', 'STCD', 'DIST', 'REGCD'],
    tr: {
      de: ['bundesland', 'region', 'bezirk'],
      fr: ['region', 'departement'],
      es: ['provincia', 'region'],
      zh: ['省份', '地区'],
      ja: ['都道府県'],
    },
  },
  // Business
  org_name: {
    tag: 'Organisation name',
    kind: 'str',
    len: 120,
    words: w('company name', 'company', 'organisation name', 'legal name', 'employer'),
    abbr: ['CONM', 'CMPNM', 'ORGNM'],
    tr: {
      de: ['firma', 'firmenname'],
      fr: ['societe', 'raison_sociale'],
      es: ['empresa', 'razon_social'],
      zh: ['公司名称'],
      ja: ['会社名'],
    },
  },
  customer_id: {
    tag: 'Customer ID',
    kind: 'str',
    len: 16,
    words: w('customer id', 'customer number', 'client id', 'customer no', 'account id'),
    abbr: ['CUSTNO', 'CUSTID', 'CSTNO', 'CLNTNO'],
    tr: {
      de: ['kundennummer', 'kunden_nr'],
      fr: ['numero_client', 'id_client'],
      es: ['id_cliente', 'numero_cliente'],
      zh: ['客户编号'],
      ja: ['顧客番号'],
    },
  },
  order_id: {
    tag: 'Order ID',
    kind: 'str',
    len: 20,
    words: w('order number', 'order id', 'order no', 'po number', 'order ref'),
    abbr: ['ORDNO', 'ORDID', 'PONO'],
    tr: {
      de: ['bestellnummer', 'auftragsnummer'],
      fr: ['numero_commande'],
      es: ['numero_pedido'],
      zh: ['订单号'],
      ja: ['注文番号'],
    },
  },
  invoice_no: {
    tag: 'Invoice number',
    kind: 'str',
    len: 20,
    words: w('invoice number', 'invoice no', 'bill number', 'invoice ref'),
    abbr: ['INVNO', 'BILLNO', 'INVNUM'],
    tr: { de: ['rechnungsnummer'], fr: ['numero_facture'], es: ['numero_factura'], zh: ['发票号'], ja: ['請求書番号'] },
  },
  contract: {
    tag: 'Contract reference',
    kind: 'str',
    len: 24,
    words: w('contract number', 'contract id', 'agreement id', 'contract ref'),
    abbr: ['CTRNO', 'CONTNO', 'AGRNO'],
    tr: { de: ['vertragsnummer'], fr: ['numero_contrat'], es: ['numero_contrato'], zh: ['合同编号'], ja: ['契約番号'] },
  },
  discount_code: {
    tag: 'Discount code',
    kind: 'code',
    len: 20,
    words: w('coupon code', 'promo code', 'voucher code', 'discount code'),
    abbr: ['CPNCD', 'PROMOCD', 'VCHRCD'],
    tr: {
      de: ['gutscheincode', 'rabattcode'],
      fr: ['code_promo'],
      es: ['codigo_descuento', 'cupon'],
      zh: ['优惠码'],
      ja: ['クーポンコード'],
    },
  },
  tracking: {
    tag: 'Shipment tracking number',
    kind: 'str',
    len: 40,
    words: w('tracking number', 'tracking no', 'waybill number', 'awb', 'consignment no'),
    abbr: ['TRKNO', 'AWBNO', 'WAYBL'],
    tr: {
      de: ['sendungsnummer', 'trackingnummer'],
      fr: ['numero_suivi'],
      es: ['numero_seguimiento', 'guia'],
      zh: ['运单号'],
      ja: ['追跡番号', '伝票番号'],
    },
  },
  sku: {
    tag: 'Product SKU',
    kind: 'code',
    len: 32,
    words: w('sku', 'product code', 'item number', 'article number', 'ean'),
    abbr: ['SKU', 'ITMNO', 'PRDCD', 'ARTNO'],
    tr: {
      de: ['artikelnummer'],
      fr: ['reference_article', 'code_article'],
      es: ['codigo_producto', 'referencia'],
      zh: ['商品编码'],
      ja: ['商品コード'],
    },
  },
  price: {
    tag: 'Price',
    kind: 'dec',
    words: w('price', 'unit price', 'list price', 'cost', 'sale price'),
    abbr: ['PRC', 'UNITPRC', 'LSTPRC'],
    tr: {
      de: ['preis', 'einzelpreis'],
      fr: ['prix', 'prix_unitaire'],
      es: ['precio', 'precio_unitario'],
      zh: ['单价'],
      ja: ['単価', '価格'],
    },
  },
  quantity: {
    tag: 'Quantity',
    kind: 'int',
    words: w('quantity', 'qty', 'units', 'stock on hand', 'item count'),
    abbr: ['QTY', 'ONHND', 'QTYORD'],
    tr: { de: ['menge', 'anzahl'], fr: ['quantite'], es: ['cantidad'], zh: ['数量'], ja: ['数量'] },
  },
  employee_id: {
    tag: 'Employee ID',
    kind: 'str',
    len: 12,
    words: w('employee id', 'employee number', 'staff id', 'personnel number', 'badge no'),
    abbr: ['EMPNO', 'EMPID', 'STFNO'],
    tr: {
      de: ['personalnummer'],
      fr: ['matricule'],
      es: ['numero_empleado', 'legajo'],
      zh: ['员工编号', '工号'],
      ja: ['社員番号'],
    },
  },
  department: {
    tag: 'Department',
    kind: 'str',
    len: 60,
    words: w('department', 'dept', 'cost center', 'team', 'business unit'),
    abbr: ['DEPT', 'DEPTCD', 'CSTCTR'],
    tr: {
      de: ['abteilung', 'kostenstelle'],
      fr: ['service', 'departement'],
      es: ['departamento', 'area'],
      zh: ['部门'],
      ja: ['部署'],
    },
  },
  job_title: {
    tag: 'Job title',
    kind: 'str',
    len: 80,
    words: w('job title', 'position', 'title', 'job code', 'role'),
    abbr: ['JOBCD', 'TITLE', 'POSN'],
    tr: {
      de: ['position', 'stellenbezeichnung'],
      fr: ['poste', 'intitule_poste'],
      es: ['puesto', 'cargo'],
      zh: ['职位'],
      ja: ['役職'],
    },
  },
  rating: {
    tag: 'Performance rating',
    kind: 'dec',
    words: w('performance rating', 'rating', 'grade', 'gpa', 'final grade', 'score'),
    abbr: ['PERFRT', 'GRD', 'GPA', 'RTG'],
    tr: {
      de: ['bewertung', 'note'],
      fr: ['evaluation', 'note'],
      es: ['calificacion', 'nota'],
      zh: ['绩效评分', '成绩'],
      ja: ['評価', '成績'],
    },
  },
  notes: {
    tag: 'Internal notes',
    kind: 'text',
    words: w('notes', 'comments', 'remarks', 'internal notes', 'memo'),
    abbr: ['RMK', 'NOTES', 'CMNT', 'MEMO'],
    tr: {
      de: ['bemerkung', 'notizen'],
      fr: ['remarques', 'commentaire'],
      es: ['notas', 'observaciones'],
      zh: ['备注'],
      ja: ['備考'],
    },
  },
  // Technical
  pk: { tag: 'Record ID', kind: 'bigint', words: w('id'), abbr: ['ID'] },
  fk: { tag: 'Foreign key', kind: 'bigint', words: w('ref id'), abbr: ['ID'] },
  ts: { tag: 'Timestamp', kind: 'ts', words: w('event time'), abbr: ['TS'] },
  created_at: {
    tag: 'Timestamp',
    kind: 'ts',
    words: w('created at', 'created date', 'creation time', 'inserted at', 'created on'),
    abbr: ['CRTDT', 'CRTTS', 'INSDT'],
    tr: {
      de: ['erstellt_am', 'anlagedatum'],
      fr: ['date_creation'],
      es: ['fecha_creacion'],
      zh: ['创建时间'],
      ja: ['作成日時', '登録日'],
    },
  },
  updated_at: {
    tag: 'Timestamp',
    kind: 'ts',
    words: w('updated at', 'modified date', 'last modified', 'changed on', 'last update'),
    abbr: ['UPDTS', 'LSTUPD', 'CHGDT'],
    tr: {
      de: ['geaendert_am', 'aenderungsdatum'],
      fr: ['date_modification'],
      es: ['fecha_modificacion'],
      zh: ['更新时间'],
      ja: ['更新日時'],
    },
  },
  status: {
    tag: 'Status flag',
    kind: 'code',
    len: 12,
    words: w('status', 'state', 'is active', 'active flag', 'deleted', 'status code'),
    abbr: ['STAT', 'STATCD', 'ACTFLG', 'DELFLG'],
    tr: {
      de: ['status', 'aktiv'],
      fr: ['statut', 'actif'],
      es: ['estado', 'activo'],
      zh: ['状态'],
      ja: ['状態', 'ステータス'],
    },
  },
  version: {
    tag: 'Version',
    kind: 'int',
    words: w('version', 'row version', 'revision', 'lock version'),
    abbr: ['VER', 'REVNO', 'VERNO'],
    tr: { de: ['version'], fr: ['version'], es: ['version'], zh: ['版本'], ja: ['バージョン'] },
  },
  checksum: {
    tag: 'Hash or checksum',
    kind: 'str',
    len: 64,
    words: w('checksum', 'hash', 'md5', 'sha256', 'content hash'),
    abbr: ['CHKSUM', 'HASH', 'CRC'],
    tr: { de: ['pruefsumme'], fr: ['somme_controle'], es: ['suma_verificacion'], zh: ['校验和'], ja: ['ハッシュ値'] },
  },
  log_message: {
    tag: 'Log message',
    kind: 'text',
    words: w('message', 'error message', 'log line', 'stack trace', 'error'),
    abbr: ['MSG', 'ERRMSG', 'LOGTXT'],
    tr: {
      de: ['meldung', 'fehlermeldung'],
      fr: ['message_erreur'],
      es: ['mensaje_error'],
      zh: ['错误信息', '日志'],
      ja: ['エラーメッセージ'],
    },
  },
  config: {
    tag: 'Configuration setting',
    kind: 'str',
    len: 200,
    words: w('setting value', 'config key', 'parameter', 'option value', 'config value'),
    abbr: ['CFGVAL', 'PARM', 'CFGKEY'],
    tr: {
      de: ['einstellung', 'parameter'],
      fr: ['parametre'],
      es: ['parametro', 'configuracion'],
      zh: ['配置项'],
      ja: ['設定値'],
    },
  },
  event_name: {
    tag: 'Event name',
    kind: 'str',
    len: 64,
    words: w('event name', 'event type', 'action', 'event'),
    abbr: ['EVTNM', 'EVTTYP', 'ACTN'],
    tr: { de: ['ereignis'], fr: ['evenement'], es: ['evento'], zh: ['事件名称'], ja: ['イベント名'] },
  },
  url: {
    tag: 'URL',
    kind: 'str',
    len: 1024,
    words: w('url', 'page url', 'referrer', 'website', 'link'),
    abbr: ['URL', 'REFURL', 'WEBURL'],
    tr: {
      de: ['webseite', 'url'],
      fr: ['url', 'site_web'],
      es: ['url', 'sitio_web'],
      zh: ['链接', '网址'],
      ja: ['url', 'リンク'],
    },
  },
  user_agent: {
    tag: 'User agent',
    kind: 'str',
    len: 512,
    words: w('user agent', 'browser', 'os version', 'client agent'),
    abbr: ['USRAGT', 'BRWSR', 'UA'],
    tr: { de: ['browser'], fr: ['navigateur'], es: ['navegador'], zh: ['浏览器'], ja: ['ブラウザ'] },
  },
  metric: {
    tag: 'Metric value',
    kind: 'int',
    words: w('duration ms', 'latency ms', 'bytes sent', 'count', 'elapsed sec'),
    abbr: ['DURMS', 'BYTCNT', 'CNT'],
    tr: { de: ['dauer_ms', 'anzahl_bytes'], fr: ['duree_ms'], es: ['duracion_ms'], zh: ['耗时'], ja: ['処理時間'] },
  },
  // Public reference data
  country_code: {
    tag: 'Country code',
    kind: 'code',
    len: 3,
    words: w('country code', 'iso country', 'country iso2', 'country'),
    abbr: ['CNTRYCD', 'ISOCD', 'CTRYCD'],
    tr: { de: ['laendercode', 'land_iso'], fr: ['code_pays'], es: ['codigo_pais'], zh: ['国家代码'], ja: ['国コード'] },
  },
  currency: {
    tag: 'Currency code',
    kind: 'code',
    len: 3,
    words: w('currency', 'currency code', 'ccy', 'curr'),
    abbr: ['CCY', 'CURCD', 'CRNCY'],
    tr: { de: ['waehrung'], fr: ['devise', 'monnaie'], es: ['moneda', 'divisa'], zh: ['币种'], ja: ['通貨'] },
  },
  language: {
    tag: 'Language code',
    kind: 'code',
    len: 8,
    words: w('language', 'locale', 'lang', 'preferred language'),
    abbr: ['LANG', 'LANGCD', 'LNGCD'],
    tr: { de: ['sprache'], fr: ['langue'], es: ['idioma'], zh: ['语言'], ja: ['言語'] },
  },
  product_desc: {
    tag: 'Public product description',
    kind: 'str',
    len: 255,
    words: w('product name', 'description', 'title', 'product description', 'short description'),
    abbr: ['PRDNM', 'PRDDESC', 'DESC', 'ITMDESC'],
    tr: {
      de: ['bezeichnung', 'artikelbezeichnung', 'beschreibung'],
      fr: ['libelle', 'designation'],
      es: ['descripcion', 'nombre_producto'],
      zh: ['商品名称'],
      ja: ['商品名'],
    },
  },
  category: {
    tag: 'Category',
    kind: 'code',
    len: 30,
    words: w('category', 'type', 'class', 'segment', 'kind'),
    abbr: ['CAT', 'CATCD', 'TYP', 'TYPCD'],
    tr: {
      de: ['kategorie', 'typ', 'art'],
      fr: ['categorie', 'type'],
      es: ['categoria', 'tipo'],
      zh: ['类别', '类型'],
      ja: ['カテゴリ', '種別'],
    },
  },
  uom: {
    tag: 'Unit of measure',
    kind: 'code',
    len: 6,
    words: w('unit', 'uom', 'unit of measure'),
    abbr: ['UOM', 'UNIT', 'UNITCD'],
    tr: { de: ['einheit', 'mengeneinheit'], fr: ['unite'], es: ['unidad'], zh: ['单位'], ja: ['単位'] },
  },
};

// ---------------------------------------------------------------------------------------------------------------
// Lexicons for words that appear in table-specific overrides, foreign keys and table names.

const ABBR: Record<string, string> = {
  customer: 'CUST',
  number: 'NO',
  name: 'NM',
  date: 'DT',
  birth: 'BRTH',
  address: 'ADDR',
  account: 'ACCT',
  amount: 'AMT',
  employee: 'EMP',
  order: 'ORD',
  product: 'PROD',
  price: 'PRC',
  quantity: 'QTY',
  status: 'STAT',
  code: 'CD',
  type: 'TYP',
  description: 'DESC',
  phone: 'TEL',
  email: 'EML',
  created: 'CRT',
  updated: 'UPD',
  time: 'TM',
  id: 'ID',
  total: 'TOT',
  tax: 'TAX',
  value: 'VAL',
  card: 'CARD',
  credit: 'CR',
  limit: 'LMT',
  balance: 'BAL',
  transaction: 'TXN',
  payment: 'PMT',
  invoice: 'INV',
  policy: 'POL',
  claim: 'CLM',
  patient: 'PAT',
  diagnosis: 'DX',
  provider: 'PRV',
  department: 'DEPT',
  salary: 'SAL',
  gross: 'GRS',
  net: 'NET',
  pay: 'PAY',
  bank: 'BNK',
  start: 'STRT',
  end: 'END',
  score: 'SCR',
  grade: 'GRD',
  student: 'STU',
  course: 'CRS',
  subscriber: 'SUB',
  device: 'DEV',
  duration: 'DUR',
  sec: 'SEC',
  weight: 'WT',
  kg: 'KG',
  warehouse: 'WHS',
  shipment: 'SHP',
  store: 'STR',
  region: 'RGN',
  location: 'LOC',
  issued: 'ISS',
  expires: 'EXP',
  valid: 'VLD',
  until: 'TO',
  opened: 'OPN',
  closed: 'CLS',
  hire: 'HIRE',
  review: 'RVW',
  reviewer: 'RVWR',
  manager: 'MGR',
  line: 'LN',
  discount: 'DSC',
  premium: 'PREM',
  incident: 'INC',
  carrier: 'CARR',
  driver: 'DRV',
  vehicle: 'VEH',
  event: 'EVT',
  session: 'SESS',
  user: 'USR',
  encounter: 'ENC',
  admission: 'ADM',
  discharge: 'DSCH',
  booking: 'BKG',
  counterparty: 'CPTY',
  holder: 'HLDR',
  cardholder: 'CRDHLD',
  principal: 'PRIN',
  loan: 'LOAN',
  interest: 'INT',
  rate: 'RT',
  paid: 'PD',
  shipped: 'SHPD',
  delivered: 'DLVD',
  recipient: 'RCPT',
  declared: 'DECL',
  origin: 'ORIG',
  goods: 'GDS',
  leave: 'LV',
  reason: 'RSN',
  final: 'FNL',
  guardian: 'GRDN',
  enrolled: 'ENRL',
  graded: 'GRDD',
  exam: 'EXAM',
  tenant: 'TNT',
  plan: 'PLAN',
  tariff: 'TRF',
  call: 'CALL',
  calling: 'CLG',
  called: 'CLD',
  cell: 'CELL',
  hour: 'HR',
  bytes: 'BYT',
  up: 'UP',
  down: 'DN',
  assigned: 'ASGN',
  case: 'CASE',
  unit: 'UNIT',
  permit: 'PRMT',
  office: 'OFC',
  benefit: 'BNFT',
  citizen: 'CTZN',
  income: 'INC',
  due: 'DUE',
  refund: 'RFND',
  year: 'YR',
  measured: 'MEAS',
  collected: 'COLL',
  test: 'TST',
  prescribed: 'PRSC',
  prescriber: 'PRSCR',
  ward: 'WARD',
  specialty: 'SPEC',
  reviewed: 'RVWD',
  on: '',
  at: '',
  of: '',
  the: '',
  per: '',
  last: 'LST',
  seen: 'SEEN',
  first: 'FST',
  counted: 'CNT',
  reserved: 'RSV',
  hand: 'HND',
  valid_until: 'VLDTO',
  effective: 'EFF',
  model: 'MDL',
  firmware: 'FW',
  software: 'SW',
  mgmt: 'MGMT',
  alarm: 'ALRM',
  hostname: 'HOST',
  flag: 'FLG',
  key: 'KEY',
  rollout: 'ROLL',
  percentage: 'PCT',
  member: 'MBR',
  agent: 'AGT',
  commission: 'COMM',
  risk: 'RSK',
  underwriter: 'UW',
  conditions: 'COND',
  injury: 'INJ',
  payout: 'PYOT',
  make: 'MAKE',
  policyholder: 'PLCYHLD',
  contact: 'CNTC',
  store_name: 'STRNM',
  branch: 'BRCH',
  purpose: 'PURP',
  maturity: 'MAT',
  outstanding: 'OUTST',
  login: 'LGN',
  otp: 'OTP',
  secret: 'SCRT',
  page: 'PG',
  http: 'HTTP',
  method: 'MTHD',
  endpoint: 'ENDPT',
  response: 'RESP',
  received: 'RCVD',
  client: 'CLNT',
  dosage: 'DOSE',
  measure: 'MEAS',
  sick: 'SICK',
  applied: 'APPL',
  cover: 'COVR',
  letter: 'LTR',
  position: 'POSN',
  applicant: 'APPL',
  credits: 'CRED',
  feedback: 'FDBK',
  billing: 'BILL',
  occupation: 'OCCP',
  speed: 'SPD',
  kmh: 'KMH',
  recorded: 'RCRD',
  capacity: 'CAP',
  hs: 'HS',
  importer: 'IMPR',
  eori: 'EORI',
  taxable: 'TXBL',
  declared_income: 'DECLINC',
  office_name: 'OFCNM',
  issuing: 'ISSG',
  registered: 'REG',
  pickup: 'PKUP',
  dropoff: 'DROP',
  fare: 'FARE',
  trip: 'TRIP',
  visit: 'VST',
  nationality: 'NATL',
  household: 'HSHLD',
  size: 'SZ',
  charge: 'CHRG',
  domain: 'DOM',
  top: 'TOP',
  value_date: 'VALDT',
};

/** Word-level lexicon for overrides and table names in the non-English styles. */
const LEX: Record<Lang, Record<string, string>> = {
  de: {
    number: 'nummer',
    name: 'name',
    code: 'code',
    date: 'datum',
    value: 'wert',
    score: 'punktzahl',
    title: 'titel',
    type: 'typ',
    amount: 'betrag',
    customer: 'kunde',
    order: 'bestellung',
    product: 'artikel',
    employee: 'mitarbeiter',
    patient: 'patient',
    account: 'konto',
    student: 'schueler',
    citizen: 'buerger',
    policy: 'police',
    claim: 'schaden',
    card: 'karte',
    store: 'filiale',
    description: 'beschreibung',
    start: 'beginn',
    end: 'ende',
    status: 'status',
    reason: 'grund',
    office: 'amt',
    case: 'vorgang',
    id: 'id',
    user: 'benutzer',
    subscriber: 'teilnehmer',
    device: 'geraet',
    warehouse: 'lager',
    shipment: 'sendung',
    manager: 'vorgesetzter',
    tax: 'steuer',
    year: 'jahr',
    paid: 'bezahlt',
    issued: 'ausgestellt',
    expires: 'gueltig_bis',
    opened: 'eroeffnet',
    due: 'faellig',
    income: 'einkommen',
    refund: 'erstattung',
    benefit: 'leistung',
    permit: 'genehmigung',
    hire: 'eintritt',
    review: 'beurteilung',
    reviewer: 'beurteiler',
    tenant: 'mandant',
    course: 'kurs',
    exam: 'pruefung',
    provider: 'arzt',
    encounter: 'fall',
    session: 'sitzung',
    driver: 'fahrer',
    vehicle: 'fahrzeug',
    carrier: 'spediteur',
    applicant: 'bewerber',
    leave: 'urlaub',
  },
  fr: {
    number: 'numero',
    name: 'nom',
    code: 'code',
    date: 'date',
    value: 'valeur',
    score: 'note',
    title: 'titre',
    type: 'type',
    amount: 'montant',
    customer: 'client',
    order: 'commande',
    product: 'produit',
    employee: 'salarie',
    patient: 'patient',
    account: 'compte',
    student: 'eleve',
    citizen: 'citoyen',
    policy: 'police',
    claim: 'sinistre',
    card: 'carte',
    store: 'magasin',
    description: 'description',
    start: 'debut',
    end: 'fin',
    status: 'statut',
    reason: 'motif',
    office: 'bureau',
    case: 'dossier',
    id: 'id',
    user: 'utilisateur',
    subscriber: 'abonne',
    device: 'appareil',
    warehouse: 'entrepot',
    shipment: 'expedition',
    manager: 'responsable',
    tax: 'impot',
    year: 'annee',
    paid: 'paye',
    issued: 'emis',
    expires: 'expire',
    opened: 'ouvert',
    due: 'du',
    income: 'revenu',
    refund: 'remboursement',
    benefit: 'prestation',
    permit: 'permis',
    hire: 'embauche',
    review: 'evaluation',
    reviewer: 'evaluateur',
    tenant: 'locataire',
    course: 'cours',
    exam: 'examen',
    provider: 'medecin',
    encounter: 'sejour',
    session: 'session',
    driver: 'chauffeur',
    vehicle: 'vehicule',
    carrier: 'transporteur',
    applicant: 'candidat',
    leave: 'conge',
  },
  es: {
    number: 'numero',
    name: 'nombre',
    code: 'codigo',
    date: 'fecha',
    value: 'valor',
    score: 'puntaje',
    title: 'titulo',
    type: 'tipo',
    amount: 'importe',
    customer: 'cliente',
    order: 'pedido',
    product: 'producto',
    employee: 'empleado',
    patient: 'paciente',
    account: 'cuenta',
    student: 'alumno',
    citizen: 'ciudadano',
    policy: 'poliza',
    claim: 'siniestro',
    card: 'tarjeta',
    store: 'tienda',
    description: 'descripcion',
    start: 'inicio',
    end: 'fin',
    status: 'estado',
    reason: 'motivo',
    office: 'oficina',
    case: 'expediente',
    id: 'id',
    user: 'usuario',
    subscriber: 'abonado',
    device: 'dispositivo',
    warehouse: 'almacen',
    shipment: 'envio',
    manager: 'jefe',
    tax: 'impuesto',
    year: 'anio',
    paid: 'pagado',
    issued: 'emitido',
    expires: 'vence',
    opened: 'apertura',
    due: 'vencimiento',
    income: 'ingreso',
    refund: 'devolucion',
    benefit: 'prestacion',
    permit: 'permiso',
    hire: 'alta',
    review: 'evaluacion',
    reviewer: 'evaluador',
    tenant: 'inquilino',
    course: 'curso',
    exam: 'examen',
    provider: 'medico',
    encounter: 'consulta',
    session: 'sesion',
    driver: 'conductor',
    vehicle: 'vehiculo',
    carrier: 'transportista',
    applicant: 'candidato',
    leave: 'permiso',
  },
  zh: {
    number: '号码',
    name: '名称',
    code: '代码',
    date: '日期',
    value: '值',
    score: '分数',
    title: '标题',
    type: '类型',
    amount: '金额',
    customer: '客户',
    order: '订单',
    product: '商品',
    employee: '员工',
    patient: '患者',
    account: '账户',
    student: '学生',
    citizen: '公民',
    card: '卡',
    status: '状态',
    id: '编号',
    user: '用户',
    subscriber: '用户',
    device: '设备',
    start: '开始',
    end: '结束',
    description: '描述',
    case: '案件',
    office: '办公室',
  },
  ja: {
    number: '番号',
    name: '名前',
    code: 'コード',
    date: '日付',
    value: '値',
    score: '点数',
    title: 'タイトル',
    type: '種別',
    amount: '金額',
    customer: '顧客',
    order: '注文',
    product: '商品',
    employee: '社員',
    patient: '患者',
    account: '口座',
    student: '学生',
    card: 'カード',
    status: '状態',
    id: 'id',
    user: 'ユーザー',
    subscriber: '契約者',
    device: '端末',
    start: '開始',
    end: '終了',
    description: '説明',
    course: '科目',
    exam: '試験',
  },
};

// ---------------------------------------------------------------------------------------------------------------
// Domains: table templates. Field entries are `concept[:word_word][!Ln][?]`:
//   `:words` renders the column with these (often generic) words, e.g. `card_number:number` in credit_cards;
//   `fk:customer` is a foreign key `customer_id`; `ts:order_date` a timestamp; `!L1` overrides the level;
//   `?` marks an optional column (kept with probability 0.6).

interface TableTpl {
  words: string;
  prefix: string;
  legacy?: string;
  tr?: Partial<Record<Lang, string>>;
  fields: string;
  comments?: Record<string, string>;
}

interface Domain {
  name: string;
  tables: TableTpl[];
  systems: Array<{ suffix: string; style: Style; dialect: Dialect }>;
}

type Style = 'snake' | 'camel' | 'pascal' | 'upper' | 'hungarian' | 'legacy' | Lang;
type Dialect = 'postgresql' | 'mysql' | 'sqlserver' | 'oracle' | 'db2' | 'bigquery' | 'snowflake' | 'mongodb';

const DOMAINS: Domain[] = [
  {
    name: 'retail',
    systems: [
      { suffix: 'shop', style: 'snake', dialect: 'postgresql' },
      { suffix: 'app', style: 'camel', dialect: 'mongodb' },
      { suffix: 'de', style: 'de', dialect: 'mysql' },
      { suffix: 'as400', style: 'legacy', dialect: 'db2' },
    ],
    tables: [
      {
        words: 'customers',
        prefix: 'CUST',
        legacy: 'CUSTMAST',
        tr: { de: 'kunden', fr: 'clients', es: 'clientes', zh: '客户', ja: '顧客' },
        fields:
          'pk customer_id? first_name last_name full_name? email phone? dob? gender? address city postal_code country? password? language? status? created_at updated_at?',
      },
      {
        words: 'products',
        prefix: 'PROD',
        legacy: 'PRODMAST',
        tr: { de: 'artikel', fr: 'produits', es: 'productos', zh: '商品', ja: '商品' },
        fields:
          'pk sku product_desc:name product_desc:description? category price price:cost_price!L3? quantity:stock_qty uom? status? created_at',
        comments: {
          'product_desc:name': 'Shown in the shop front',
          'price:cost_price': 'Purchase price from supplier - internal only',
        },
      },
      {
        words: 'orders',
        prefix: 'ORD',
        legacy: 'ORDHDR',
        tr: { de: 'bestellungen', fr: 'commandes', es: 'pedidos', zh: '订单', ja: '注文' },
        fields:
          'pk order_id:number fk:customer ts:order_date amount:total currency status discount_code? ip? notes? updated_at?',
        comments: { 'order_id:number': 'Customer-facing order number', 'amount:total': 'Grand total incl. VAT' },
      },
      {
        words: 'order lines',
        prefix: 'ORLN',
        legacy: 'ORDLIN',
        tr: { de: 'bestellpositionen', fr: 'lignes_commande', es: 'lineas_pedido' },
        fields: 'pk fk:order fk:product sku? quantity price amount:line_total? discount_code?',
      },
      {
        words: 'discount codes',
        prefix: 'DSC',
        legacy: 'DSCCODE',
        tr: { de: 'gutscheine', fr: 'codes_promo', es: 'cupones' },
        fields: 'pk discount_code:code amount:discount_value ts:valid_until quantity:max_uses? status',
        comments: { 'discount_code:code': 'Code entered at checkout' },
      },
      {
        words: 'stores',
        prefix: 'STR',
        legacy: 'STRMAST',
        tr: { de: 'filialen', fr: 'magasins', es: 'tiendas', zh: '门店', ja: '店舗' },
        fields:
          'pk org_name:store_name!L1 address!L1 city!L1 postal_code!L1 region!L1 geo_lat!L1 geo_lon!L1 phone!L1? employee_id:manager_emp_no?',
      },
      {
        words: 'countries',
        prefix: 'CTRY',
        legacy: 'CTRYREF',
        tr: { de: 'laender', fr: 'pays', es: 'paises', zh: '国家', ja: '国' },
        fields: 'country_code:code country_code:name currency? language? status:eu_member?',
        comments: { 'country_code:code': 'ISO 3166-1 alpha-2' },
      },
    ],
  },
  {
    name: 'banking',
    systems: [
      { suffix: 'core', style: 'legacy', dialect: 'db2' },
      { suffix: 'dwh', style: 'upper', dialect: 'oracle' },
      { suffix: 'fr', style: 'fr', dialect: 'postgresql' },
      { suffix: 'online', style: 'snake', dialect: 'postgresql' },
    ],
    tables: [
      {
        words: 'customers',
        prefix: 'CUST',
        legacy: 'CUSTMAST',
        tr: { de: 'kunden', fr: 'clients', es: 'clientes', zh: '客户', ja: '顧客' },
        fields:
          'pk customer_id first_name last_name full_name? dob national_id address city postal_code phone email tax_id? credit_score? passport? category:segment? created_at',
      },
      {
        words: 'accounts',
        prefix: 'ACCT',
        legacy: 'ACCTMAST',
        tr: { de: 'konten', fr: 'comptes', es: 'cuentas', zh: '账户', ja: '口座' },
        fields:
          'pk bank_account:account_number fk:customer category:account_type balance balance:credit_limit? currency status ts:opened_on department:branch_code? bank_account:iban?',
        comments: { 'bank_account:account_number': 'Domestic account number' },
      },
      {
        words: 'transactions',
        prefix: 'TXN',
        legacy: 'TXNHIST',
        tr: { de: 'buchungen', fr: 'operations', es: 'movimientos', zh: '交易流水', ja: '取引' },
        fields:
          'pk txn_id fk:account amount currency ts:booking_date ts:value_date? notes:purpose? category:transaction_code org_name:counterparty_name? bank_account:counterparty_iban?',
        comments: { 'notes:purpose': 'Remittance information entered by payer' },
      },
      {
        words: 'credit cards',
        prefix: 'CARD',
        legacy: 'CARDMAST',
        tr: { de: 'kreditkarten', fr: 'cartes', es: 'tarjetas', zh: '信用卡', ja: 'クレジットカード' },
        fields:
          'pk card_number:number card_expiry cvv? full_name:cardholder_name fk:account balance:credit_limit status',
        comments: { 'card_number:number': 'PAN - PCI scope' },
      },
      {
        words: 'loans',
        prefix: 'LOAN',
        legacy: 'LOANMAST',
        tr: { de: 'kredite', fr: 'prets', es: 'prestamos' },
        fields:
          'pk contract:loan_number fk:customer amount:principal balance:outstanding ts:maturity_date status credit_score:risk_score?',
      },
      {
        words: 'online users',
        prefix: 'OLU',
        legacy: 'OLBUSR',
        tr: { de: 'onlinebanking_benutzer', fr: 'utilisateurs_en_ligne', es: 'usuarios_banca' },
        fields:
          'pk fk:customer username password security_q? ip:last_login_ip device_id? api_key:otp_secret ts:last_login_at status',
      },
      {
        words: 'currencies',
        prefix: 'CCY',
        legacy: 'CCYREF',
        tr: { de: 'waehrungen', fr: 'devises', es: 'monedas' },
        fields: 'currency:code currency:name? metric:decimals?',
        comments: { 'currency:code': 'ISO 4217' },
      },
    ],
  },
  {
    name: 'healthcare',
    systems: [
      { suffix: 'emr', style: 'snake', dialect: 'postgresql' },
      { suffix: 'mainframe', style: 'legacy', dialect: 'db2' },
      { suffix: 'portal', style: 'pascal', dialect: 'sqlserver' },
      { suffix: 'jp', style: 'ja', dialect: 'postgresql' },
    ],
    tables: [
      {
        words: 'patients',
        prefix: 'PAT',
        legacy: 'PATMAST',
        tr: { de: 'patienten', fr: 'patients', es: 'pacientes', zh: '患者', ja: '患者' },
        fields: 'pk mrn full_name:name dob gender address? phone email? health_ins national_id? language? created_at',
        comments: { 'full_name:name': "Patient's legal name" },
      },
      {
        words: 'encounters',
        prefix: 'ENC',
        legacy: 'ENCHDR',
        tr: { de: 'faelle', fr: 'sejours', es: 'consultas', ja: '受診' },
        fields:
          'pk fk:patient ts:admission_date ts:discharge_date? diagnosis? department:ward notes:clinical_notes!L5 fk:provider',
      },
      {
        words: 'diagnoses',
        prefix: 'DX',
        legacy: 'DXDTL',
        tr: { de: 'diagnosen', fr: 'diagnostics', es: 'diagnosticos', ja: '診断' },
        fields: 'pk fk:encounter diagnosis:code diagnosis:description? ts:diagnosed_at status?',
        comments: { 'diagnosis:code': 'ICD-10-GM' },
      },
      {
        words: 'prescriptions',
        prefix: 'RX',
        legacy: 'RXDTL',
        tr: { de: 'verordnungen', fr: 'ordonnances', es: 'recetas', ja: '処方' },
        fields: 'pk fk:patient medication medication:dosage? quantity? ts:prescribed_on fk:prescriber',
      },
      {
        words: 'lab results',
        prefix: 'LAB',
        legacy: 'LABRSLT',
        tr: { de: 'laborbefunde', fr: 'resultats_labo', es: 'resultados_laboratorio', ja: '検査結果' },
        fields: 'pk fk:patient lab_result:value category:test_code uom ts:collected_at status',
        comments: { 'lab_result:value': 'Measured value, see unit' },
      },
      {
        words: 'vitals',
        prefix: 'VIT',
        legacy: 'VITSGN',
        tr: { de: 'vitalwerte', fr: 'constantes', es: 'signos_vitales', ja: 'バイタル' },
        fields:
          'pk fk:patient vitals:blood_pressure vitals:heart_rate vitals:body_weight? vitals:height? vitals:temperature? ts:measured_at',
      },
      {
        words: 'providers',
        prefix: 'PRV',
        legacy: 'PRVMAST',
        tr: { de: 'aerzte', fr: 'medecins', es: 'medicos', ja: '医師' },
        fields: 'pk full_name:name!L2 department:specialty phone!L2 email!L2? employee_id? status',
      },
    ],
  },
  {
    name: 'hr',
    systems: [
      { suffix: 'core', style: 'pascal', dialect: 'sqlserver' },
      { suffix: 'access', style: 'hungarian', dialect: 'sqlserver' },
      { suffix: 'personal', style: 'de', dialect: 'postgresql' },
      { suffix: 'nomina', style: 'es', dialect: 'mysql' },
      { suffix: 'mainframe', style: 'legacy', dialect: 'db2' },
    ],
    tables: [
      {
        words: 'employees',
        prefix: 'EMP',
        legacy: 'EMPMAST',
        tr: { de: 'mitarbeiter', fr: 'salaries', es: 'empleados', zh: '员工', ja: '社員' },
        fields:
          'pk employee_id first_name last_name dob gender national_id email phone address city postal_code job_title department ts:hire_date fk:manager status',
      },
      {
        words: 'payroll',
        prefix: 'PAY',
        legacy: 'PAYHIST',
        tr: { de: 'gehaltsabrechnung', fr: 'paie', es: 'nomina' },
        fields:
          'pk employee_id ts:pay_date salary:gross_pay salary:net_pay amount:tax_withheld!L4 bank_account tax_id?',
      },
      {
        words: 'compensation',
        prefix: 'CMP',
        legacy: 'CMPHIST',
        tr: { de: 'verguetung', fr: 'remuneration', es: 'compensacion' },
        fields: 'pk employee_id salary:base_salary salary:bonus? currency ts:effective_date job_title:pay_grade!L3',
      },
      {
        words: 'performance reviews',
        prefix: 'RVW',
        legacy: 'PERFRVW',
        tr: { de: 'beurteilungen', fr: 'evaluations', es: 'evaluaciones' },
        fields: 'pk employee_id rating notes:comments!L4 ts:review_date fk:reviewer',
        comments: { rating: '1 (below) to 5 (exceptional)' },
      },
      {
        words: 'time off',
        prefix: 'ABS',
        legacy: 'ABSNC',
        tr: { de: 'abwesenheiten', fr: 'absences', es: 'ausencias' },
        fields: 'pk employee_id category:leave_type ts:start_date ts:end_date diagnosis:sick_reason? status',
        comments: { 'diagnosis:sick_reason': 'Only for sick leave, from the doctor note' },
      },
      {
        words: 'applicants',
        prefix: 'APL',
        legacy: 'APPLCNT',
        tr: { de: 'bewerber', fr: 'candidats', es: 'candidatos' },
        fields:
          'pk full_name email phone notes:cover_letter url:linkedin_url? ts:applied_at job_title:position_applied? salary:expected_salary?',
      },
      {
        words: 'departments',
        prefix: 'DEPT',
        legacy: 'DEPTREF',
        tr: { de: 'abteilungen', fr: 'services', es: 'departamentos' },
        fields: 'pk department:name department:cost_center? fk:head_employee city!L1?',
      },
    ],
  },
  {
    name: 'logistics',
    systems: [
      { suffix: 'tms', style: 'snake', dialect: 'postgresql' },
      { suffix: 'wms', style: 'upper', dialect: 'oracle' },
      { suffix: 'es', style: 'es', dialect: 'mysql' },
    ],
    tables: [
      {
        words: 'shipments',
        prefix: 'SHP',
        legacy: 'SHPHDR',
        tr: { de: 'sendungen', fr: 'expeditions', es: 'envios', zh: '运单', ja: '出荷' },
        fields:
          'pk tracking order_id:order_ref fk:carrier metric:weight_kg ts:shipped_at ts:delivered_at? status address:delivery_address city postal_code country full_name:recipient_name phone:recipient_phone?',
      },
      {
        words: 'driver positions',
        prefix: 'DPOS',
        legacy: 'GPSPING',
        tr: { de: 'fahrer_positionen', fr: 'positions_chauffeurs', es: 'posiciones_conductor' },
        fields: 'pk fk:driver geo_lat geo_lon precise_loc? ts:recorded_at metric:speed_kmh device_id',
      },
      {
        words: 'drivers',
        prefix: 'DRV',
        legacy: 'DRVMAST',
        tr: { de: 'fahrer', fr: 'chauffeurs', es: 'conductores' },
        fields: 'pk employee_id full_name driver_licence phone dob? status',
      },
      {
        words: 'warehouses',
        prefix: 'WHS',
        legacy: 'WHSMAST',
        tr: { de: 'lager', fr: 'entrepots', es: 'almacenes' },
        fields:
          'pk org_name:warehouse_name!L1 address!L1 city!L1 country_code geo_lat!L1 geo_lon!L1 quantity:capacity_pallets?',
      },
      {
        words: 'inventory',
        prefix: 'INV',
        legacy: 'INVBAL',
        tr: { de: 'bestand', fr: 'stock', es: 'inventario' },
        fields: 'pk sku quantity:on_hand quantity:reserved? fk:warehouse uom ts:last_counted',
      },
      {
        words: 'customs declarations',
        prefix: 'CUS',
        legacy: 'CUSDECL',
        tr: { de: 'zollanmeldungen', fr: 'declarations_douane', es: 'declaraciones_aduana' },
        fields:
          'pk tracking:awb amount:declared_value currency country_code:origin_country product_desc:goods_description category:hs_code tax_id:importer_eori!L2?',
        comments: { 'category:hs_code': 'Harmonized System tariff code' },
      },
    ],
  },
  {
    name: 'saas',
    systems: [
      { suffix: 'app', style: 'snake', dialect: 'postgresql' },
      { suffix: 'analytics', style: 'camel', dialect: 'bigquery' },
      { suffix: 'dw', style: 'pascal', dialect: 'snowflake' },
    ],
    tables: [
      {
        words: 'events',
        prefix: 'EVT',
        legacy: 'EVTLOG',
        fields:
          'pk event_name cookie_id:anonymous_id fk:user ts:event_time url:page_url url:referrer? user_agent ip country_code:geo_country? version:app_version? config:properties?',
        comments: { 'country_code:geo_country': 'Derived from IP at ingestion' },
      },
      {
        words: 'sessions',
        prefix: 'SESS',
        legacy: 'SESSLOG',
        fields:
          'cookie_id:session_id fk:user ts:started_at metric:duration_ms device_id? user_agent:browser ip region:geo_region',
      },
      {
        words: 'users',
        prefix: 'USR',
        legacy: 'USRMAST',
        fields:
          'pk email username password full_name:display_name? org_name:company? ts:last_seen_at status language api_key:personal_access_token?',
      },
      {
        words: 'api requests',
        prefix: 'REQ',
        legacy: 'APIREQ',
        fields:
          'pk fk:tenant event_name:http_method url:endpoint metric:latency_ms metric:response_bytes status:status_code log_message:error? ip:client_ip ts:received_at checksum:request_hash?',
      },
      {
        words: 'feature flags',
        prefix: 'FLG',
        legacy: 'FLGCFG',
        fields: 'pk config:flag_key config:rollout_percentage status:enabled ts:updated_at version?',
      },
      {
        words: 'tenants',
        prefix: 'TNT',
        legacy: 'TNTMAST',
        fields:
          'pk org_name customer_id:billing_account category:plan created_at region:data_region? config:sso_settings?',
      },
    ],
  },
  {
    name: 'education',
    systems: [
      { suffix: 'sis', style: 'snake', dialect: 'postgresql' },
      { suffix: 'campus', style: 'pascal', dialect: 'sqlserver' },
      { suffix: 'scolarite', style: 'fr', dialect: 'postgresql' },
      { suffix: 'gakumu', style: 'ja', dialect: 'mysql' },
    ],
    tables: [
      {
        words: 'students',
        prefix: 'STU',
        legacy: 'STUMAST',
        tr: { de: 'schueler', fr: 'eleves', es: 'alumnos', zh: '学生', ja: '学生' },
        fields:
          'pk customer_id:student_number first_name last_name dob gender email phone? address full_name:guardian_name phone:guardian_phone? national_id? language? ts:enrolled_on',
        comments: { 'customer_id:student_number': 'Matriculation number' },
      },
      {
        words: 'courses',
        prefix: 'CRS',
        legacy: 'CRSCAT',
        tr: { de: 'kurse', fr: 'cours', es: 'cursos', ja: '科目' },
        fields: 'pk sku:course_code product_desc:title product_desc:description? department metric:credits?',
        comments: { 'product_desc:title': 'Course title as published in the catalogue' },
      },
      {
        words: 'enrollments',
        prefix: 'ENR',
        legacy: 'ENRLMT',
        tr: { de: 'einschreibungen', fr: 'inscriptions', es: 'matriculas', ja: '履修' },
        fields: 'pk fk:student fk:course ts:enrolled_at status rating:final_grade',
      },
      {
        words: 'exam results',
        prefix: 'EXR',
        legacy: 'EXAMRSLT',
        tr: { de: 'pruefungsergebnisse', fr: 'resultats_examens', es: 'resultados_examenes', ja: '試験結果' },
        fields: 'pk fk:student fk:exam rating:score ts:graded_at notes:feedback?',
      },
      {
        words: 'teachers',
        prefix: 'TCH',
        legacy: 'TCHMAST',
        tr: { de: 'lehrkraefte', fr: 'enseignants', es: 'profesores', ja: '教員' },
        fields: 'pk employee_id full_name:name email!L2 department job_title salary?',
      },
      {
        words: 'tuition payments',
        prefix: 'TUI',
        legacy: 'TUIPMT',
        tr: { de: 'studiengebuehren', fr: 'frais_scolarite', es: 'pagos_matricula', ja: '学費' },
        fields: 'pk fk:student amount currency ts:paid_on txn_id bank_account:payer_iban?',
      },
    ],
  },
  {
    name: 'insurance',
    systems: [
      { suffix: 'policyadmin', style: 'upper', dialect: 'oracle' },
      { suffix: 'claims', style: 'legacy', dialect: 'db2' },
      { suffix: 'broker', style: 'hungarian', dialect: 'sqlserver' },
      { suffix: 'de', style: 'de', dialect: 'postgresql' },
    ],
    tables: [
      {
        words: 'policyholders',
        prefix: 'PH',
        legacy: 'PHMAST',
        tr: { de: 'versicherungsnehmer', fr: 'assures', es: 'asegurados' },
        fields: 'pk customer_id full_name dob address postal_code phone email national_id? job_title:occupation?',
      },
      {
        words: 'policies',
        prefix: 'POL',
        legacy: 'POLMAST',
        tr: { de: 'vertraege', fr: 'polices', es: 'polizas' },
        fields:
          'pk policy_no fk:policyholder category:product_type amount:premium ts:start_date ts:end_date status contract?',
      },
      {
        words: 'claims',
        prefix: 'CLM',
        legacy: 'CLMHDR',
        tr: { de: 'schaeden', fr: 'sinistres', es: 'siniestros' },
        fields:
          'pk:claim_number policy_no amount:claim_amount ts:incident_date notes:incident_description diagnosis:injury_description? precise_loc:incident_location? status bank_account:payout_iban?',
        comments: { 'diagnosis:injury_description': 'Medical description of the injury' },
      },
      {
        words: 'claim documents',
        prefix: 'DOC',
        legacy: 'CLMDOC',
        tr: { de: 'schadendokumente', fr: 'documents_sinistre', es: 'documentos_siniestro' },
        fields:
          'pk fk:claim url:storage_path checksum category:document_type ts:uploaded_at metric:file_size_bytes? full_name:uploaded_by?',
      },
      {
        words: 'agents',
        prefix: 'AGT',
        legacy: 'AGTMAST',
        tr: { de: 'vermittler', fr: 'agents', es: 'agentes' },
        fields:
          'pk employee_id:agent_code full_name email!L2 phone!L2 region salary:commission_rate? org_name:agency_name?',
      },
      {
        words: 'underwriting',
        prefix: 'UW',
        legacy: 'UWDTL',
        tr: { de: 'risikopruefung', fr: 'souscription', es: 'suscripcion' },
        fields:
          'pk fk:policy credit_score rating:risk_class? notes:underwriter_notes vitals:bmi? diagnosis:pre_existing_conditions',
      },
    ],
  },
  {
    name: 'telecom',
    systems: [
      { suffix: 'oss', style: 'snake', dialect: 'postgresql' },
      { suffix: 'bss', style: 'upper', dialect: 'oracle' },
      { suffix: 'cn', style: 'zh', dialect: 'mysql' },
    ],
    tables: [
      {
        words: 'subscribers',
        prefix: 'SUB',
        legacy: 'SUBMAST',
        tr: { de: 'teilnehmer', fr: 'abonnes', es: 'abonados', zh: '用户', ja: '契約者' },
        fields:
          'pk customer_id:subscriber_id first_name last_name phone:msisdn device_id:imsi dob? address national_id ts:activated_on status category:tariff_plan',
        comments: { 'phone:msisdn': 'Mobile number in E.164' },
      },
      {
        words: 'devices',
        prefix: 'DEV',
        legacy: 'DEVREG',
        tr: { zh: '终端' },
        fields: 'pk device_id:imei fk:subscriber category:model version:firmware_version ts:first_seen',
      },
      {
        words: 'call detail records',
        prefix: 'CDR',
        legacy: 'CDRHIST',
        tr: { zh: '话单' },
        fields:
          'pk phone:calling_number phone:called_number ts:call_start metric:duration_sec region:cell_id precise_loc:cell_location? amount:charge? category:call_type',
      },
      {
        words: 'data usage',
        prefix: 'USG',
        legacy: 'DATAUSG',
        tr: { zh: '流量记录' },
        fields: 'pk fk:subscriber metric:bytes_up metric:bytes_down ts:hour ip:assigned_ip url:top_domain?',
      },
      {
        words: 'billing accounts',
        prefix: 'BAC',
        legacy: 'BILLACCT',
        tr: { zh: '账务' },
        fields: 'pk customer_id balance bank_account? card_number? invoice_no? currency',
      },
      {
        words: 'network elements',
        prefix: 'NE',
        legacy: 'NETELEM',
        tr: { zh: '网元' },
        fields:
          'pk config:hostname ip:mgmt_ip!L2 version:software_version geo_lat!L1 geo_lon!L1 status log_message:last_alarm',
      },
    ],
  },
  {
    name: 'government',
    systems: [
      { suffix: 'registry', style: 'legacy', dialect: 'db2' },
      { suffix: 'buergeramt', style: 'de', dialect: 'postgresql' },
      { suffix: 'registro', style: 'es', dialect: 'postgresql' },
      { suffix: 'portal', style: 'snake', dialect: 'postgresql' },
      { suffix: 'cn', style: 'zh', dialect: 'mysql' },
    ],
    tables: [
      {
        words: 'citizens',
        prefix: 'CTZ',
        legacy: 'CTZMAST',
        tr: { de: 'buerger', fr: 'citoyens', es: 'ciudadanos', zh: '居民', ja: '住民' },
        fields:
          'pk national_id full_name first_name? last_name? dob gender address city postal_code country:nationality email? phone? tax_id? ts:registered_on',
      },
      {
        words: 'tax returns',
        prefix: 'TAX',
        legacy: 'TAXRTN',
        tr: { de: 'steuererklaerungen', fr: 'declarations_impots', es: 'declaraciones_renta', zh: '纳税申报' },
        fields:
          'pk tax_id ts:tax_year amount:taxable_income salary:declared_income? amount:tax_due bank_account:refund_iban status notes?',
      },
      {
        words: 'permits',
        prefix: 'PRM',
        legacy: 'PRMTREG',
        tr: { de: 'genehmigungen', fr: 'permis', es: 'permisos', zh: '许可证' },
        fields: 'pk category:permit_type fk:citizen ts:issued_on ts:expires_on status org_name:issuing_office!L1?',
      },
      {
        words: 'cases',
        prefix: 'CASE',
        legacy: 'CASEHDR',
        tr: { de: 'vorgaenge', fr: 'dossiers', es: 'expedientes', zh: '案件' },
        fields:
          'pk:case_number notes:case_notes category:case_type department:assigned_unit fk:citizen ts:opened_at status',
      },
      {
        words: 'benefit payments',
        prefix: 'BNP',
        legacy: 'BNFTPMT',
        tr: { de: 'leistungszahlungen', fr: 'versements_prestations', es: 'pagos_prestaciones', zh: '补贴发放' },
        fields: 'pk fk:citizen amount bank_account ts:paid_on category:benefit_type',
      },
      {
        words: 'travel documents',
        prefix: 'TDOC',
        legacy: 'PASSREG',
        tr: { de: 'reisedokumente', fr: 'documents_voyage', es: 'documentos_viaje', zh: '出入境证件' },
        fields:
          'pk fk:citizen passport ts:issued_on ts:expires_on country_code:issuing_country checksum:mrz_checksum? status',
      },
      {
        words: 'offices',
        prefix: 'OFC',
        legacy: 'OFCREF',
        tr: { de: 'dienststellen', fr: 'bureaux', es: 'oficinas', zh: '办事处' },
        fields: 'pk org_name:office_name!L1 address!L1 city!L1 phone!L1 email!L1? geo_lat!L1 geo_lon!L1',
      },
    ],
  },
];

/** The domains the quality catalog spans; each datasource is named `<domain>_<system>`. */
export const QUALITY_DOMAINS: readonly string[] = DOMAINS.map((d) => d.name);

// ---------------------------------------------------------------------------------------------------------------
// Rendering

const cap = (s: string): string => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

function abbreviate(word: string): string {
  const known = ABBR[word];
  if (known !== undefined) return known;
  if (/^\d+$/.test(word)) return word;
  const up = word.toUpperCase();
  return (up[0] + up.slice(1).replace(/[AEIOU]/g, '')).slice(0, 4);
}

function renderEnglish(words: string[], style: Style): string {
  switch (style) {
    case 'camel':
      return words.map((x, i) => (i === 0 ? x : cap(x))).join('');
    case 'pascal':
      return words.map(cap).join('');
    case 'upper':
      return words.join('_').toUpperCase();
    default:
      return words.join('_');
  }
}

const HUNGARIAN: Record<Kind, string[]> = {
  str: ['str', 'str', 'sz'],
  text: ['mem', 'txt'],
  code: ['str', 'ch'],
  int: ['int', 'n'],
  bigint: ['lng', 'int'],
  dec: ['dbl', 'cur', 'dec'],
  geo: ['dbl'],
  date: ['dt', 'dte'],
  ts: ['dtm', 'dt'],
  bool: ['bln', 'b'],
  uuid: ['guid'],
  bytes: ['bin'],
};

const TYPES: Record<Dialect, (k: Kind, len: number, rng: Rng) => string> = {
  postgresql: (k, len, rng) =>
    ({
      str: rng() < 0.8 ? `varchar(${len})` : 'text',
      text: 'text',
      code: `varchar(${len})`,
      int: 'integer',
      bigint: 'bigint',
      dec: 'numeric(12,2)',
      geo: 'double precision',
      date: 'date',
      ts: rng() < 0.7 ? 'timestamptz' : 'timestamp',
      bool: 'boolean',
      uuid: 'uuid',
      bytes: 'bytea',
    })[k],
  mysql: (k, len) =>
    ({
      str: `varchar(${len})`,
      text: 'text',
      code: `char(${Math.min(len, 10)})`,
      int: 'int',
      bigint: 'bigint unsigned',
      dec: 'decimal(12,2)',
      geo: 'decimal(9,6)',
      date: 'date',
      ts: 'datetime',
      bool: 'tinyint(1)',
      uuid: 'char(36)',
      bytes: 'blob',
    })[k],
  sqlserver: (k, len, rng) =>
    ({
      str: `nvarchar(${len})`,
      text: 'nvarchar(max)',
      code: `nchar(${Math.min(len, 10)})`,
      int: 'int',
      bigint: 'bigint',
      dec: rng() < 0.3 ? 'money' : 'decimal(12,2)',
      geo: 'float',
      date: 'date',
      ts: 'datetime2',
      bool: 'bit',
      uuid: 'uniqueidentifier',
      bytes: 'varbinary(64)',
    })[k],
  oracle: (k, len) =>
    ({
      str: `VARCHAR2(${len})`,
      text: 'CLOB',
      code: `CHAR(${Math.min(len, 10)})`,
      int: 'NUMBER(10)',
      bigint: 'NUMBER(19)',
      dec: 'NUMBER(12,2)',
      geo: 'NUMBER(9,6)',
      date: 'DATE',
      ts: 'TIMESTAMP',
      bool: 'CHAR(1)',
      uuid: 'RAW(16)',
      bytes: 'BLOB',
    })[k],
  db2: (k, len) =>
    ({
      str: `CHAR(${Math.min(len, 40)})`,
      text: 'VARCHAR(2000)',
      code: `CHAR(${Math.min(len, 10)})`,
      int: 'INTEGER',
      bigint: 'DECIMAL(15,0)',
      dec: 'DECIMAL(11,2)',
      geo: 'DECIMAL(9,6)',
      date: 'DATE',
      ts: 'TIMESTAMP',
      bool: 'CHAR(1)',
      uuid: 'CHAR(16) FOR BIT DATA',
      bytes: 'BLOB',
    })[k],
  bigquery: (k) =>
    ({
      str: 'STRING',
      text: 'STRING',
      code: 'STRING',
      int: 'INT64',
      bigint: 'INT64',
      dec: 'NUMERIC',
      geo: 'FLOAT64',
      date: 'DATE',
      ts: 'TIMESTAMP',
      bool: 'BOOL',
      uuid: 'STRING',
      bytes: 'BYTES',
    })[k],
  snowflake: (k, len) =>
    ({
      str: `VARCHAR(${len})`,
      text: 'VARCHAR',
      code: `VARCHAR(${len})`,
      int: 'NUMBER(10,0)',
      bigint: 'NUMBER(38,0)',
      dec: 'NUMBER(12,2)',
      geo: 'FLOAT',
      date: 'DATE',
      ts: 'TIMESTAMP_NTZ',
      bool: 'BOOLEAN',
      uuid: 'VARCHAR(36)',
      bytes: 'BINARY',
    })[k],
  mongodb: (k) =>
    ({
      str: 'string',
      text: 'string',
      code: 'string',
      int: 'int',
      bigint: 'long',
      dec: 'decimal',
      geo: 'double',
      date: 'date',
      ts: 'date',
      bool: 'bool',
      uuid: 'objectId',
      bytes: 'binData',
    })[k],
};

const GENERIC_STYLES = new Set<Style>(['legacy', 'upper', 'hungarian']);

const BUSINESS_KEYS = new Set([
  'customer_id',
  'employee_id',
  'mrn',
  'policy_no',
  'national_id',
  'tax_id',
  'txn_id',
  'tracking',
  'sku',
  'device_id',
]);

const NOISE_COMMENTS = [
  'migrated from AS/400 in 2014',
  'see data dictionary v3',
  'do not use',
  'TODO: clarify with owner',
  'legacy field',
  'filled by nightly batch',
];

interface Entry {
  concept: string;
  words?: string[];
  level?: LevelCode;
  optional: boolean;
  key: string;
}

function parseEntry(s: string): Entry {
  const m = /^([a-z_0-9]+)(?::([a-z0-9_]+))?(?:!(L[1-5]))?(\?)?$/.exec(s);
  if (!m || !m[1]) throw new Error(`quality catalog: bad field entry "${s}"`);
  const concept = m[1];
  if (!CONCEPTS[concept]) throw new Error(`quality catalog: unknown concept "${concept}"`);
  return {
    concept,
    ...(m[2] ? { words: m[2].split('_') } : {}),
    ...(m[3] ? { level: m[3] as LevelCode } : {}),
    optional: m[4] === '?',
    key: m[2] ? `${concept}:${m[2]}` : concept,
  };
}

/** Word-by-word translation; null when a CJK name would be left half English (real schemas then stay English). */
function translateWords(words: string[], lang: Lang): string | null {
  const lex = LEX[lang];
  const content = words.filter((x) => !['on', 'at', 'of'].includes(x));
  const translated = content.map((x) => lex[x]);
  if (translated.every((x) => x === undefined)) return null;
  if (lang === 'zh' || lang === 'ja') return translated.every((x) => x !== undefined) ? translated.join('') : null;
  const out = content.map((x, i) => translated[i] ?? x);
  // Romance languages put the head noun first: "account number" → "numero_compte", "customer id" → "id_client".
  return (lang === 'fr' || lang === 'es' ? out.reverse() : out).join('_');
}

function tableName(t: TableTpl, style: Style, rng: Rng): string {
  const words = t.words.split(' ');
  switch (style) {
    case 'legacy':
      return t.legacy ?? t.prefix;
    case 'hungarian':
      return `tbl${words.map(cap).join('')}`;
    case 'de':
    case 'fr':
    case 'es':
    case 'zh':
    case 'ja':
      return t.tr?.[style] ?? words.join('_');
    case 'upper':
      return rng() < 0.5 ? words.join('_').toUpperCase() : `T_${words.join('_').toUpperCase()}`;
    default:
      return renderEnglish(words, style);
  }
}

function fieldName(
  e: Entry,
  c: Concept,
  t: TableTpl,
  style: Style,
  rng: Rng,
  hasBusinessKey: boolean,
): { name: string; kind: Kind } {
  const entity = t.words
    .split(' ')
    .at(-1)!
    .replace(/(ies)$/, 'y')
    .replace(/s$/, '');
  let words: string[];
  if (e.concept === 'pk') {
    // A table that also carries a business key (employee_id, mrn …) keeps its surrogate key generic.
    const r = rng();
    words =
      e.words ??
      (r < 0.6 || (hasBusinessKey && r < 0.85)
        ? ['id']
        : r < 0.85
          ? [entity, 'id']
          : pick(rng, [
              ['row', 'id'],
              ['seq', 'no'],
              ['record', 'id'],
            ]));
  } else if (e.concept === 'fk') words = [...(e.words ?? ['ref']), 'id'];
  else words = e.words ?? pick(rng, c.words);
  const kind = c.kind;

  if (style === 'legacy') {
    let core: string;
    if (e.concept === 'pk') core = e.words ? words.map(abbreviate).join('') : pick(rng, ['ID', 'KEY', 'SEQ']);
    else if (e.words || !c.abbr) core = words.map(abbreviate).join('');
    else core = rng() < 0.6 ? c.abbr[0]! : pick(rng, c.abbr);
    const prefixed = t.prefix + core;
    const usePrefix = !core.startsWith(t.prefix) && prefixed.length <= 8 && (e.concept === 'pk' || rng() < 0.65);
    return { name: (usePrefix ? prefixed : core).slice(0, 8), kind };
  }
  if (style === 'hungarian') {
    return { name: pick(rng, HUNGARIAN[kind]) + words.map(cap).join(''), kind };
  }
  if (style === 'de' || style === 'fr' || style === 'es' || style === 'zh' || style === 'ja') {
    // Real schemas in these languages keep some English columns; keys and technical columns most often.
    const technical = e.concept === 'pk' || e.concept === 'fk';
    const translated = e.words || technical ? translateWords(words, style) : null;
    if (e.words || technical) return { name: translated !== null && rng() < 0.8 ? translated : words.join('_'), kind };
    const local = c.tr?.[style];
    if (local && rng() < 0.85) return { name: pick(rng, local), kind };
    return { name: words.join('_'), kind };
  }
  return { name: renderEnglish(words, style), kind };
}

function sampleValues(c: Concept, rng: Rng): string[] {
  const bank = c.samples ?? syntheticSampleValues(c.tag);
  const shuffled = [...bank];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
  }
  return shuffled.slice(0, Math.min(shuffled.length, 2 + Math.floor(rng() * 2)));
}

/** Builds the labelled benchmark catalog; the same seed always gives the same catalog. */
export function buildQualityCatalog(seed: number): LabelledField[] {
  const rng = mulberry32(seed);
  const flat = flattenTaxonomy();
  const parents = new Set(flat.map((t) => t.parent_path));
  const leafByName = new Map(flat.filter((t) => !parents.has(t.chain_path)).map((t) => [t.name, t]));
  const out: LabelledField[] = [];

  for (const domain of DOMAINS) {
    for (const sys of domain.systems) {
      const datasource = `${domain.name}_${sys.suffix}`;
      const usedTables = new Set<string>();
      for (const t of domain.tables) {
        let table = tableName(t, sys.style, rng);
        while (usedTables.has(table)) table = `${table}_2`;
        usedTables.add(table);
        const usedFields = new Set<string>();
        const entries = t.fields.split(/\s+/).filter(Boolean).map(parseEntry);
        const hasBusinessKey = entries.some((x) => BUSINESS_KEYS.has(x.concept));
        for (const e of entries) {
          if (e.optional && rng() >= 0.6) continue;
          const c = CONCEPTS[e.concept]!;
          const tagSpec = leafByName.get(c.tag);
          if (!tagSpec) throw new Error(`quality catalog: concept ${e.concept} names unknown tag ${c.tag}`);
          let { name, kind } = fieldName(e, c, t, sys.style, rng, hasBusinessKey);
          // Old systems reuse generic spare columns whose meaning lives only in the comment (`UDF3`: "customer email").
          const generic = GENERIC_STYLES.has(sys.style) && e.concept !== 'pk' && e.concept !== 'fk' && rng() < 0.05;
          if (generic) name = `${pick(rng, ['UDF', 'ATTR', 'FLD', 'USRDEF'])}${1 + Math.floor(rng() * 9)}`;
          for (let attempt = 0; usedFields.has(name.toLowerCase()) && attempt < 4; attempt++)
            name = fieldName(e, c, t, sys.style, rng, hasBusinessKey).name;
          for (let n = 2; usedFields.has(name.toLowerCase()); n++)
            name = sys.style === 'legacy' ? `${name.slice(0, 7)}${n}` : `${name}${n}`;
          usedFields.add(name.toLowerCase());
          if (e.concept === 'pk' && e.words) kind = 'str';
          const len = c.len ?? 64;
          const data_type = TYPES[sys.dialect](kind, len, rng);

          const explicit = t.comments?.[e.key];
          const legacyish = sys.style === 'legacy' || sys.style === 'upper';
          let comment: string | undefined;
          if (generic) comment = cap((e.words ?? pick(rng, c.words)).join(' '));
          else if (explicit && rng() < 0.7) comment = explicit;
          else if (c.comments && rng() < 0.25) comment = pick(rng, c.comments);
          else if (rng() < (legacyish ? 0.08 : 0.03)) comment = pick(rng, NOISE_COMMENTS);

          const withSamples = e.concept !== 'notes' && rng() < 0.55;
          const samples = withSamples ? sampleValues(c, rng) : [];
          out.push({
            datasource,
            table_name: table,
            field_name: name,
            data_type,
            ...(comment ? { comment } : {}),
            ...(samples.length > 0 ? { sample_values: samples } : {}),
            chain_path: tagSpec.chain_path,
            level: e.level ?? c.level ?? tagSpec.default_level,
          });
        }
      }
    }
  }
  return out;
}

/**
 * Flips exactly round(share·n) fields, chosen by `seed`, to a tag from a different top-level group than their
 * own (so each flip is a real error), with that tag's default level. Returns new field objects.
 */
export function seededFlips(
  fields: LabelledField[],
  share: number,
  seed: number,
  taxonomy: FlatTag[] = flattenTaxonomy(),
): { fields: LabelledField[]; flipped: boolean[] } {
  const rng = mulberry32(seed);
  const n = fields.length;
  const k = Math.round(share * n);
  const parents = new Set(taxonomy.map((t) => t.parent_path));
  const leaves = taxonomy.filter((t) => !parents.has(t.chain_path));
  const top = (path: string): string => path.split('/')[0] ?? path;

  const order = fields.map((_, i) => i);
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(rng() * (n - i));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const flipped = new Array<boolean>(n).fill(false);
  const out = fields.map((f) => ({ ...f }));
  for (const i of order.slice(0, k)) {
    const f = out[i]!;
    const candidates = leaves.filter((t) => top(t.chain_path) !== top(f.chain_path));
    if (candidates.length === 0) throw new Error('seededFlips: taxonomy has a single top-level group');
    const target = pick(rng, candidates);
    f.chain_path = target.chain_path;
    f.level = target.default_level;
    flipped[i] = true;
  }
  return { fields: out, flipped };
}

/** The kinds of error the benchmark seeds (METRICS.md "Quality"; docs/metrics.md "Quality"). */
export const ERROR_MODES = ['random', 'sibling', 'systematic', 'level', 'small'] as const;
export type ErrorMode = (typeof ERROR_MODES)[number];
/** Fields in the `small` mode's catalog. */
export const SMALL_CATALOG = 300;
const LEVEL_ORDER: readonly LevelCode[] = ['L1', 'L2', 'L3', 'L4', 'L5'];

/**
 * Seeds the errors of one mode into a copy of the catalog (deterministic in `seed`):
 * - `random`: round(share·n) fields get a tag of another top-level group at its default level (seededFlips);
 * - `sibling`: a tag with the same parent (a near miss, `City` for `Postal code`), at that tag's default level;
 * - `systematic`: whole groups — every field of one data source under one parent category — get one wrong tag of
 *   another top-level group, like a broken scanner rule, until the share is reached;
 * - `level`: the tag stays, the level moves two or more steps, down (under-classified) three times in four when it can;
 * - `small`: a seeded sample of SMALL_CATALOG fields (many tags with one field), then `random` errors.
 */
export function seededErrors(
  fields: LabelledField[],
  mode: ErrorMode,
  share: number,
  seed: number,
): { fields: LabelledField[]; flipped: boolean[] } {
  if (mode === 'random') return seededFlips(fields, share, seed);
  const rng = mulberry32(seed * 7919 + 17);
  if (mode === 'small') {
    const order = fields.map((_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    const kept = order
      .slice(0, SMALL_CATALOG)
      .sort((a, b) => a - b)
      .map((i) => fields[i]!);
    return seededFlips(kept, share, seed);
  }
  const taxonomy = flattenTaxonomy();
  const parents = new Set(taxonomy.map((t) => t.parent_path));
  const leaves = taxonomy.filter((t) => !parents.has(t.chain_path));
  const top = (path: string): string => path.split('/')[0] ?? path;
  const parentOf = (path: string): string => path.slice(0, Math.max(0, path.lastIndexOf('/')));
  const n = fields.length;
  const k = Math.round(share * n);
  const out = fields.map((f) => ({ ...f }));
  const flipped = new Array<boolean>(n).fill(false);
  const shuffled = (xs: number[]): number[] => {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [xs[i], xs[j]] = [xs[j]!, xs[i]!];
    }
    return xs;
  };
  if (mode === 'systematic') {
    const groups = new Map<string, number[]>();
    out.forEach((f, i) => {
      const key = `${f.datasource}\u0000${parentOf(f.chain_path)}`;
      groups.set(key, [...(groups.get(key) ?? []), i]);
    });
    const keys = [...groups.keys()].sort();
    let done = 0;
    for (const g of shuffled(keys.map((_, i) => i))) {
      if (done >= k) break;
      const members = groups.get(keys[g]!)!;
      if (members.length < 2 || done + members.length > k + 5) continue;
      const own = top(out[members[0]!]!.chain_path);
      const target = pick(
        rng,
        leaves.filter((t) => top(t.chain_path) !== own),
      );
      for (const i of members) {
        out[i]!.chain_path = target.chain_path;
        out[i]!.level = target.default_level;
        flipped[i] = true;
      }
      done += members.length;
    }
    return { fields: out, flipped };
  }
  for (const i of shuffled(fields.map((_, j) => j)).slice(0, k)) {
    const f = out[i]!;
    if (mode === 'sibling') {
      const parent = parentOf(f.chain_path);
      let candidates = leaves.filter((t) => t.parent_path === parent && t.chain_path !== f.chain_path);
      if (candidates.length === 0)
        candidates = leaves.filter((t) => top(t.chain_path) === top(f.chain_path) && t.chain_path !== f.chain_path);
      if (candidates.length === 0) candidates = leaves.filter((t) => t.chain_path !== f.chain_path);
      const target = pick(rng, candidates);
      f.chain_path = target.chain_path;
      f.level = target.default_level;
    } else {
      const r = LEVEL_ORDER.indexOf(f.level);
      const lower = LEVEL_ORDER.slice(0, Math.max(0, r - 1));
      const higher = LEVEL_ORDER.slice(r + 2);
      const down = lower.length > 0 && (higher.length === 0 || rng() < 0.75);
      f.level = pick(rng, down ? lower : higher);
    }
    flipped[i] = true;
  }
  return { fields: out, flipped };
}
