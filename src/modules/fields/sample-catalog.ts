// The catalog shown to a new user on a trial: five realistic data sources, classified with the default
// taxonomy, with a fixed ~5% of fields deliberately misclassified so the review queue has something to find.
// Sample values are synthetic (example.com addresses, Luhn-valid test card numbers, 555 phone numbers); they
// only feed the format signature of the embedding and are never stored by the service.

import { flattenTaxonomy, type LevelCode } from '../taxonomy/default-taxonomy.js';

export interface SampleField {
  table_name: string;
  field_name: string;
  data_type: string;
  comment?: string;
  sample_values?: string[];
  classification_chain_path: string;
  level: LevelCode;
  seeded_wrong: boolean;
}

export interface SampleDatasource {
  name: string;
  type: string;
  description: string;
  fields: SampleField[];
}

const flat = flattenTaxonomy();
const parents = new Set(flat.map((t) => t.parent_path));
const leafByName = new Map(flat.filter((t) => !parents.has(t.chain_path)).map((t) => [t.name, t]));

function leaf(name: string): { chain_path: string; default_level: LevelCode } {
  const t = leafByName.get(name);
  if (!t) throw new Error(`sample catalog: unknown tag "${name}"`);
  return t;
}

/** Synthetic values per tag, chosen to give each format its typical shape. */
const SAMPLE_VALUES: Record<string, string[]> = {
  'Full name': ['Ann Example', 'Bo Tester', 'Carla Sample'],
  'First name': ['Ann', 'Bo', 'Carla'],
  'Last name': ['Example', 'Tester', 'Sample'],
  'Date of birth': ['1984-03-12', '1990-11-02', '1972-07-29'],
  Gender: ['F', 'M', 'X'],
  'National ID number': ['078-05-1120', '219-09-9999', '123-45-6789'],
  'Passport number': ['X1234567', 'C03005988', 'P9876543'],
  'Driver licence number': ['D1234-56789-01234', 'S530-4127-8830', 'B7766554'],
  'Tax identification number': ['DE123456789', '912-70-1234', '12 345 678 901'],
  'Email address': ['ann@example.com', 'bo.tester@example.org', 'carla+news@example.net'],
  'Phone number': ['+1 555 0100', '+44 20 7946 0018', '(555) 010-4477'],
  'Postal address': ['1 Example Street', '42 Sample Road Apt 3', '7 Test Lane'],
  'Postal code': ['10115', 'SW1A 1AA', '94105'],
  City: ['Springfield', 'Berlin', 'Lyon'],
  Country: ['Germany', 'France', 'United States'],
  'IP address': ['192.0.2.10', '198.51.100.7', '2001:db8::1'],
  'Device ID': ['3f2a9c1e-7b4d-4e8a-9f10-5c6d7e8f9a0b', '35-209900-176148-1', 'AA:BB:CC:00:11:22'],
  'Cookie ID': ['GA1.2.1234567890.1600000000', 'c_9f8e7d6c5b4a', 'sess_4d3c2b1a'],
  Username: ['ann.example', 'bo_t', 'csample'],
  'Password hash': ['$2b$12$KIXQJQ4yq0b1cZ5a6b7c8uT1e2f3g4h5i6j7k8l9m0n1o2p3q4r5s', '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA'],
  'API key or token': ['sk_test_4eC39HqLyjWDarjtT1zdp7dc', 'ghp_EXAMPLEexampleEXAMPLE0000', 'eyJhbGciOiJIUzI1NiJ9.e30.sig'],
  'Security question': ["Mother's maiden name?", 'First pet?', 'Favourite teacher?'],
  'Payment card number': ['4111111111111111', '5555555555554444', '378282246310005'],
  'Card expiry date': ['12/27', '03/26', '09/28'],
  'Card verification code': ['123', '737', '4567'],
  'Bank account number': ['DE89370400440532013000', 'GB29NWBK60161331926819', 'FR1420041010050500013M02606'],
  'Account balance': ['1520.75', '-42.10', '98000.00'],
  'Monetary amount': ['19.99', '250.00', '1234.56'],
  'Transaction ID': ['txn_8F3K2LQ9', 'TRX-2024-000123', 'ch_3MtwBwLkdIwHu7ix'],
  Salary: ['58000', '72500.00', '4100.00'],
  'Credit score': ['712', '655', '801'],
  'Insurance policy number': ['POL-00012345', 'HX-778-2213', 'A1234567'],
  Diagnosis: ['E11.9', 'J45.909', 'Type 2 diabetes mellitus'],
  Medication: ['Metformin 500 mg', 'Atorvastatin 20 mg', 'Salbutamol inhaler'],
  'Medical record number': ['MRN0012345', 'MRN0098765', 'MRN0045678'],
  'Health insurance number': ['XEH123456789', 'W123456789', 'A123456780'],
  'Lab result': ['HbA1c 6.8 %', '5.4 mmol/L', 'negative'],
  'Clinical measurement': ['120/80', '72', '36.8'],
  'Geo coordinates': ['52.5200', '13.4050', '-33.8688'],
  'Precise location': ['52.52001,13.40495', 'u33dc0cpp', '48.8566,2.3522'],
  'Approximate location': ['Bavaria', 'North West', 'CA'],
  'Customer ID': ['C000123', 'C004567', 'C019283'],
  'Order ID': ['SO-100045', 'SO-100046', '1000789'],
  'Invoice number': ['INV-2024-0001', 'INV-2024-0002', 'INV-2024-0137'],
  'Contract reference': ['CTR-2023-044', 'MSA-0012', 'CTR-2024-101'],
  'Discount code': ['WELCOME10', 'SPRING24', 'FREESHIP'],
  'Shipment tracking number': ['1Z999AA10123456784', 'JD014600006281234567', '9400110200881234567890'],
  'Product SKU': ['SKU-10023', 'TSH-BLK-M', '4006381333931'],
  Price: ['19.99', '4.50', '129.00'],
  Quantity: ['1', '3', '12'],
  'Organisation name': ['Example GmbH', 'Sample Industries Inc.', 'Test & Co'],
  'Employee ID': ['E10023', 'E10456', 'E20011'],
  Department: ['Finance', 'Engineering', 'Sales'],
  'Job title': ['Accountant', 'Software Engineer', 'Account Executive'],
  'Performance rating': ['4', 'Meets expectations', '3.5'],
  'Internal notes': ['Called back, wants a refund', 'VIP - handle with care', 'Escalated to tier 2'],
  'Record ID': ['1', '2', '3'],
  'Foreign key': ['17', '42', '108'],
  Timestamp: ['2024-05-01T10:15:00Z', '2024-05-02T08:00:12Z', '2024-06-11T17:45:09Z'],
  'Status flag': ['active', 'inactive', 'pending'],
  Version: ['1', '2', '7'],
  'Hash or checksum': ['d41d8cd98f00b204e9800998ecf8427e', '9e107d9d372bb6826bd81d3542a419d6', 'e3b0c44298fc1c149afbf4c8996fb924'],
  'Log message': ['GET /api/orders 200 12ms', 'ERROR timeout contacting payment gateway', 'user login succeeded'],
  'Configuration setting': ['true', 'smtp.example.com', '30'],
  'Event name': ['page_view', 'add_to_cart', 'checkout_started'],
  URL: ['https://example.com/products/42', '/checkout', 'https://example.org/?ref=mail'],
  'User agent': ['Mozilla/5.0 (X11; Linux x86_64) Firefox/126.0', 'okhttp/4.12.0', 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4)'],
  'Metric value': ['123', '0.42', '5120'],
  'Country code': ['DE', 'FR', 'US'],
  'Currency code': ['EUR', 'USD', 'GBP'],
  'Language code': ['en', 'de-DE', 'fr'],
  'Public product description': ['Organic cotton T-shirt', 'Stainless steel water bottle 750 ml', 'Wireless mouse'],
  Category: ['Apparel', 'Electronics', 'Home & Garden'],
  'Unit of measure': ['pcs', 'kg', 'm'],
};

