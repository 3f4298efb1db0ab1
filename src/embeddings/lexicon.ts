// Built-in word lists for the tokenizer: a small CJK glossary, stop words and SQL data-type words (the schema
// abbreviations are src/text/abbreviations.ts, shared with the classifier). Every word on the right-hand side must
// exist in the shipped vector file; scripts/condense-word-vectors.ts forces them into its vocabulary via `lexiconWords()`.
import { abbreviationWords } from '../text/abbreviations.js';

/**
 * A few common column words in Chinese (simplified and traditional), Japanese and Korean, mapped to
 * English so that `邮箱` lands next to `email`. Matched longest-first inside CJK runs.
 */
export const CJK_GLOSSARY: Readonly<Record<string, string>> = {
  // Chinese (simplified)
  邮箱: 'email', 电子邮件: 'email', 电子邮箱: 'email', 邮件: 'email', 电话: 'telephone', 电话号码: 'telephone number',
  手机: 'mobile phone', 手机号: 'mobile phone number', 手机号码: 'mobile phone number', 号码: 'number',
  姓名: 'name', 名字: 'name', 名称: 'name', 姓: 'surname', 地址: 'address', 住址: 'address', 生日: 'birthday',
  出生日期: 'birth date', 身份证: 'identity card', 身份证号: 'identity card number', 性别: 'gender', 年龄: 'age',
  用户: 'user', 客户: 'customer', 订单: 'order', 金额: 'amount', 价格: 'price', 日期: 'date', 时间: 'time',
  创建: 'created', 更新: 'updated', 修改: 'modified', 删除: 'deleted', 状态: 'status', 类型: 'type',
  编号: 'number', 代码: 'code', 备注: 'remark', 描述: 'description', 密码: 'password', 账号: 'account',
  账户: 'account', 银行: 'bank', 卡号: 'card number', 银行卡: 'bank card', 国家: 'country', 省份: 'province',
  城市: 'city', 邮编: 'postal code', 邮政编码: 'postal code', 公司: 'company', 部门: 'department', 职位: 'position',
  工资: 'salary', 薪资: 'salary', 护照: 'passport', 数量: 'quantity', 总计: 'total', 合计: 'total', 标题: 'title',
  内容: 'content', 员工: 'employee', 学生: 'student', 病人: 'patient', 患者: 'patient', 余额: 'balance',
  // Chinese (traditional)
  郵箱: 'email', 電子郵件: 'email', 電話: 'telephone', 電話號碼: 'telephone number', 號碼: 'number', 帳號: 'account',
  賬號: 'account', 訂單: 'order', 客戶: 'customer', 用戶: 'user', 身份證: 'identity card', 時間: 'time',
  創建: 'created', 銀行: 'bank', 國家: 'country', 價格: 'price', 狀態: 'status', 類型: 'type', 編號: 'number',
  // Japanese
  生年月日: 'birth date', 誕生日: 'birthday', 氏名: 'name', 名前: 'name', 住所: 'address', 電話番号: 'telephone number',
  携帯: 'mobile phone', 携帯番号: 'mobile phone number', メールアドレス: 'email address', メール: 'email',
  郵便番号: 'postal code', 性別: 'gender', 年齢: 'age', 会社: 'company', 顧客: 'customer', 注文: 'order',
  日付: 'date', 作成日: 'created date', 更新日: 'updated date', 口座: 'account', 口座番号: 'account number',
  パスワード: 'password', 番号: 'number', 都道府県: 'prefecture', 市区町村: 'city', 社員: 'employee', 部署: 'department',
  給与: 'salary', 金額: 'amount', ユーザー: 'user', アドレス: 'address', コード: 'code', タイプ: 'type',
  ステータス: 'status', 国: 'country',
  // Korean
  이메일: 'email', 전화번호: 'telephone number', 전화: 'telephone', 이름: 'name', 주소: 'address',
  생년월일: 'birth date', 성별: 'gender', 나이: 'age', 고객: 'customer', 주문: 'order', 금액: 'amount',
  날짜: 'date', 비밀번호: 'password', 계좌: 'account', 번호: 'number', 우편번호: 'postal code',
};

/** English stop words dropped from identifiers and text (`created_at` → `created`). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the of at on in by to for from with and or is are was were be been has have had do does did it its ' +
    'this that these those as if then than so such not nor but into onto over under per via i we you he she they ' +
    'me my our your his her their them us which who whom whose what when where why how all any each every some ' +
    'can could should would will shall may might must also only just very there here about above below after ' +
    'before again further once both few more most other own same too no s t e 的 之 和 の'
  ).split(' '),
);

/** SQL/driver type name (lowercase, parameters stripped) → descriptive words. */
export const DATA_TYPE_WORDS: Readonly<Record<string, string>> = {
  varchar: 'text', char: 'text', character: 'text', nvarchar: 'text', nchar: 'text', text: 'text', string: 'text',
  clob: 'text', tinytext: 'text', mediumtext: 'text', longtext: 'text', citext: 'text', varying: 'text',
  int: 'integer number', integer: 'integer number', bigint: 'integer number', smallint: 'integer number',
  tinyint: 'integer number', mediumint: 'integer number', serial: 'integer number', bigserial: 'integer number',
  int2: 'integer number', int4: 'integer number', int8: 'integer number', long: 'integer number',
  decimal: 'decimal number', numeric: 'decimal number', number: 'decimal number', float: 'decimal number',
  float4: 'decimal number', float8: 'decimal number', double: 'decimal number', real: 'decimal number',
  money: 'money amount', date: 'date', datetime: 'date time', datetime2: 'date time', timestamp: 'date time',
  timestamptz: 'date time', time: 'time', timetz: 'time', interval: 'duration', year: 'year',
  bool: 'boolean flag', boolean: 'boolean flag', bit: 'boolean flag', uuid: 'unique id', uniqueidentifier: 'unique id',
  json: 'json document', jsonb: 'json document', xml: 'xml document', blob: 'binary data', bytea: 'binary data',
  binary: 'binary data', varbinary: 'binary data', longblob: 'binary data', inet: 'ip address', cidr: 'ip network',
  macaddr: 'mac address', enum: 'category', array: 'list', geometry: 'geographic location', geography: 'geographic location',
};

/** Every word the lexicon can produce, so the vector file can be forced to contain them. */
export function lexiconWords(): string[] {
  const out = new Set<string>();
  const add = (s: string) => {
    for (const w of s.replace(/^!/, '').split(' ')) if (w) out.add(w);
  };
  for (const w of abbreviationWords()) out.add(w);
  for (const v of Object.values(CJK_GLOSSARY)) add(v);
  for (const v of Object.values(DATA_TYPE_WORDS)) add(v);
  return [...out].sort();
}
