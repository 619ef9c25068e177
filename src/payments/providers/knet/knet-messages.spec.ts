import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkMerchantUrl,
  checkTrackId,
  checkUdfs,
  knetAmount,
  KnetRequestError,
  parseFlatXml,
  parsePairs,
  sameAmount,
  tranPipeXml,
} from './knet-messages';

describe('KNET message formats', () => {
  it('writes KWD amounts with exactly three decimals and refuses more', () => {
    assert.equal(knetAmount('15.75'), '15.750');
    assert.equal(knetAmount('10'), '10.000');
    assert.equal(knetAmount('0.001'), '0.001');
    assert.equal(knetAmount('999999.999'), '999999.999');
    for (const bad of ['1.0001', '0', '-1', 'abc', '1000000.000']) {
      assert.throws(() => knetAmount(bad), KnetRequestError, bad);
    }
  });

  it('compares amounts as money', () => {
    assert.ok(sameAmount('20.55', '20.550'));
    assert.ok(!sameAmount('20.551', '20.550'));
    assert.ok(!sameAmount('x', '1'));
  });

  it('accepts only alphanumeric track IDs of at most 19, KNET’s transid limit (K-064 §3.5.4)', () => {
    assert.equal(checkTrackId('A1B2C3'), 'A1B2C3');
    assert.equal(checkTrackId('X'.repeat(19)), 'X'.repeat(19));
    for (const bad of ['', 'a-b', 'a.b', 'a=b', 'x'.repeat(20), 'x'.repeat(41)])
      assert.throws(() => checkTrackId(bad), KnetRequestError);
  });

  it('refuses UDF values KNET or the key=value text cannot carry', () => {
    assert.doesNotThrow(() => checkUdfs({ udf1: 'order 42', udf5: 'ptlf amx1234567890' }));
    for (const bad of ['a&b', 'a=b', 'a@b', 'a/b', 'a\nb'])
      assert.throws(() => checkUdfs({ udf2: bad }), KnetRequestError);
  });

  it('accepts response URLs without query string only', () => {
    assert.equal(
      checkMerchantUrl('responseURL', 'https://pay.example/notify/'),
      'https://pay.example/notify/',
    );
    for (const bad of ['/relative', 'ftp://x.example/', 'https://x.example/?a=1', 'https://x.example/#f']) {
      assert.throws(() => checkMerchantUrl('responseURL', bad), KnetRequestError);
    }
  });

  it('reads form-encoded results (K-064 §5 writes NOT+CAPTURED)', () => {
    assert.deepEqual(parsePairs('result=NOT+CAPTURED&amt=20.550&udf1='), {
      result: 'NOT CAPTURED',
      amt: '20.550',
      udf1: '',
    });
  });

  it('writes tranPipe XML with escaped values and reads flat answers', () => {
    assert.equal(
      tranPipeXml([
        ['id', 'T1'],
        ['password', 'a<b&"c'],
      ]),
      '<id>T1</id><password>a&lt;b&amp;&quot;c</password>',
    );
    assert.deepEqual(
      parseFlatXml(
        '<result>CAPTURED</result><payid>100201719515482162</payid><trackid>\n6078874794527794643</trackid>' +
          '<udf1>\n</udf1><udf5></udf5><ref/><amt>2.000</amt>',
      ),
      {
        result: 'CAPTURED',
        payid: '100201719515482162',
        trackid: '6078874794527794643',
        udf1: '',
        udf5: '',
        ref: '',
        amt: '2.000',
      },
    );
    assert.deepEqual(parseFlatXml('<response><result>A &amp; B</result></response>'), { result: 'A & B' });
  });
});