/** Synthetic sample values for a tag of the default taxonomy (by leaf name); empty when there are none. */
export function syntheticSampleValues(tagName: string): string[] {
  return [...(SAMPLE_VALUES[tagName] ?? [])];
}

interface SourceSpec {
  name: string;
  type: string;
  description: string;
  /** table name → rows `field  type  Tag name  [Ln]  [# comment]`, columns separated by two or more spaces */
  tables: Record<string, string>;
}

// Values in these tags are either not interesting as a format signal or would be misleading in a demo.
const NO_SAMPLES = new Set(['Internal notes', 'Security question']);

const SOURCES: SourceSpec[] = [
  {
    name: 'crm',
    type: 'postgresql',
    description: 'Sales CRM: contacts, accounts, leads and support tickets (PostgreSQL 15).',
    tables: {
      contacts: `
        id  bigint  Record ID
        account_id  bigint  Foreign key
        first_name  varchar(80)  First name
        last_name  varchar(80)  Last name
        email  varchar(255)  Email address
        phone  varchar(32)  Phone number
        mobile_phone  varchar(32)  Phone number
        job_title  varchar(120)  Job title  L2
        street_address  varchar(255)  Postal address
        city  varchar(100)  City
        postal_code  varchar(16)  Postal code
        country  varchar(64)  Country
        date_of_birth  date  Date of birth  # collected for event registrations only
        preferred_language  varchar(8)  Language code
        linkedin_url  text  URL
        do_not_call  boolean  Status flag
        owner_user_id  bigint  Foreign key
        created_at  timestamptz  Timestamp
        updated_at  timestamptz  Timestamp`,
      accounts: `
        id  bigint  Record ID
        name  varchar(200)  Organisation name
        industry  varchar(80)  Category
        website  text  URL
        billing_street  varchar(255)  Postal address  L2
        billing_city  varchar(100)  City
        billing_country  char(2)  Country code
        annual_revenue  numeric(14,2)  Monetary amount
        employee_count  integer  Quantity
        customer_number  varchar(20)  Customer ID
        vat_number  varchar(20)  Tax identification number  L3  # company VAT id
        account_status  varchar(20)  Status flag
        created_at  timestamptz  Timestamp`,
      leads: `
        id  bigint  Record ID
        full_name  varchar(160)  Full name
        email  varchar(255)  Email address
        phone  varchar(32)  Phone number
        company  varchar(200)  Organisation name  # as typed by the lead
        source  varchar(40)  Category
        utm_campaign  varchar(80)  Category
        ip_address  inet  IP address
        lead_score  smallint  Performance rating  L2
        notes  text  Internal notes
        converted  boolean  Status flag
        created_at  timestamptz  Timestamp`,
      opportunities: `
        id  bigint  Record ID
        account_id  bigint  Foreign key
        contact_id  bigint  Foreign key
        stage  varchar(40)  Status flag
        amount  numeric(14,2)  Monetary amount
        currency  char(3)  Currency code
        close_date  date  Timestamp
        probability  smallint  Metric value
        contract_id  varchar(32)  Contract reference
        next_step  text  Internal notes
        created_at  timestamptz  Timestamp`,
      activities: `
        id  bigint  Record ID
        contact_id  bigint  Foreign key
        activity_type  varchar(20)  Event name
        subject  varchar(255)  Internal notes
        body  text  Internal notes
        call_duration_sec  integer  Metric value
        occurred_at  timestamptz  Timestamp`,
      users: `
        id  bigint  Record ID
        username  varchar(64)  Username
        email  varchar(255)  Email address
        password_hash  varchar(255)  Password hash
        mfa_secret  varchar(64)  API key or token
        display_name  varchar(120)  Full name  L2
        team  varchar(64)  Department
        last_login_ip  inet  IP address
        last_login_at  timestamptz  Timestamp
        is_admin  boolean  Status flag`,
      support_tickets: `
        id  bigint  Record ID
        ticket_number  varchar(20)  Record ID
        contact_id  bigint  Foreign key
        subject  varchar(255)  Internal notes
        description  text  Internal notes
        priority  varchar(10)  Status flag
        status  varchar(20)  Status flag
        channel  varchar(20)  Category
        assignee_id  bigint  Foreign key
        satisfaction_score  smallint  Performance rating  L2
        opened_at  timestamptz  Timestamp
        closed_at  timestamptz  Timestamp`,
      consents: `
        id  bigint  Record ID
        contact_id  bigint  Foreign key
        purpose  varchar(40)  Category
        granted  boolean  Status flag
        granted_at  timestamptz  Timestamp
        ip_address  inet  IP address
        user_agent  text  User agent
        policy_version  varchar(10)  Version`,
    },
  },
  {
    name: 'ecommerce',
    type: 'mysql',
    description: 'Web shop: customers, catalogue, orders, payments and shipping (MySQL 8).',
    tables: {
      customers: `
        customer_id  int unsigned  Customer ID
        email  varchar(191)  Email address
        password  varchar(255)  Password hash  # bcrypt
        firstname  varchar(64)  First name
        lastname  varchar(64)  Last name
        gender  enum('f','m','x')  Gender
        birthday  date  Date of birth
        telephone  varchar(32)  Phone number
        newsletter  tinyint(1)  Status flag
        customer_group  varchar(32)  Category
        default_address_id  int unsigned  Foreign key
        registration_ip  varchar(45)  IP address
        created_at  datetime  Timestamp
        updated_at  datetime  Timestamp`,
      customer_addresses: `
        address_id  int unsigned  Record ID
        customer_id  int unsigned  Customer ID
        firstname  varchar(64)  First name
        lastname  varchar(64)  Last name
        company  varchar(128)  Organisation name
        street  varchar(255)  Postal address
        street2  varchar(255)  Postal address
        city  varchar(128)  City
        postcode  varchar(16)  Postal code
        region  varchar(64)  Approximate location
        country_id  char(2)  Country code  L2
        phone  varchar(32)  Phone number`,
      products: `
        product_id  int unsigned  Record ID
        sku  varchar(64)  Product SKU
        name  varchar(255)  Public product description
        description  text  Public product description
        category_id  int unsigned  Foreign key
        brand  varchar(64)  Category
        price  decimal(10,2)  Price
        cost_price  decimal(10,2)  Price  L3  # purchase price, not public
        weight  decimal(8,3)  Metric value
        weight_unit  varchar(8)  Unit of measure
        stock_qty  int  Quantity
        ean  varchar(14)  Product SKU
        is_active  tinyint(1)  Status flag
        created_at  datetime  Timestamp`,
      categories: `
        category_id  int unsigned  Record ID
        parent_id  int unsigned  Foreign key
        name  varchar(128)  Category
        url_key  varchar(128)  URL  L1
        position  int  Metric value`,
      orders: `
        order_id  int unsigned  Record ID
        increment_id  varchar(32)  Order ID  # customer-facing order number
        customer_id  int unsigned  Customer ID
        customer_email  varchar(191)  Email address
        status  varchar(32)  Status flag
        subtotal  decimal(12,2)  Monetary amount
        shipping_amount  decimal(12,2)  Monetary amount
        tax_amount  decimal(12,2)  Monetary amount
        grand_total  decimal(12,2)  Monetary amount
        order_currency  char(3)  Currency code
        coupon_code  varchar(32)  Discount code
        remote_ip  varchar(45)  IP address
        shipping_address_id  int unsigned  Foreign key
        customer_note  text  Internal notes
        created_at  datetime  Timestamp`,
      order_items: `
        item_id  int unsigned  Record ID
        order_id  int unsigned  Foreign key
        product_id  int unsigned  Foreign key
        sku  varchar(64)  Product SKU
        name  varchar(255)  Public product description
        qty_ordered  decimal(12,4)  Quantity
        price  decimal(12,2)  Price
        discount_amount  decimal(12,2)  Monetary amount
        row_total  decimal(12,2)  Monetary amount`,
      payments: `
        payment_id  int unsigned  Record ID
        order_id  int unsigned  Foreign key
        method  varchar(32)  Category
        cc_last4  char(4)  Payment card number  L3  # last four digits only
        cc_exp_month  tinyint  Card expiry date
        cc_exp_year  smallint  Card expiry date
        cc_owner  varchar(128)  Full name
        amount_paid  decimal(12,2)  Monetary amount
        transaction_id  varchar(64)  Transaction ID
        gateway_response  text  Log message
        paid_at  datetime  Timestamp`,
      shipments: `
        shipment_id  int unsigned  Record ID
        order_id  int unsigned  Foreign key
        carrier  varchar(32)  Category
        tracking_number  varchar(64)  Shipment tracking number
        total_weight  decimal(8,3)  Metric value
        shipped_at  datetime  Timestamp
        delivered_at  datetime  Timestamp`,
      coupons: `
        coupon_id  int unsigned  Record ID
        code  varchar(32)  Discount code
        discount_percent  decimal(5,2)  Metric value
        uses_per_customer  int  Quantity
        valid_from  date  Timestamp
        valid_to  date  Timestamp`,
      product_reviews: `
        review_id  int unsigned  Record ID
        product_id  int unsigned  Foreign key
        customer_id  int unsigned  Customer ID
        nickname  varchar(64)  Username
        rating  tinyint  Performance rating  L1
        title  varchar(255)  Public product description
        detail  text  Internal notes  L2
        created_at  datetime  Timestamp`,
      web_sessions: `
        session_id  varchar(64)  Cookie ID
        customer_id  int unsigned  Customer ID
        ip  varchar(45)  IP address
        user_agent  varchar(512)  User agent
        landing_page  varchar(1024)  URL
        referrer  varchar(1024)  URL
        device_type  varchar(16)  Category
        geo_region  varchar(64)  Approximate location
        started_at  datetime  Timestamp
        page_views  int  Metric value`,
    },
  },
  {
    name: 'hr',
    type: 'sqlserver',
    description: 'HR and payroll system: employees, compensation, absences and reviews (SQL Server 2019).',
    tables: {
      Employees: `
        EmployeeId  int  Employee ID
        FirstName  nvarchar(60)  First name
        LastName  nvarchar(60)  Last name
        PreferredName  nvarchar(60)  First name
        BirthDate  date  Date of birth
        Gender  nchar(1)  Gender
        SocialSecurityNumber  char(11)  National ID number
        PassportNo  nvarchar(20)  Passport number
        WorkEmail  nvarchar(255)  Email address  L2
        PersonalEmail  nvarchar(255)  Email address
        HomePhone  nvarchar(30)  Phone number
        HomeAddress  nvarchar(255)  Postal address
        HomeCity  nvarchar(100)  City
        HomePostalCode  nvarchar(12)  Postal code
        HireDate  date  Timestamp  L2
        TerminationDate  date  Timestamp  L3
        JobTitle  nvarchar(120)  Job title
        DepartmentId  int  Foreign key
        ManagerId  int  Employee ID
        EmploymentStatus  nvarchar(20)  Status flag  L2
        RowVersion  rowversion  Version`,
      Departments: `
        DepartmentId  int  Record ID
        DepartmentName  nvarchar(100)  Department
        CostCenter  nvarchar(20)  Department
        HeadEmployeeId  int  Employee ID
        LocationCity  nvarchar(100)  City  L1`,
      Compensation: `
        CompensationId  int  Record ID
        EmployeeId  int  Employee ID
        BaseSalary  decimal(12,2)  Salary
        BonusTarget  decimal(12,2)  Salary
        HourlyRate  decimal(8,2)  Salary
        Currency  char(3)  Currency code
        PayGrade  nvarchar(10)  Job title  L3
        EffectiveFrom  date  Timestamp`,
      Payroll: `
        PayrollId  bigint  Record ID
        EmployeeId  int  Employee ID
        PayPeriodEnd  date  Timestamp
        GrossPay  decimal(12,2)  Salary
        NetPay  decimal(12,2)  Salary
        TaxWithheld  decimal(12,2)  Monetary amount  L4
        BankIban  nvarchar(34)  Bank account number
        BankBic  nvarchar(11)  Bank account number  L2
        TaxId  nvarchar(20)  Tax identification number
        PaidOn  date  Timestamp`,
      Absences: `
        AbsenceId  int  Record ID
        EmployeeId  int  Employee ID
        AbsenceType  nvarchar(30)  Category  L2
        StartDate  date  Timestamp
        EndDate  date  Timestamp
        SickNoteDiagnosis  nvarchar(255)  Diagnosis  # only filled for sick leave over 3 days
        ApprovedBy  int  Employee ID
        Comment  nvarchar(max)  Internal notes`,
      PerformanceReviews: `
        ReviewId  int  Record ID
        EmployeeId  int  Employee ID
        ReviewerId  int  Employee ID
        ReviewPeriod  nvarchar(10)  Timestamp
        OverallRating  tinyint  Performance rating
        Strengths  nvarchar(max)  Internal notes  L4
        DevelopmentAreas  nvarchar(max)  Internal notes  L4
        SubmittedAt  datetime2  Timestamp`,
      EmergencyContacts: `
        ContactId  int  Record ID
        EmployeeId  int  Employee ID
        ContactName  nvarchar(120)  Full name
        Relationship  nvarchar(30)  Category  L3
        Phone  nvarchar(30)  Phone number
        Email  nvarchar(255)  Email address`,
      Benefits: `
        BenefitId  int  Record ID
        EmployeeId  int  Employee ID
        PlanCode  nvarchar(20)  Category  L2
        HealthInsuranceMemberId  nvarchar(30)  Health insurance number
        PensionContribution  decimal(10,2)  Salary
        Dependents  tinyint  Quantity  L3
        EnrolledOn  date  Timestamp`,
      Users: `
        UserId  int  Record ID
        Login  nvarchar(64)  Username
        PasswordHash  varbinary(64)  Password hash
        SecurityQuestion  nvarchar(255)  Security question
        SecurityAnswer  nvarchar(255)  Security question
        LastLogin  datetime2  Timestamp
        Locked  bit  Status flag`,
    },
  },
  {
    name: 'billing',
    type: 'postgresql',
    description: 'Subscription billing: plans, invoices, payment methods and the public API (PostgreSQL 16).',
    tables: {
      accounts: `
        id  uuid  Record ID
        customer_ref  varchar(20)  Customer ID
        legal_name  varchar(200)  Organisation name
        billing_email  varchar(255)  Email address
        tax_id  varchar(32)  Tax identification number  L3
        address_line1  varchar(255)  Postal address
        address_line2  varchar(255)  Postal address
        postal_code  varchar(16)  Postal code
        city  varchar(100)  City
        country_code  char(2)  Country code  L2
        currency  char(3)  Currency code
        balance  numeric(14,2)  Account balance
        credit_limit  numeric(14,2)  Account balance
        created_at  timestamptz  Timestamp`,
      subscriptions: `
        id  uuid  Record ID
        account_id  uuid  Foreign key
        plan_code  varchar(40)  Product SKU
        quantity  integer  Quantity
        unit_price  numeric(10,2)  Price
        status  varchar(20)  Status flag
        trial_ends_at  timestamptz  Timestamp
        current_period_end  timestamptz  Timestamp
        cancel_reason  text  Internal notes
        contract_number  varchar(32)  Contract reference`,
      invoices: `
        id  uuid  Record ID
        account_id  uuid  Foreign key
        number  varchar(32)  Invoice number  # sequential invoice number, e.g. INV-2024-0001
        issue_date  date  Timestamp
        due_date  date  Timestamp
        subtotal  numeric(14,2)  Monetary amount
        tax_total  numeric(14,2)  Monetary amount
        total  numeric(14,2)  Monetary amount
        currency  char(3)  Currency code
        status  varchar(20)  Status flag
        pdf_sha256  char(64)  Hash or checksum
        memo  text  Internal notes`,
      invoice_lines: `
        id  uuid  Record ID
        invoice_id  uuid  Foreign key
        description  text  Public product description
        sku  varchar(40)  Product SKU
        quantity  numeric(12,3)  Quantity
        unit  varchar(8)  Unit of measure
        unit_price  numeric(12,4)  Price
        amount  numeric(14,2)  Monetary amount
        tax_rate  numeric(5,2)  Metric value`,
      payment_methods: `
        id  uuid  Record ID
        account_id  uuid  Foreign key
        type  varchar(16)  Category
        card_number  varchar(19)  Payment card number  # test environment stores full PAN
        card_exp  char(5)  Card expiry date
        card_cvc  varchar(4)  Card verification code
        cardholder_name  varchar(120)  Full name
        iban  varchar(34)  Bank account number
        mandate_reference  varchar(35)  Contract reference
        fingerprint  char(32)  Hash or checksum
        is_default  boolean  Status flag`,
      transactions: `
        id  uuid  Record ID
        account_id  uuid  Foreign key
        invoice_id  uuid  Foreign key
        gateway_txn_id  varchar(64)  Transaction ID
        kind  varchar(16)  Category
        amount  numeric(14,2)  Monetary amount
        currency  char(3)  Currency code
        failure_message  text  Log message
        payer_ip  inet  IP address
        created_at  timestamptz  Timestamp`,
      api_clients: `
        id  uuid  Record ID
        account_id  uuid  Foreign key
        client_name  varchar(80)  Configuration setting
        api_key  varchar(64)  API key or token
        webhook_url  text  URL
        webhook_secret  varchar(64)  API key or token
        scopes  text  Configuration setting
        rate_limit_per_min  integer  Configuration setting
        last_used_at  timestamptz  Timestamp`,
      request_log: `
        id  bigint  Record ID
        api_client_id  uuid  Foreign key
        method  varchar(8)  Event name
        path  text  URL
        status_code  smallint  Status flag
        duration_ms  integer  Metric value
        request_id  uuid  Record ID
        error  text  Log message
        logged_at  timestamptz  Timestamp`,
      countries: `
        code  char(2)  Country code
        name  varchar(80)  Country code
        default_currency  char(3)  Currency code
        vat_rate  numeric(5,2)  Metric value
        eu_member  boolean  Status flag`,
      app_settings: `
        key  varchar(80)  Configuration setting
        value  text  Configuration setting
        schema_version  integer  Version
        updated_at  timestamptz  Timestamp`,
    },
  },
  {
    name: 'legacy_dwh',
    type: 'oracle',
    description: 'Legacy data warehouse loaded nightly from the mainframe: abbreviated UPPER_CASE names (Oracle 12c).',
    tables: {
      CUST_MSTR: `
        CUSTNO  NUMBER(10)  Customer ID
        CUSTNM  VARCHAR2(60)  Full name
        CUSTFNM  VARCHAR2(30)  First name
        CUSTLNM  VARCHAR2(30)  Last name
        CUSTDOB  DATE  Date of birth
        SSN_NO  CHAR(11)  National ID number
        SEX_CD  CHAR(1)  Gender
        ADDR1  VARCHAR2(40)  Postal address
        ADDR2  VARCHAR2(40)  Postal address
        CITY_NM  VARCHAR2(30)  City
        ST_CD  CHAR(2)  Approximate location
        ZIP_CD  VARCHAR2(10)  Postal code
        CNTRY_CD  CHAR(3)  Country code  L2
        HOME_TEL  VARCHAR2(20)  Phone number
        EMAIL_ADR  VARCHAR2(80)  Email address
        DL_NO  VARCHAR2(20)  Driver licence number
        CRD_SCR  NUMBER(3)  Credit score
        LANG_CD  CHAR(2)  Language code
        CRT_DT  DATE  Timestamp
        UPD_TS  TIMESTAMP  Timestamp
        ACTV_FLG  CHAR(1)  Status flag`,
      ACCT_MSTR: `
        ACCTNO  VARCHAR2(20)  Bank account number
        CUSTNO  NUMBER(10)  Customer ID
        ACCT_TYP  CHAR(2)  Category
        OPEN_DT  DATE  Timestamp
        CUR_BAL  NUMBER(15,2)  Account balance
        AVL_BAL  NUMBER(15,2)  Account balance
        CRLMT  NUMBER(15,2)  Account balance
        CCY  CHAR(3)  Currency code
        BRCH_CD  VARCHAR2(6)  Department  L1
        STAT_CD  CHAR(1)  Status flag`,
      TXN_HIST: `
        TXN_ID  NUMBER(18)  Transaction ID
        ACCTNO  VARCHAR2(20)  Bank account number
        TXN_DT  DATE  Timestamp
        TXN_AMT  NUMBER(15,2)  Monetary amount
        TXN_CD  CHAR(3)  Category
        DR_CR_IND  CHAR(1)  Status flag
        MRCH_NM  VARCHAR2(40)  Organisation name  # merchant name
        MRCH_CTY  VARCHAR2(30)  City
        CARD_NO  VARCHAR2(19)  Payment card number
        AUTH_CD  VARCHAR2(6)  Transaction ID
        CHN_CD  CHAR(2)  Category`,
      EMP_MSTR: `
        EMPNO  NUMBER(8)  Employee ID
        EMPNM  VARCHAR2(60)  Full name
        EMPDOB  DATE  Date of birth
        EMPSSN  CHAR(11)  National ID number
        DEPT_CD  VARCHAR2(6)  Department
        JOB_CD  VARCHAR2(6)  Job title
        HIRE_DT  DATE  Timestamp  L2
        SAL_AMT  NUMBER(12,2)  Salary
        MGR_EMPNO  NUMBER(8)  Employee ID
        EMP_TEL  VARCHAR2(20)  Phone number`,
      CLM_HDR: `
        CLM_NO  VARCHAR2(15)  Record ID
        POL_NO  VARCHAR2(15)  Insurance policy number
        MBR_ID  VARCHAR2(20)  Health insurance number
        PAT_MRN  VARCHAR2(12)  Medical record number
        SVC_DT  DATE  Timestamp  L3
        DX_CD1  VARCHAR2(8)  Diagnosis
        DX_CD2  VARCHAR2(8)  Diagnosis
        RX_NDC  VARCHAR2(11)  Medication
        CLM_AMT  NUMBER(12,2)  Monetary amount
        PD_AMT  NUMBER(12,2)  Monetary amount
        PRV_NPI  CHAR(10)  Foreign key  L2  # provider NPI number
        CLM_STAT  CHAR(1)  Status flag`,
      STORE_DIM: `
        STORE_ID  NUMBER(6)  Record ID
        STORE_NM  VARCHAR2(40)  Organisation name  L1
        STORE_LAT  NUMBER(9,6)  Geo coordinates  L1
        STORE_LON  NUMBER(9,6)  Geo coordinates  L1
        RGN_CD  VARCHAR2(4)  Approximate location  L1
        OPEN_DT  DATE  Timestamp`,
      ETL_AUDIT: `
        RUN_ID  NUMBER(12)  Record ID
        JOB_NM  VARCHAR2(40)  Configuration setting
        SRC_FILE  VARCHAR2(120)  Configuration setting
        ROW_CNT  NUMBER(12)  Metric value
        CHKSUM  VARCHAR2(64)  Hash or checksum
        ERR_MSG  VARCHAR2(4000)  Log message
        START_TS  TIMESTAMP  Timestamp
        END_TS  TIMESTAMP  Timestamp
        ETL_VER  VARCHAR2(10)  Version`,
    },
  },
];

