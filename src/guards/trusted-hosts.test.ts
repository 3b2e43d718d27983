import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../config/index.js';
import { hostName, TrustedHosts } from './trusted-hosts.js';

const hosts = (setting?: string) =>
  new TrustedHosts(loadConfig(setting === undefined ? {} : { TRUSTED_HOSTS: setting }, '/srv').trustedHosts);

describe('TrustedHosts matches the host without its port, case-insensitively, as Symfony does', () => {
  it('trusts every host when none is set', () => {
    assert.ok(hosts().trusts('anything.example:1'));
  });

  it('matches each expression as written: anchored ones exactly, others anywhere', () => {
    const trusted = hosts('^localhost$, ^(www\\.)?example\\.com$, \\.internal');
    for (const host of [
      'localhost',
      'LOCALHOST:8443',
      'example.com',
      'www.example.com:443',
      'db.internal',
      'db.internal.evil.com',
    ])
      assert.ok(trusted.trusts(host), host);
    for (const host of ['localhost.evil.com', 'evil-example.com', 'example.com.evil', '127.0.0.1', ''])
      assert.ok(!trusted.trusts(host), host);
  });

  it('keeps IPv6 literals whole', () => {
    assert.equal(hostName('[::1]:8443'), '[::1]');
    assert.equal(hostName('[::1]'), '[::1]');
    assert.equal(hostName('Example.COM'), 'example.com');
    assert.ok(hosts('^\\[::1\\]$').trusts('[::1]:8443'));
  });
});
