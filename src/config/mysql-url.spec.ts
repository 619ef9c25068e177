import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { endpointName, parseMysqlUrl } from './mysql-url';

describe('parseMysqlUrl', () => {
  it('reads one host with user, password and database', () => {
    assert.deepEqual(parseMysqlUrl('mysql://checkout:s3cret@db.internal:3307/shop'), {
      endpoints: [{ host: 'db.internal', port: 3307 }],
      user: 'checkout',
      password: 's3cret',
      database: 'shop',
    });
  });

  it('reads a host list in order, with the default port where none is given', () => {
    const url = parseMysqlUrl('mysql://root@10.0.0.1:4306,10.0.0.2,node-3:4308/test');
    assert.deepEqual(url?.endpoints, [
      { host: '10.0.0.1', port: 4306 },
      { host: '10.0.0.2', port: 3306 },
      { host: 'node-3', port: 4308 },
    ]);
    assert.equal(url?.user, 'root');
    assert.equal(url?.password, '');
  });

  it('percent-decodes the credentials and reads bracketed IPv6 hosts', () => {
    const url = parseMysqlUrl('mysql://us%40r:p%2Fa%3Ass@[::1]:3306/db');
    assert.equal(url?.user, 'us@r');
    assert.equal(url?.password, 'p/a:ss');
    assert.deepEqual(url?.endpoints, [{ host: '::1', port: 3306 }]);
    assert.equal(endpointName(url.endpoints[0]), '[::1]:3306');
  });

  it('refuses what is not such a URL', () => {
    for (const text of [
      'postgres://u@h/db',
      'mysql://u@h:3306',
      'mysql://u@h:3306/',
      'mysql://u@h:99999/db',
      'mysql://u@h:0/db',
      'mysql://u@h1:3306,,h2/db',
      'mysql://u@h 1/db',
      'mysql://u@h/db/extra',
      'mysql://u:%E0%A4%A@h/db',
    ]) {
      assert.equal(parseMysqlUrl(text), null, text);
    }
  });
});