/**
 * The deliberate mistakes, keyed `source.table.field` → the wrong tag. Each moves the field into a different
 * top-level group than its true tag (an email tagged as a timestamp, an SSN as a country code …).
 */
const SEEDED_WRONG: Record<string, string> = {
  'crm.contacts.email': 'Timestamp',
  'crm.contacts.date_of_birth': 'Category',
  'crm.leads.ip_address': 'Language code',
  'crm.users.password_hash': 'Version',
  'ecommerce.customers.telephone': 'Product SKU',
  'ecommerce.customer_addresses.street': 'Log message',
  'ecommerce.orders.grand_total': 'Event name',
  'ecommerce.payments.cc_owner': 'Status flag',
  'ecommerce.products.price': 'Phone number',
  'hr.Employees.SocialSecurityNumber': 'Country code',
  'hr.Employees.BirthDate': 'Discount code',
  'hr.Compensation.BaseSalary': 'Record ID',
  'hr.Payroll.BankIban': 'URL',
  'hr.Absences.SickNoteDiagnosis': 'Department',
  'hr.Users.SecurityAnswer': 'Public product description',
  'billing.payment_methods.card_number': 'Order ID',
  'billing.accounts.billing_email': 'Configuration setting',
  'billing.api_clients.api_key': 'Customer ID',
  'billing.invoices.total': 'Gender',
  'legacy_dwh.CUST_MSTR.SSN_NO': 'Country code',
  'legacy_dwh.EMP_MSTR.EMPDOB': 'Version',
  'legacy_dwh.TXN_HIST.CARD_NO': 'Quantity',
  'legacy_dwh.CLM_HDR.DX_CD1': 'Currency code',
};

