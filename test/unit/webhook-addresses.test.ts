import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { AddressRefused, checkWebhookUrl, isAllowedAddress } from '../../lib/webhooks/address-policy.js';
import { newWebhookSecret } from '../../lib/webhooks/secret.js';
import { deliveryHeaders } from '../../lib/webhooks/signature.js';

const refusal = async (url: string, options = {}) => {
  try {
    await checkWebhookUrl(url, options);
    return undefined;
  } catch (error) {
    if (!(error instanceof AddressRefused)) throw error;
    return error.reason;
  }
};

describe('where a webhook may be delivered', () => {
  it('refuses loopback, private, link-local and metadata addresses, in every spelling the URL parser takes', async () => {
    for (const url of [
      'https://127.0.0.1/',
      'https://2130706433/', // 127.0.0.1 in decimal
      'https://0x7f.1/', // in hex
      'https://0177.0.0.1/', // in octal
      'https://[::1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://[::ffff:7f00:1]/',
      'https://10.1.2.3/',
      'https://172.31.255.255/',
      'https://192.168.0.10/',
      'https://100.64.0.1/',
      'https://169.254.169.254/latest/meta-data/',
      'https://[::ffff:169.254.169.254]/',
      'https://[64:ff9b::a9fe:a9fe]/', // NAT64 of 169.254.169.254
      'https://[2002:a9fe:a9fe::1]/', // 6to4 of it
      'https://[fd00:ec2::254]/', // AWS's IPv6 metadata service
      'https://[fe80::1]/',
      'https://[fc00::1]/',
      'https://0.0.0.0/',
      'https://[::]/',
      'https://224.0.0.1/',
      'https://localhost/', // resolves to loopback
    ]) {
      expect(await refusal(url), url).toBe('address not allowed');
    }
  });

  it('refuses every special-purpose range that is not globally reachable, and what IPv6 carries of them', async () => {
    for (const url of [
      // SIIT (::ffff:0:0:0/96), carrying loopback, a private and the metadata address
      'https://[::ffff:0:127.0.0.1]/',
      'https://[::ffff:0:a00:1]/',
      'https://[::ffff:0:a9fe:a9fe]/',
      // IPv4-compatible (::/96), carrying loopback, a private and the metadata address
      'https://[::127.0.0.2]/',
      'https://[::7f00:1]/',
      'https://[::a00:1]/',
      'https://[::a9fe:a9fe]/',
      // ISATAP identifiers (RFC 5214) in a global prefix, carrying loopback and the metadata address
      'https://[2607:f8b0::5efe:7f00:1]/',
      'https://[2607:f8b0::200:5efe:a9fe:a9fe]/',
      // local-use NAT64 (RFC 8215), whatever it carries
      'https://[64:ff9b:1::a00:1]/',
      'https://[64:ff9b:1::a9fe:a9fe]/',
      'https://[64:ff9b:1::808:808]/',
      'https://[fec0::1]/', // site-local (deprecated)
      'https://[2001:2::1]/', // benchmarking
      'https://[2001:10::1]/', // ORCHID (deprecated)
      'https://[2001:20::1]/', // ORCHIDv2
      'https://[3fff::1]/', // documentation (2024)
      'https://[5f00::1]/', // segment routing SIDs
      'https://[2001::1]/', // Teredo
      'https://[100::1]/', // discard-only
      'https://[2001:db8::1]/', // documentation
      'https://192.0.0.170/', // IETF protocol assignments
      'https://192.0.2.1/',
      'https://198.18.0.1/', // benchmarking
      'https://198.51.100.1/',
      'https://203.0.113.1/',
      'https://192.31.196.1/', // AS112
      'https://192.175.48.1/', // AS112
      'https://240.0.0.1/',
      'https://255.255.255.255/',
    ]) {
      expect(await refusal(url), url).toBe('address not allowed');
    }
  });

  it('takes public addresses, and an IPv6 that maps a public IPv4', async () => {
    for (const url of [
      'https://93.184.215.14/hooks',
      'https://[2606:4700:4700::1111]/',
      'https://[::ffff:93.184.215.14]/',
      'https://[64:ff9b::808:808]/',
      'https://[2002:808:808::1]/',
      'https://[::808:808]/',
      'https://[2607:f8b0::5efe:808:808]/',
    ]) {
      expect(await refusal(url), url).toBeUndefined();
    }
    expect(isAllowedAddress('8.8.8.8')).toBe(true);
  });

  it('refuses http, credentials in the URL and names that do not resolve', async () => {
    expect(await refusal('http://93.184.215.14/')).toBe('must be https');
    expect(await refusal('https://user:secret@93.184.215.14/')).toBe('must not hold a user name or password');
    expect(await refusal('https://nothing.invalid/')).toBe('does not resolve');
    expect(await refusal('not a url')).toBe('is not a URL');
  });

  it('allows, where the deployment says so, http and exactly 127.0.0.1 and ::1: no other loopback, nothing private', async () => {
    const local = { allowLoopback: true };
    expect(await refusal('http://127.0.0.1:8080/hook', local)).toBeUndefined();
    expect(await refusal('http://[::1]:8080/hook', local)).toBeUndefined();
    expect(await refusal('http://127.0.0.2/', local)).toBe('address not allowed');
    expect(await refusal('http://[::ffff:127.0.0.1]/', local)).toBe('address not allowed');
    expect(await refusal('http://[::ffff:0:127.0.0.1]/', local)).toBe('address not allowed');
    expect(await refusal('http://10.0.0.1/', local)).toBe('address not allowed');
    expect(await refusal('http://169.254.169.254/', local)).toBe('address not allowed');
    expect(await refusal('http://[::127.0.0.2]/', local)).toBe('address not allowed');
  });

  it('takes http only to 127.0.0.1 and ::1 where loopback is allowed, and https to public addresses as everywhere', async () => {
    const local = { allowLoopback: true };
    expect(await refusal('http://93.184.215.14/hook', local)).toBe('must be https (http is allowed only to 127.0.0.1 and ::1)');
    expect(await refusal('http://[2606:4700:4700::1111]/', local)).toBe('must be https (http is allowed only to 127.0.0.1 and ::1)');
    expect(await refusal('https://93.184.215.14/hook', local)).toBeUndefined();
    expect(await refusal('https://127.0.0.1:8443/hook', local)).toBeUndefined();
  });
});

describe("a delivery's signature", () => {
  it('is the Standard Webhooks test vector for its inputs', () => {
    const headers = deliveryHeaders('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', new Date(1614265330 * 1000), '{"test": 2432232314}');
    expect(headers).toEqual({
      'content-type': 'application/json',
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('verifies with the secret, in the library a receiver uses, and not with another secret', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = '{"ID":"c1"}';
    const headers = deliveryHeaders(secret, 'c1', new Date(), body);
    expect(new Webhook(secret).verify(body, headers)).toEqual({ ID: 'c1' });
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });
});
