import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isBlockedAddress, isBlockedLiteralHost } from './private-address';

describe('private addresses (webhook SSRF guard)', () => {
  it('refuses IPv4 loopback, private, link-local, CGNAT, multicast and reserved; allows public', () => {
    for (const ip of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '240.0.0.1',
      '198.18.0.1',
    ]) {
      assert.equal(isBlockedAddress(ip), true, ip);
    }
    for (const ip of ['8.8.8.8', '93.184.216.34']) assert.equal(isBlockedAddress(ip), false, ip);
  });

  it('refuses IPv6 special ranges, site-local, discard and segment routing included', () => {
    for (const ip of [
      '::',
      '::1',
      'fe80::1',
      'fe80::1%eth0',
      'fd00::1',
      'fec0::1',
      '100::1',
      'ff02::1',
      '2001:db8::1',
      '5f00::1',
      '2001:20::1',
    ]) {
      assert.equal(isBlockedAddress(ip), true, ip);
    }
    assert.equal(isBlockedAddress('2606:4700:4700::1111'), false);
  });

  it('judges an IPv4 address carried in IPv6 by that address, or refuses the form outright', () => {
    const blocked = [
      '::7f00:1', // IPv4-compatible (::/96): refused whatever it carries
      '::a9fe:a9fe',
      '::808:808',
      '::ffff:127.0.0.1', // IPv4-mapped
      '::ffff:10.0.0.1',
      '::ffff:0:7f00:1', // SIIT
      '64:ff9b::7f00:1', // NAT64 well-known prefix
      '64:ff9b::a9fe:a9fe',
      '64:ff9b:1::808:808', // NAT64 local-use prefix: refused outright
      '2002:808:808::1', // 6to4: refused outright
      '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo: refused outright
      '2001:db8:1::5efe:a00:1', // ISATAP of 10.0.0.1
      '2a00:1450::200:5efe:7f00:1', // ISATAP (universal) of 127.0.0.1
    ];
    for (const ip of blocked) assert.equal(isBlockedAddress(ip), true, ip);
    for (const ip of ['::ffff:8.8.8.8', '64:ff9b::808:808', '2a00:1450::200:5efe:808:808']) {
      assert.equal(isBlockedAddress(ip), false, ip);
    }
  });

  it('checks URL hosts as written, bracketed IPv6 and numeric IPv4 forms included', () => {
    for (const url of [
      'http://[::7f00:1]/',
      'http://[::127.0.0.1]:8080/x',
      'http://[::a9fe:a9fe]/',
      'http://localhost/',
      'http://2130706433/',
      'http://0x7f.1/',
    ]) {
      assert.equal(isBlockedLiteralHost(url), true, url);
    }
    for (const url of ['https://hooks.example.com/x', 'https://[64:ff9b::93.184.216.34]/', 'not a url']) {
      assert.equal(isBlockedLiteralHost(url), false, url);
    }
  });
});