interface Correct {
  chain_path: string;
  level: LevelCode;
}

function parseRow(line: string, where: string): { field: string; type: string; tag: string; level?: LevelCode; comment?: string } {
  const hash = line.indexOf('  # ');
  const comment = hash >= 0 ? line.slice(hash + 4).trim() : undefined;
  const cols = (hash >= 0 ? line.slice(0, hash) : line).trim().split(/\s{2,}/);
  const [field, type, tagName, level] = cols;
  if (!field || !type || !tagName || cols.length > 4 || (level !== undefined && !/^L[1-5]$/.test(level))) {
    throw new Error(`sample catalog: bad row in ${where}: "${line.trim()}"`);
  }
  return { field, type, tag: tagName, ...(level ? { level: level as LevelCode } : {}), ...(comment ? { comment } : {}) };
}

const corrections = new Map<string, Correct>();

function buildSource(spec: SourceSpec): SampleDatasource {
  const fields: SampleField[] = [];
  for (const [table, body] of Object.entries(spec.tables)) {
    for (const line of body.split('\n')) {
      if (line.trim() === '') continue;
      const row = parseRow(line, `${spec.name}.${table}`);
      const key = `${spec.name}.${table}.${row.field}`;
      const truth = leaf(row.tag);
      const trueLevel = row.level ?? truth.default_level;
      const wrongTag = SEEDED_WRONG[key];
      const assigned = wrongTag === undefined ? { chain_path: truth.chain_path, level: trueLevel } : { chain_path: leaf(wrongTag).chain_path, level: leaf(wrongTag).default_level };
      if (wrongTag !== undefined) corrections.set(key, { chain_path: truth.chain_path, level: trueLevel });
      const samples = NO_SAMPLES.has(row.tag) ? [] : syntheticSampleValues(row.tag);
      fields.push({
        table_name: table,
        field_name: row.field,
        data_type: row.type,
        ...(row.comment ? { comment: row.comment } : {}),
        ...(samples.length > 0 ? { sample_values: samples } : {}),
        classification_chain_path: assigned.chain_path,
        level: assigned.level,
        seeded_wrong: wrongTag !== undefined,
      });
    }
  }
  return { name: spec.name, type: spec.type, description: spec.description, fields };
}

export const sampleCatalog: readonly SampleDatasource[] = SOURCES.map(buildSource);

for (const key of Object.keys(SEEDED_WRONG)) {
  if (!corrections.has(key)) throw new Error(`sample catalog: seeded mistake for unknown field ${key}`);
}

/** The true classification of each seeded-wrong field, keyed `source.table.field` (for demos and tests). */
export const sampleCatalogCorrections: ReadonlyMap<string, Correct> = corrections;
