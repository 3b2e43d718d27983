import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isCredentialName } from './redact.js';
import { redactJson, redactText } from './redact-text.js';
import { isCardNumber, luhnValid } from './secret-values.js';

const text = (value: string) => redactText(value, isCredentialName, '[redacted]');
const json = (value: string) => redactJson(value, isCredentialName, '[redacted]');
const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';

describe('secrets are recognised by their shape, under any name (issue 26, item 6)', () => {
  it('redacts JWTs, Bearer tokens and Basic credentials, keeping the scheme', () => {
    assert.equal(text(`Authorization: Bearer ${JWT}`), 'Authorization: Bearer [redacted]');
    assert.equal(text(`id_token ${JWT}.`), 'id_token [redacted].');
    assert.equal(text('calling with bearer abc123-opaque_token~v2 now'), 'calling with bearer [redacted] now');
    assert.equal(text('Bearer%20abcdef0123456789'), 'Bearer%20[redacted]');
    assert.equal(text(`Basic ${Buffer.from('ann:hunter2').toString('base64')}`), 'Basic [redacted]');
    assert.equal(text('Basic information is kept'), 'Basic information is kept', 'not a user:password');
  });

  it('redacts keys with well-known prefixes', () => {
    for (const key of [
      'AIzaSyA1234567890abcdefghijklmnopqrstuv',
      'AKIAIOSFODNN7EXAMPLE',
      'ASIAIOSFODNN7EXAMPLE',
      'ghp_0123456789abcdefghijklmnopqrstuvwxyz',
      'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz',
      'sk_live_4eC39HqLyjWDarjtT1zdp7dc',
      'rk_test_4eC39HqLyjWDarjtT1zdp7dc',
      'whsec_0123456789abcdefghij',
      'xoxb-1234567890-abcdefghijklmnop',
      'xoxp-1234-5678-abcdef',
      'glpat-0123456789abcdefghij',
      'npm_0123456789abcdefghijklmnopqrstuvwxyz',
      'SG.0123456789abcdefghij.0123456789abcdefghijklmnopq',
      'sk-proj-0123456789abcdefghijklmn',
    ]) {
      assert.equal(text(`key: ${key}, next`), 'key: [redacted], next', key);
      assert.equal(
        json(JSON.stringify({ note: `line\n${key}` })),
        JSON.stringify({ note: 'line\n[redacted]' }),
        `${key} after an escape`,
      );
    }
  });

  it('leaves words that only begin like a key', () => {
    for (const plain of [
      'AKIA',
      'ghp_short',
      'sk_live_x',
      'xoxb-1',
      'thekeyAIzaSyA1234567890abcdefghijklmnopqrstuv',
      'eyJust.a.word',
      'Bearer abc',
    ]) {
      assert.equal(text(plain), plain);
    }
  });

  it('redacts card numbers that pass the Luhn check, spaced or not; keeps other long numbers', () => {
    assert.equal(text('paid with 4111111111111111.'), 'paid with [redacted].');
    assert.equal(text('card 4111 1111 1111 1111 exp 12/29'), 'card [redacted] exp 12/29');
    assert.equal(text('amex 3782-822463-10005'), 'amex [redacted]');
    assert.equal(text('?pan=5555555555554444&x=1'), '?pan=[redacted]&x=1');
    for (const plain of [
      '4111111111111112',
      'time 1767348000000',
      'id 41111111111111111111',
      'uuid 550e8400-e29b-41d4-a716-446655440000',
      'x4111111111111111',
    ]) {
      assert.equal(text(plain), plain);
    }
  });

  it('redacts card numbers inside JSON strings, never the numbers between them', () => {
    const report = JSON.stringify({ note: 'card 4111111111111111', size: 4111111111111111, at: 'x:4111111111111111,' });
    assert.equal(
      json(report),
      JSON.stringify({ note: 'card [redacted]', size: 4111111111111111, at: 'x:[redacted],' }),
    );
    assert.ok(isCardNumber(4111111111111111) && !isCardNumber(1767348000000) && !isCardNumber(4111111111111112));
    assert.ok(luhnValid('79927398713') && !luhnValid('79927398710'));
  });

  it('redacts the tokens that bot and webhook URLs carry in their path (issue 41, item 6)', () => {
    const telegram = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
    assert.equal(
      text(`POST https://api.telegram.org/bot${telegram}/sendMessage?chat_id=42`),
      'POST https://api.telegram.org/bot[redacted]/sendMessage?chat_id=42',
    );
    assert.equal(text(`/file/bot${telegram.replace(':', '%3A')}/photo.jpg`), '/file/bot[redacted]/photo.jpg');
    assert.equal(
      text('https://hooks.slack.com/services/T0123ABCD/B0456EFGH/XXXXXXXXXXXXXXXXXXXXXXXX sent'),
      'https://hooks.slack.com/services/[redacted] sent',
    );
    assert.equal(
      text('http://proxy.internal/services/T0123ABCD/B0456EFGH/XXXXXXXXXXXXXXXXXXXXXXXX'),
      'http://proxy.internal/services/[redacted]',
    );
    assert.equal(
      text('https://hooks.slack.com/workflows/T0123ABCD/A0456EFGH/123456789/abcdef0123456789'),
      'https://hooks.slack.com/workflows/[redacted]',
    );
    assert.equal(
      text('http://proxy.internal/workflows/T0123ABCD/A0456EFGH/123456789/abcdef0123456789?x=1'),
      'http://proxy.internal/workflows/[redacted]?x=1',
    );
    assert.equal(
      text('http://proxy.internal/triggers/T0123ABCD/123456789/abcdef0123456789'),
      'http://proxy.internal/triggers/[redacted]',
    );
    const discord = 'Wh6fRJbdK7mPz_aS3-yZxq0vN2uL8tC5eG1iO4jH9kB7wD3fQ6rT0sU2xV5yA8zC1bE4g';
    assert.equal(
      text(`https://discord.com/api/v10/webhooks/112233445566778899/${discord}?wait=true`),
      'https://discord.com/api/v10/webhooks/112233445566778899/[redacted]?wait=true',
    );
    assert.equal(
      json(JSON.stringify({ url: `https://api.telegram.org/bot${telegram}/getMe` })),
      JSON.stringify({ url: 'https://api.telegram.org/bot[redacted]/getMe' }),
    );
  });

  it('leaves paths that only begin like a bot or a webhook', () => {
    for (const plain of [
      '/bots/list',
      '/bot123/status',
      '/bot123:short/x',
      'https://hooks.slack.com/',
      'https://hooks.slack.com/services/short',
      '/services/Team/Billing/overview',
      '/services/T0123ABCD/B0456EFGH/short',
      '/services/T0123ABCD/B0456EFGH/abcdef-0123456789',
      '/workflows/Team-A/overview',
      '/webhooks/github',
      '/webhooks/12345/short',
      '/api/webhooks/123/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    ]) {
      assert.equal(text(plain), plain);
    }
  });

  it('redacts the body of a PEM private key', () => {
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----';
    assert.equal(text(pem), '-----BEGIN RSA PRIVATE KEY-----[redacted]-----END RSA PRIVATE KEY-----');
    assert.equal(
      json(JSON.stringify({ key: pem.replace('PRIVATE', 'PRIVATE') })),
      JSON.stringify({ key: '-----BEGIN RSA PRIVATE KEY-----[redacted]-----END RSA PRIVATE KEY-----' }),
    );
  });

  it('keeps JSON valid, and costs time linear in the text for hostile input', () => {
    for (const hostile of [
      'eyJ'.repeat(200_000),
      `eyJ${'a'.repeat(600_000)}`,
      'Bearer '.repeat(100_000),
      '4'.repeat(600_000),
      '4 '.repeat(300_000),
      '4-1'.repeat(200_000),
      'AIza'.repeat(150_000),
      '-----BEGIN '.repeat(50_000),
      '-----BEGIN PRIVATE KEY-----'.repeat(20_000),
      '/bot1'.repeat(120_000),
      `/bot123:${'a'.repeat(600_000)}`,
      'hooks.slack.com/services/'.repeat(25_000),
      '/webhooks/123456/'.repeat(35_000),
      '/services/T0123ABCD/B'.repeat(30_000),
      `/triggers/T0123ABCD/${'a/'.repeat(300_000)}`,
    ]) {
      const started = performance.now();
      const out = json(JSON.stringify({ hostile }));
      JSON.parse(out);
      text(hostile);
      assert.ok(
        performance.now() - started < 2_000,
        `${hostile.slice(0, 12)}… took ${Math.round(performance.now() - started)} ms`,
      );
    }
  });
});
