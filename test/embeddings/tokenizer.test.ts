import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tokenizeDataType, tokenizeIdentifier, tokenizeText } from '../../src/embeddings/tokenizer.js';
import { ABBREVIATIONS } from '../../src/text/abbreviations.js';

describe('tokenizeIdentifier', () => {
  const cases: [string, string[]][] = [
    ['customer_email_address', ['customer', 'email', 'address']],
    ['customerEmailAddress', ['customer', 'email', 'address']],
    ['CustomerEmailAddress', ['customer', 'email', 'address']],
    ['CUSTOMER_EMAIL_ADDRESS', ['customer', 'email', 'address']],
    ['customer-email-address', ['customer', 'email', 'address']],
    ['customer.email.address', ['customer', 'email', 'address']],
    ['HTTPStatus', ['http', 'status']],
    ['getHTTPResponseCode', ['get', 'http', 'response', 'code']],
    ['userID', ['user', 'id']],
    ['XMLHttpRequest', ['xml', 'http', 'request']],
    ['IPv4Address', ['ip', 'address']],
    ['address2', ['address', '2']],
    ['addr2', ['address', '2']],
    ['line_1', ['line', '1']],
    ['e_mail', ['email']],
    ['eMail', ['email']],
    ['  spaced  name ', ['spaced', 'name']],
  ];
  for (const [input, expected] of cases) {
    it(`splits ${JSON.stringify(input)}`, () => assert.deepEqual(tokenizeIdentifier(input), expected));
  }

  it('expands common schema abbreviations', () => {
    assert.deepEqual(tokenizeIdentifier('cust_dob'), ['customer', 'birth', 'date']);
    assert.deepEqual(tokenizeIdentifier('SSN'), ['social', 'security', 'number']);
    assert.deepEqual(tokenizeIdentifier('acctNo'), ['account', 'number']);
    assert.deepEqual(tokenizeIdentifier('tel_no'), ['telephone', 'number']);
    assert.deepEqual(tokenizeIdentifier('emp_mgr_nm'), ['employee', 'manager', 'name']);
    assert.deepEqual(tokenizeIdentifier('txn_amt_ccy'), ['transaction', 'amount', 'currency']);
    assert.deepEqual(tokenizeIdentifier('order_qty'), ['order', 'quantity']);
    assert.deepEqual(tokenizeIdentifier('prod_desc'), ['product', 'description']);
    assert.deepEqual(tokenizeIdentifier('usr_pwd'), ['user', 'password']);
    assert.deepEqual(tokenizeIdentifier('dept_cd'), ['department', 'code']);
    assert.deepEqual(tokenizeIdentifier('del_flg'), ['deleted', 'flag']);
    assert.deepEqual(tokenizeIdentifier('start_dt'), ['start', 'date']);
  });

  it('knows at least 80 abbreviations', () => {
    assert.ok(Object.keys(ABBREVIATIONS).length >= 80, String(Object.keys(ABBREVIATIONS).length));
  });

  it('turns schema suffix/prefix conventions into meaning and drops stop words', () => {
    assert.deepEqual(tokenizeIdentifier('created_at'), ['created', 'time']);
    assert.deepEqual(tokenizeIdentifier('shipped_on'), ['shipped', 'date']);
    assert.deepEqual(tokenizeIdentifier('approved_by'), ['approved', 'user']);
    assert.deepEqual(tokenizeIdentifier('is_active'), ['active', 'flag']);
    assert.deepEqual(tokenizeIdentifier('date_of_birth'), ['date', 'birth']);
    // Nothing but stop words: keep them rather than return nothing.
    assert.deepEqual(tokenizeIdentifier('the'), ['the']);
  });

  it('handles CJK with the built-in glossary and falls back to single characters', () => {
    assert.deepEqual(tokenizeIdentifier('邮箱'), ['email']);
    assert.deepEqual(tokenizeIdentifier('用户邮箱'), ['user', 'email']);
    assert.deepEqual(tokenizeIdentifier('电话'), ['telephone']);
    assert.deepEqual(tokenizeIdentifier('姓名'), ['name']);
    assert.deepEqual(tokenizeIdentifier('地址'), ['address']);
    assert.deepEqual(tokenizeIdentifier('生年月日'), ['birth', 'date']);
    assert.deepEqual(tokenizeIdentifier('メールアドレス'), ['email', 'address']);
    assert.deepEqual(tokenizeIdentifier('전화번호'), ['telephone', 'number']);
    assert.deepEqual(tokenizeIdentifier('user_邮箱'), ['user', 'email']);
    assert.deepEqual(tokenizeIdentifier('鳥龍'), ['鳥', '龍']);
  });

  it('folds accents, full-width forms and other scripts', () => {
    assert.deepEqual(tokenizeIdentifier('téléphone'), ['telephone']);
    assert.deepEqual(tokenizeIdentifier('Straße'), ['strasse']);
    assert.deepEqual(tokenizeIdentifier('ＵｓｅｒＩＤ'), ['user', 'id']);
    assert.deepEqual(tokenizeIdentifier('ИмяКлиента'), ['имя', 'клиента']);
  });

  it('returns nothing for empty or separator-only names', () => {
    assert.deepEqual(tokenizeIdentifier(''), []);
    assert.deepEqual(tokenizeIdentifier('__--..'), []);
  });
});

describe('tokenizeText', () => {
  it('lowercases, drops stop words and numbers, expands only unambiguous abbreviations', () => {
    assert.deepEqual(tokenizeText("The customer's e-mail address; no longer used since 2019 (see cust_id)."), [
      'customer',
      'email',
      'address',
      'longer',
      'used',
      'since',
      'see',
      'customer',
      'id',
    ]);
    // `no` and `cat` are English words in prose.
    assert.deepEqual(tokenizeText('cat photo, DOB'), ['cat', 'photo', 'birth', 'date']);
    assert.deepEqual(tokenizeText('用户的邮箱'), ['user', 'email']);
  });
});

describe('tokenizeDataType', () => {
  it('maps SQL types to words', () => {
    assert.deepEqual(tokenizeDataType('VARCHAR(255)'), ['text']);
    assert.deepEqual(tokenizeDataType('timestamp with time zone'), ['date', 'time']);
    assert.deepEqual(tokenizeDataType('numeric(12,2)'), ['decimal', 'number']);
    assert.deepEqual(tokenizeDataType('int[]'), ['integer', 'number', 'list']);
    assert.deepEqual(tokenizeDataType('geheimnis'), []);
  });
});
