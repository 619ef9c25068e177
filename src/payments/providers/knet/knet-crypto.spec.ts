import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decryptTrandata, encryptTrandata, KnetDecryptError, KnetKeyError } from './knet-crypto';

/**
 * Vectors derived from the documented scheme (AES-128-CBC, key = IV = the resource key's bytes,
 * PKCS#7, hex) with the OpenSSL command line, independently of this code:
 *   printf '<plain>' | openssl enc -aes-128-cbc -K 41424344454630313233343536373839 \
 *     -iv 41424344454630313233343536373839 | xxd -p
 */
const KEY = 'ABCDEF0123456789';
const VECTORS = [
  {
    plain: 'paymentid=100201234567890123&result=CAPTURED&trackid=A1B2C3&amt=20.550',
    hex:
      'd1281961a4e9b19a01937b4779fbeb6742839f368ea00ec263259a55e7bbe24c670ff88e077548b63755e87fa207da3b' +
      '3c6de3c85947006ec289c627e4c63b906217362fb2d0edee49fd5bbd20cb05d6',
  },
  // Empty text: one block of padding only.
  { plain: '', hex: '8214523722f35188fd42dae61f0aaac2' },
  // Exactly one block: a whole block of padding follows.
  { plain: '0123456789abcdef', hex: '055e99b673aeeb0a149cf33f1b3fd1e030ca104cbccca8a74bf5f95db0c4abdc' },
];

describe('KNET trandata crypto', () => {
  it('encrypts to the vectors, in lower-case hex', () => {
    for (const { plain, hex } of VECTORS) assert.equal(encryptTrandata(plain, KEY), hex);
  });

  it('decrypts the vectors, in either case and with surrounding blanks', () => {
    for (const { plain, hex } of VECTORS) {
      assert.equal(decryptTrandata(hex, KEY), plain);
      assert.equal(decryptTrandata(` ${hex.toUpperCase()}\n`, KEY), plain);
    }
  });

  it('round-trips UTF-8 text', () => {
    const plain = 'udf1=مرحبا&amt=1.000';
    assert.equal(decryptTrandata(encryptTrandata(plain, KEY), KEY), plain);
  });

  it('refuses text that is not whole hex blocks', () => {
    for (const bad of ['', 'zz', 'abc', VECTORS[0].hex.slice(0, -2), `${VECTORS[1].hex}00`, 'trandata=00']) {
      assert.throws(() => decryptTrandata(bad, KEY), KnetDecryptError, bad);
    }
  });

  it('refuses a ciphertext under another key, or with a changed last block', () => {
    assert.throws(() => decryptTrandata(VECTORS[0].hex, 'ZYXWVU9876543210'), KnetDecryptError);
    const hex = VECTORS[1].hex;
    const tampered = hex.slice(0, -1) + (hex.endsWith('0') ? '1' : '0');
    assert.throws(() => decryptTrandata(tampered, KEY), KnetDecryptError);
  });

  it('refuses keys that are not 16 ASCII characters, without showing them', () => {
    for (const key of ['short', 'ABCDEF01234567890', 'ABCDEF012345678é']) {
      assert.throws(
        () => encryptTrandata('x', key),
        (error: unknown) => error instanceof KnetKeyError && !error.message.includes(key),
      );
    }
  });
});
